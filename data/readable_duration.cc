#include "data/readable_duration.h"

#include <cstdio>
#include <cstdlib>

namespace millrace::data {

std::string readable_duration(Micros us) {
  const double s = seconds_from_micros(us);
  const double size = std::abs(s);
  char text[48];
  if (size < 1) {
    std::snprintf(text, sizeof text, "%.0f ms", s * 1e3);
  } else if (size < 60) {
    std::snprintf(text, sizeof text, "%.1f s", s);
  } else if (size < 3600) {
    std::snprintf(text, sizeof text, "%.1f min", s / 60);
  } else {
    std::snprintf(text, sizeof text, "%.2f h", s / 3600);
  }
  return text;
}

}  // namespace millrace::data
