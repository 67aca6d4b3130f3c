#include "partitioners/list_schedule.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace millrace::partitioners {

double lpt_makespan(std::vector<double> costs, int workers) {
  std::sort(costs.begin(), costs.end(), std::greater<>());
  return list_makespan(costs, workers);
}

double list_makespan(const std::vector<double>& costs, int workers) {
  std::priority_queue<double, std::vector<double>, std::greater<>> loads;
  for (int w = 0; w < workers; ++w) loads.push(0);
  double makespan = 0;
  for (double c : costs) {
    const double load = loads.top() + c;
    loads.pop();
    loads.push(load);
    makespan = std::max(makespan, load);
  }
  return makespan;
}

}  // namespace millrace::partitioners
