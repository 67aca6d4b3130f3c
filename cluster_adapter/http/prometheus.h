// Writing the Prometheus text exposition format (version 0.0.4): metric families one after
// another, each its HELP and TYPE lines then its samples, label values escaped, and durations
// in seconds exact to the microsecond. Shared by every part of a run that exposes metrics
// (the run's counts and durations, a cluster's own state), so GET /metrics is one document.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "data/time.h"

namespace millrace::cluster_adapter {

using PrometheusLabels = std::vector<std::pair<std::string, std::string>>;

class PrometheusWriter {
 public:
  // Starts a family: `type` is gauge, counter or histogram.
  void family(const std::string& name, const std::string& type, const std::string& help);
  void sample(const std::string& name, std::int64_t value, const PrometheusLabels& labels = {});
  void sample_seconds(const std::string& name, data::Micros value, const PrometheusLabels& labels = {});
  // A real number, with six significant digits ("0.101234").
  void sample_real(const std::string& name, double value, const PrometheusLabels& labels = {});
  // A gauge family with one unlabelled sample.
  void gauge(const std::string& name, const std::string& help, std::int64_t value);

  std::string text() const { return out_.str(); }

 private:
  void write_name(const std::string& name, const PrometheusLabels& labels);

  std::ostringstream out_;
};

// Seconds as Prometheus prints them, exact to the microsecond ("1.5", "0.000001", "3").
std::string prometheus_seconds(data::Micros micros);

}  // namespace millrace::cluster_adapter
