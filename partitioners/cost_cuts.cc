#include "partitioners/cost_cuts.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "partitioners/cuts.h"

namespace millrace::partitioners {

namespace {

constexpr int kMaxBisections = 200;
constexpr double kRelativeGap = 1e-10;

// Cost of the range [x, end) as run, i.e. also replaying `overlap` units before x.
double run_cost(const data::CostModel& model, std::int64_t x, std::int64_t end, std::int64_t overlap) {
  return model.cost({x - overlap, end - x + overlap});
}

// The furthest end whose range [x, end), overlap included, costs at most `budget`.
std::int64_t reach(const data::CostModel& model, std::int64_t x, double budget, std::int64_t limit,
                   std::int64_t overlap) {
  return model.furthest_end(x, budget - run_cost(model, x, x, overlap), limit);
}

// The greedy probe: ranges of cost <= bottleneck, or nothing when more than n are needed.
std::optional<std::vector<data::Range>> greedy_ranges(const data::CostModel& model, const data::Range& span,
                                                      std::int64_t n, std::int64_t align, std::int64_t overlap,
                                                      double bottleneck) {
  std::vector<data::Range> out;
  for (std::int64_t x = span.first; x < span.end();) {
    if (static_cast<std::int64_t>(out.size()) == n) return std::nullopt;
    std::int64_t end = reach(model, x, bottleneck, span.end(), overlap);
    if (end < span.end()) end = align_down(end, align);
    if (end <= x) return std::nullopt;
    out.push_back({x, end - x});
    x = end;
  }
  return out;
}

// n ranges whose cumulative cost reaches k * target at the k-th cut (each cut on the aligned
// point nearest that, so rounding does not accumulate); the last range takes the rest.
std::vector<data::Range> cumulative_cost_ranges(const data::CostModel& model, const data::Range& span, std::int64_t n,
                                                std::int64_t align, std::int64_t overlap, double target) {
  std::vector<data::Range> out;
  std::int64_t x = span.first;
  double reached = 0;
  for (std::int64_t k = 1; k < n; ++k) {
    const double goal = static_cast<double>(k) * target - reached;
    std::int64_t cut = std::max(align_down(reach(model, x, goal, span.end(), overlap), align), align_up(x + 1, align));
    const std::int64_t next = cut + align;
    if (std::abs(run_cost(model, x, next, overlap) - goal) < std::abs(run_cost(model, x, cut, overlap) - goal)) cut = next;
    // Leave at least one aligned step for each later range.
    cut = std::min(cut, align_down(span.end() - (n - k) * align, align));
    out.push_back({x, cut - x});
    reached += run_cost(model, x, cut, overlap);
    x = cut;
  }
  out.push_back({x, span.end() - x});
  return out;
}

}  // namespace

std::vector<double> predicted_costs(const data::CostModel& model, const std::vector<data::Range>& ranges,
                                    std::int64_t overlap) {
  std::vector<double> costs;
  costs.reserve(ranges.size());
  for (const data::Range& r : ranges) costs.push_back(run_cost(model, r.first, r.end(), overlap));
  return costs;
}

std::vector<data::Range> min_max_ranges(const data::CostModel& model, const data::Range& span, std::int64_t n,
                                        std::int64_t align, std::int64_t overlap) {
  // Every partition into n ranges has one costing at least the mean of the work.
  double lo = model.work(span.first, span.end()) / static_cast<double>(n);
  double hi = run_cost(model, span.first, span.end(), overlap);
  std::vector<data::Range> best{span};
  for (int i = 0; i < kMaxBisections && hi - lo > kRelativeGap * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (auto ranges = greedy_ranges(model, span, n, align, overlap, mid)) {
      // The bottleneck actually reached may sit well below the probe: jump there.
      const std::vector<double> costs = predicted_costs(model, *ranges, overlap);
      hi = std::min(mid, *std::max_element(costs.begin(), costs.end()));
      best = std::move(*ranges);
    } else {
      lo = mid;
    }
  }
  return best;
}

std::vector<data::Range> equal_cost_ranges(const data::CostModel& model, const data::Range& span, std::int64_t n,
                                           std::int64_t align, std::int64_t overlap) {
  // The target is the mean cost per range, which depends (through start-up and overlap costs)
  // on where the cuts fall. Bisect it on the sign of (last range's cost - target) and keep the
  // candidate with the smallest spread between its cheapest and dearest range.
  double lo = 0;
  double hi = 2 * run_cost(model, span.first, span.end(), overlap);
  std::vector<data::Range> best;
  double best_spread = 0;
  for (int i = 0; i < kMaxBisections && hi - lo > kRelativeGap * hi; ++i) {
    const double target = lo + (hi - lo) / 2;
    std::vector<data::Range> ranges = cumulative_cost_ranges(model, span, n, align, overlap, target);
    const std::vector<double> costs = predicted_costs(model, ranges, overlap);
    (costs.back() > target ? lo : hi) = target;
    const auto [cheapest, dearest] = std::minmax_element(costs.begin(), costs.end());
    if (best.empty() || *dearest - *cheapest < best_spread) {
      best_spread = *dearest - *cheapest;
      best = std::move(ranges);
    }
  }
  return best;
}

}  // namespace millrace::partitioners
