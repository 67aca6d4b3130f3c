#include "scheduler/lane_pool.h"

#include <algorithm>

namespace millrace::scheduler {

LanePool::LanePool(int lanes) : idle_(lanes), busy_(lanes, 0), alive_(lanes, 0), warm_(lanes) {
  std::size_t width = std::max<std::size_t>(3, std::to_string(lanes - 1).size());
  names_.reserve(lanes);
  for (int w = 0; w < lanes; ++w) {
    std::string digits = std::to_string(w);
    std::string name = "w";
    name.append(width - std::min(width, digits.size()), '0');
    names_.push_back(name + digits);
  }
}

}  // namespace millrace::scheduler
