#include "cluster_adapter/http/prometheus.h"

#include <cstdio>

namespace millrace::cluster_adapter {

namespace {

std::string escape_label_value(const std::string& value) {
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

}  // namespace

void PrometheusWriter::family(const std::string& name, const std::string& type, const std::string& help) {
  out_ << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
}

void PrometheusWriter::write_name(const std::string& name, const PrometheusLabels& labels) {
  out_ << name;
  if (labels.empty()) return;
  out_ << '{';
  for (std::size_t i = 0; i < labels.size(); ++i) {
    out_ << (i ? "," : "") << labels[i].first << "=\"" << escape_label_value(labels[i].second) << '"';
  }
  out_ << '}';
}

void PrometheusWriter::sample(const std::string& name, std::int64_t value, const PrometheusLabels& labels) {
  write_name(name, labels);
  out_ << ' ' << value << '\n';
}

void PrometheusWriter::sample_real(const std::string& name, double value, const PrometheusLabels& labels) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  write_name(name, labels);
  out_ << ' ' << text << '\n';
}

void PrometheusWriter::sample_seconds(const std::string& name, data::Micros value, const PrometheusLabels& labels) {
  write_name(name, labels);
  out_ << ' ' << prometheus_seconds(value) << '\n';
}

void PrometheusWriter::gauge(const std::string& name, const std::string& help, std::int64_t value) {
  family(name, "gauge", help);
  sample(name, value);
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

}  // namespace millrace::cluster_adapter
