// What a PromQL expression asks of the server's metrics, for the dashboard test: every metric
// name it selects with its label matchers, and the labels it groups or matches by (`by`,
// `without`, `on`, `ignoring`, `group_left`, `group_right`). A small tokenizer, not a full
// PromQL parser: it knows function calls (a name followed by '('), aggregations, keywords,
// numbers and durations, range brackets (skipped, with Grafana's $__rate_interval in them) and
// string literals; everything else that is a name is a metric.
#pragma once

#include <cctype>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace millrace::test_support {

struct LabelMatcher {
  std::string label;
  std::string op;     // =, !=, =~, !~
  std::string value;  // unquoted, escapes kept as written
};

struct MetricSelector {
  std::string metric;
  std::vector<LabelMatcher> matchers;
};

struct PromqlUse {
  std::vector<MetricSelector> selectors;
  std::set<std::string> grouping_labels;
};

class PromqlScanner {
 public:
  explicit PromqlScanner(std::string expr) : expr_(std::move(expr)) {}

  // Throws std::runtime_error naming the expression and position on what it cannot read.
  PromqlUse scan() {
    PromqlUse use;
    while (skip_space(), at_ < expr_.size()) {
      const char c = expr_[at_];
      if (c == '"' || c == '\'') {
        string_literal();
      } else if (c == '[') {
        skip_to(']');
      } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && next_is_digit())) {
        while (at_ < expr_.size() && (std::isalnum(static_cast<unsigned char>(expr_[at_])) || expr_[at_] == '.')) ++at_;
      } else if (is_name_start(c)) {
        const std::string word = name();
        skip_space();
        if (kGrouping.contains(word)) {
          if (peek() == '(') label_list(use.grouping_labels);
        } else if (kKeywords.contains(word) || peek() == '(') {
          continue;  // an operator keyword, or a function or aggregation: its arguments follow
        } else {
          MetricSelector selector{word, {}};
          if (peek() == '{') selector.matchers = matchers();
          use.selectors.push_back(std::move(selector));
        }
      } else if (c == '{') {
        throw error("a selector without a metric name");
      } else {
        ++at_;  // operators, parentheses, commas
      }
    }
    return use;
  }

 private:
  inline static const std::set<std::string> kGrouping = {"by", "without", "on", "ignoring", "group_left", "group_right"};
  // Binary operator keywords, and aggregations (which may be followed by `by (...)` before their
  // parentheses).
  inline static const std::set<std::string> kKeywords = {
      "and", "or", "unless", "bool", "offset", "atan2", "sum", "min", "max", "avg", "group", "stddev",
      "stdvar", "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio"};

  static bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }
  bool next_is_digit() const {
    return at_ + 1 < expr_.size() && std::isdigit(static_cast<unsigned char>(expr_[at_ + 1]));
  }
  char peek() const { return at_ < expr_.size() ? expr_[at_] : '\0'; }
  void skip_space() {
    while (at_ < expr_.size() && std::isspace(static_cast<unsigned char>(expr_[at_]))) ++at_;
  }
  std::runtime_error error(const std::string& problem) const {
    return std::runtime_error("PromQL `" + expr_ + "` at " + std::to_string(at_) + ": " + problem);
  }
  std::string name() {
    const std::size_t from = at_;
    while (at_ < expr_.size() && (is_name_start(expr_[at_]) || std::isdigit(static_cast<unsigned char>(expr_[at_])))) {
      ++at_;
    }
    return expr_.substr(from, at_ - from);
  }
  void skip_to(char close) {
    const std::size_t end = expr_.find(close, at_);
    if (end == std::string::npos) throw error(std::string("no closing ") + close);
    at_ = end + 1;
  }
  std::string string_literal() {
    const char quote = expr_[at_++];
    std::string value;
    while (at_ < expr_.size() && expr_[at_] != quote) {
      if (expr_[at_] == '\\' && at_ + 1 < expr_.size()) value += expr_[at_++];
      value += expr_[at_++];
    }
    if (at_ >= expr_.size()) throw error("unterminated string");
    ++at_;
    return value;
  }
  void label_list(std::set<std::string>& labels) {
    ++at_;  // (
    while (skip_space(), peek() != ')') {
      if (peek() == ',') {
        ++at_;
      } else if (is_name_start(peek())) {
        labels.insert(name());
      } else {
        throw error("expected a label name");
      }
    }
    ++at_;
  }
  std::vector<LabelMatcher> matchers() {
    std::vector<LabelMatcher> list;
    ++at_;  // {
    while (skip_space(), peek() != '}') {
      if (peek() == ',') {
        ++at_;
        continue;
      }
      if (!is_name_start(peek())) throw error("expected a label name in a matcher");
      LabelMatcher m;
      m.label = name();
      skip_space();
      for (const char* op : {"=~", "!~", "!=", "="}) {
        if (expr_.compare(at_, std::char_traits<char>::length(op), op) == 0) {
          m.op = op;
          at_ += m.op.size();
          break;
        }
      }
      if (m.op.empty()) throw error("expected =, !=, =~ or !~ after " + m.label);
      skip_space();
      if (peek() != '"' && peek() != '\'') throw error("expected a string after " + m.label + m.op);
      m.value = string_literal();
      list.push_back(std::move(m));
    }
    ++at_;
    return list;
  }

  std::string expr_;
  std::size_t at_ = 0;
};

}  // namespace millrace::test_support
