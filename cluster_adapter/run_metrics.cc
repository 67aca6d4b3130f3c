#include "cluster_adapter/run_metrics.h"

#include <algorithm>
#include <sstream>

namespace millrace::cluster_adapter {

namespace {

std::string escape_label(const std::string& value) {
  std::string escaped;
  for (char c : value) {
    if (c == '\\' || c == '"') escaped += '\\';
    if (c == '\n') {
      escaped += "\\n";
    } else {
      escaped += c;
    }
  }
  return escaped;
}

void header(std::ostream& out, const std::string& name, const std::string& type, const std::string& help) {
  out << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
}

void gauge(std::ostream& out, const std::string& name, const std::string& help, std::int64_t value) {
  header(out, name, "gauge", help);
  out << name << ' ' << value << '\n';
}

}  // namespace

DurationHistogram::DurationHistogram(std::vector<data::Micros> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1, 0) {
  std::sort(bounds_.begin(), bounds_.end());
}

std::vector<data::Micros> DurationHistogram::default_bounds() {
  using data::kMicrosPerMilli;
  using data::kMicrosPerSecond;
  return {100 * kMicrosPerMilli, 500 * kMicrosPerMilli, 1 * kMicrosPerSecond,  5 * kMicrosPerSecond,
          10 * kMicrosPerSecond, 30 * kMicrosPerSecond,  60 * kMicrosPerSecond, 300 * kMicrosPerSecond,
          600 * kMicrosPerSecond, 1800 * kMicrosPerSecond, 3600 * kMicrosPerSecond};
}

void DurationHistogram::observe(data::Micros duration) {
  auto bucket = std::lower_bound(bounds_.begin(), bounds_.end(), duration) - bounds_.begin();
  ++counts_[bucket];
  ++count_;
  sum_ += duration;
}

std::vector<std::int64_t> DurationHistogram::cumulative_counts() const {
  std::vector<std::int64_t> cumulative(counts_.size());
  std::int64_t running = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) cumulative[i] = running += counts_[i];
  return cumulative;
}

std::string prometheus_seconds(data::Micros micros) {
  std::string sign = micros < 0 ? "-" : "";
  data::Micros magnitude = micros < 0 ? -micros : micros;
  std::string text = sign + std::to_string(magnitude / data::kMicrosPerSecond);
  data::Micros fraction = magnitude % data::kMicrosPerSecond;
  if (fraction == 0) return text;
  std::string digits = std::to_string(fraction);
  digits.insert(0, 6 - digits.size(), '0');
  digits.erase(digits.find_last_not_of('0') + 1);
  return text + "." + digits;
}

std::string prometheus_text(const RunMetrics& metrics) {
  std::ostringstream out;
  gauge(out, "millrace_items_total", "Work items in the run's plan.", metrics.items_total);
  gauge(out, "millrace_items_remaining", "Work items not yet succeeded nor given up.", metrics.items_remaining);
  gauge(out, "millrace_items_succeeded", "Work items that succeeded.", metrics.items_succeeded);
  gauge(out, "millrace_items_failed", "Work items given up after their last attempt failed.",
        metrics.items_failed);
  gauge(out, "millrace_attempts_in_flight", "Attempts submitted and not yet finished.", metrics.in_flight);
  header(out, "millrace_attempts_failed_total", "counter", "Attempts that failed, timed out or were cancelled.");
  out << "millrace_attempts_failed_total " << metrics.attempts_failed << '\n';

  const std::string histogram = "millrace_attempt_duration_seconds";
  header(out, histogram, "histogram", "Wall time of finished attempts.");
  const DurationHistogram& durations = metrics.attempt_durations;
  std::vector<std::int64_t> cumulative = durations.cumulative_counts();
  for (std::size_t i = 0; i < durations.bounds().size(); ++i) {
    out << histogram << "_bucket{le=\"" << prometheus_seconds(durations.bounds()[i]) << "\"} " << cumulative[i]
        << '\n';
  }
  out << histogram << "_bucket{le=\"+Inf\"} " << cumulative.back() << '\n';
  out << histogram << "_sum " << prometheus_seconds(durations.sum()) << '\n';
  out << histogram << "_count " << durations.count() << '\n';

  header(out, "millrace_worker_busy_seconds_total", "counter", "Time each worker spent running finished attempts.");
  for (const auto& [worker, busy] : metrics.worker_busy) {
    out << "millrace_worker_busy_seconds_total{worker=\"" << escape_label(worker) << "\"} "
        << prometheus_seconds(busy) << '\n';
  }
  return out.str();
}

}  // namespace millrace::cluster_adapter
