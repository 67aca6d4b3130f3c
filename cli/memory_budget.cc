#include "cli/memory_budget.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "data/error.h"

namespace millrace::cli {

namespace {

constexpr const char* kLimitVariable = "MILLRACE_MEMORY_LIMIT";

// MemAvailable in bytes (infinity when /proc/meminfo does not say).
double meminfo_available() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  double kilobytes = 0;
  while (meminfo >> key >> kilobytes >> unit) {
    if (key == "MemAvailable:") return kilobytes * 1024;
  }
  return std::numeric_limits<double>::infinity();
}

double limit_from_environment(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  double scale = 1;
  const std::string suffix = end;
  if (suffix == "K" || suffix == "k") scale = 1024;
  else if (suffix == "M") scale = 1024.0 * 1024;
  else if (suffix == "G") scale = 1024.0 * 1024 * 1024;
  else if (!suffix.empty()) scale = 0;
  if (end == text || scale == 0 || !std::isfinite(value) || value <= 0) {
    throw data::Error(std::string(kLimitVariable) + "='" + text + "'", "not a memory size (bytes, or e.g. 512M, 4G)");
  }
  return value * scale;
}

}  // namespace

MemoryLimit available_memory() {
  MemoryLimit limit{meminfo_available(), "MemAvailable in /proc/meminfo"};
  if (const char* cap = std::getenv(kLimitVariable); cap != nullptr) {
    const double bytes = limit_from_environment(cap);
    if (bytes < limit.bytes) limit = {bytes, kLimitVariable};
  }
  return limit;
}

std::string bytes_text(double bytes) {
  static const char* kUnits[] = {"bytes", "KB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1024 && unit < 6) {
    bytes /= 1024;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, kUnits[unit]);
  return text;
}

void require_memory(double count, double bytes_each, const std::string& input, const std::string& what) {
  const double needed = count * bytes_each;
  const MemoryLimit limit = available_memory();
  if (needed <= limit.bytes) return;
  char each[32];
  std::snprintf(each, sizeof each, "%.0f", bytes_each);
  char many[32];
  std::snprintf(many, sizeof many, "%.0f", count);
  throw data::Error(input, "needs about " + bytes_text(needed) + " of memory for " + many + " " + what + " (about " +
                               each + " bytes each), more than the " + bytes_text(limit.bytes) + " available (" +
                               limit.source + ")");
}

}  // namespace millrace::cli
