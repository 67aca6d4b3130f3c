// A quick schedule estimate for choosing a range count: LPT list scheduling (longest predicted
// cost first, each to the least-loaded worker) of predicted costs on W identical workers.
// The discrete-event simulator gives the full picture; this is the cheap proxy `optimal` uses.
#pragma once

#include <vector>

namespace millrace::partitioners {

// Makespan of LPT on `workers` workers. O(n log n + n log W).
double lpt_makespan(std::vector<double> costs, int workers);

}  // namespace millrace::partitioners
