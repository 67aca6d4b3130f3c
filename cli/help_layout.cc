#include "cli/help_layout.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace millrace::cli {

namespace {

// Where an option's (or a command's) description starts.
constexpr std::size_t kColumn = 34;

// `text` in lines of at most `width` characters, broken at spaces; its own line breaks kept. A
// word longer than `width` gets a line of its own.
std::vector<std::string> wrap(const std::string& text, std::size_t width) {
  std::vector<std::string> lines;
  std::istringstream paragraphs(text);
  for (std::string paragraph; std::getline(paragraphs, paragraph);) {
    std::istringstream words(paragraph);
    std::string line;
    for (std::string word; words >> word;) {
      if (!line.empty() && line.size() + 1 + word.size() > width) {
        lines.push_back(line);
        line.clear();
      }
      line += (line.empty() ? "" : " ") + word;
    }
    lines.push_back(line);
  }
  return lines;
}

// "  LEFT    description...", the description wrapped in its column (and below LEFT when LEFT
// reaches into that column).
std::string two_columns(const std::string& left, const std::string& description) {
  std::string out = "  " + left;
  const std::vector<std::string> lines = wrap(description, kHelpWidth - kColumn);
  if (lines.empty()) return out + "\n";
  if (out.size() + 1 > kColumn) {
    out += "\n" + std::string(kColumn, ' ');
  } else {
    out.append(kColumn - out.size(), ' ');
  }
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" + std::string(kColumn, ' ') : "") + lines[i];
  return out + "\n";
}

bool mentions_its_default(const std::string& description) {
  std::string lower = description;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find("default") != std::string::npos;
}

// "--a, --b": the options' names, sorted (a set of pointers has no order of its own).
std::string names_of(const std::set<CLI::Option*>& options) {
  std::vector<std::string> names;
  for (const CLI::Option* option : options) names.push_back(option->get_name());
  std::sort(names.begin(), names.end());
  return CLI::detail::join(names, ", ");
}

class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::vector<std::string> group_order = {}) : group_order_(std::move(group_order)) {}

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::string out;
    for (const std::string& line : wrap(app->get_description(), kHelpWidth)) out += line + "\n";
    out += make_usage(app, name) + make_positionals(app);
    for (const std::string& group : groups_in_order(app)) {
      std::vector<const CLI::Option*> options = app->get_options([&group](const CLI::Option* option) {
        return option->get_group() == group && option->nonpositional();
      });
      if (!options.empty()) out += make_group(group, false, options);
    }
    return out + make_subcommands(app, mode) + "\n" + make_footer(app);
  }

  std::string make_option(const CLI::Option* option, bool is_positional) const override {
    return two_columns(make_option_name(option, is_positional) + make_option_opts(option), make_option_desc(option));
  }

  // The value an option takes, as its last check names it ("INT>=1", "{on,off}", "DURATION"),
  // else as its type does ("TEXT"); "..." when it takes a list.
  std::string make_option_opts(const CLI::Option* option) const override {
    if (option->get_type_size() == 0) return "";
    const std::string type = option->get_type_name();
    std::string out = " " + type.substr(type.rfind(':') == std::string::npos ? 0 : type.rfind(':') + 1);
    if (option->get_expected_max() == CLI::detail::expected_max_vector_size) out += " ...";
    if (option->get_required()) out += " (required)";
    return out;
  }

  std::string make_option_desc(const CLI::Option* option) const override {
    std::string description = option->get_description();
    const std::string default_text = option->get_default_str();
    if (option->get_type_size() != 0 && !default_text.empty() && !mentions_its_default(description)) {
      description += " (default: " + default_text + ")";
    }
    if (!option->get_needs().empty()) description += " (needs " + names_of(option->get_needs()) + ")";
    if (!option->get_excludes().empty()) description += " (not with " + names_of(option->get_excludes()) + ")";
    return description;
  }

  std::string make_subcommand(const CLI::App* command) const override {
    return two_columns(command->get_display_name(true), command->get_description());
  }

 private:
  // The layout's groups first, in its order, then any other group in the order CLI11 met them.
  std::vector<std::string> groups_in_order(const CLI::App* app) const {
    std::vector<std::string> groups = group_order_;
    for (const std::string& group : app->get_groups()) {
      if (!group.empty() && std::find(groups.begin(), groups.end(), group) == groups.end()) groups.push_back(group);
    }
    return groups;
  }

  std::vector<std::string> group_order_;
};

// An example's command line, broken at spaces outside single quotes into shell continuation
// lines that fit (a line followed by another keeps room for its backslash).
std::string example_lines(const std::string& command_line) {
  const std::string next_indent = "      ";
  std::vector<std::string> words;
  std::istringstream in(command_line);
  bool quoted = false;  // inside '...': the word goes on with the next one
  for (std::string word; in >> word;) {
    if (quoted) {
      words.back() += " " + word;
    } else {
      words.push_back(word);
    }
    if (std::count(word.begin(), word.end(), '\'') % 2 == 1) quoted = !quoted;
  }
  std::string out = "  ";
  std::size_t line_length = out.size();
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::size_t room = i + 1 < words.size() ? 2 : 0;
    if (i > 0 && line_length + 1 + words[i].size() + room > kHelpWidth) {
      out += " \\\n" + next_indent;
      line_length = next_indent.size();
    } else if (i > 0) {
      out += " ";
      ++line_length;
    }
    out += words[i];
    line_length += words[i].size();
  }
  return out + "\n";
}

}  // namespace

void use_help_layout(CLI::App& app) { app.formatter(std::make_shared<HelpFormatter>()); }

void put_in_group(CLI::App& command, const HelpGroup& group) {
  for (const std::string& name : group.options) {
    CLI::Option* option = nullptr;
    try {
      option = command.get_option(name);
    } catch (const CLI::OptionNotFound&) {
      throw std::logic_error("help layout of `" + command.get_name() + "`: it has no option " + name);
    }
    option->group(group.title);
  }
}

void set_help_groups(CLI::App& command, const std::vector<HelpGroup>& groups) {
  std::vector<std::string> order;
  for (const HelpGroup& group : groups) {
    put_in_group(command, group);
    order.push_back(group.title);
  }
  command.formatter(std::make_shared<HelpFormatter>(std::move(order)));
}

void set_help_examples(CLI::App& command, const std::vector<HelpExample>& examples) {
  std::string footer = "Examples:\n";
  for (const HelpExample& example : examples) {
    for (const std::string& line : wrap(example.what, kHelpWidth - 4)) footer += "  # " + line + "\n";
    footer += example_lines(example.command_line);
  }
  command.footer(footer);
}

void set_command_groups(CLI::App& app, const std::vector<HelpGroup>& groups) {
  for (const HelpGroup& group : groups) {
    for (const std::string& name : group.options) {
      try {
        app.get_subcommand(name)->group(group.title);
      } catch (const CLI::OptionNotFound&) {
        throw std::logic_error("help layout of `" + app.get_name() + "`: it has no command " + name);
      }
    }
  }
}

}  // namespace millrace::cli
