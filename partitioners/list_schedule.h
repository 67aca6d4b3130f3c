// Quick schedule estimates on W identical workers, each item to the least-loaded worker: LPT
// (longest predicted cost first), the cheap proxy `optimal` uses to choose a range count, and
// the list schedule of a given order (a recorded run's plan order, to replay it with other
// durations). The discrete-event simulator gives the full picture.
#pragma once

#include <vector>

namespace millrace::partitioners {

// Makespan of LPT on `workers` workers. O(n log n + n log W).
double lpt_makespan(std::vector<double> costs, int workers);

// Makespan of the list schedule of `costs` in the order given on `workers` workers. O(n log W).
double list_makespan(const std::vector<double>& costs, int workers);

}  // namespace millrace::partitioners
