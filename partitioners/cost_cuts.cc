#include "partitioners/cost_cuts.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "partitioners/cuts.h"

namespace millrace::partitioners {

namespace {

constexpr int kMaxBisections = 200;
constexpr double kRelativeGap = 1e-12;

// The greedy probe: ranges of cost <= bottleneck, or nothing when more than n are needed.
std::optional<std::vector<data::Range>> greedy_ranges(const data::CostModel& model, const data::Range& span,
                                                      std::int64_t n, std::int64_t align, double bottleneck) {
  std::vector<data::Range> out;
  for (std::int64_t x = span.first; x < span.end();) {
    if (static_cast<std::int64_t>(out.size()) == n) return std::nullopt;
    std::int64_t end = model.furthest_end(x, bottleneck - model.startup(x), span.end());
    if (end < span.end()) end = align_down(end, align);
    if (end <= x) return std::nullopt;
    out.push_back({x, end - x});
    x = end;
  }
  return out;
}

// n - 1 cuts each placed so its range's cost is nearest `target`; the last range takes the
// rest. Nothing when the cuts run past the span (target too large).
std::optional<std::vector<data::Range>> nearest_cost_ranges(const data::CostModel& model, const data::Range& span,
                                                            std::int64_t n, std::int64_t align, double target) {
  std::vector<data::Range> out;
  std::int64_t x = span.first;
  for (std::int64_t k = 1; k < n; ++k) {
    const std::int64_t reach = model.furthest_end(x, target - model.startup(x), span.end());
    std::int64_t cut = std::max(align_down(reach, align), align_up(x + 1, align));
    const std::int64_t next = cut + align;
    if (next < span.end() && std::abs(model.cost({x, next - x}) - target) < std::abs(model.cost({x, cut - x}) - target)) {
      cut = next;
    }
    if (cut >= span.end()) return std::nullopt;
    out.push_back({x, cut - x});
    x = cut;
  }
  out.push_back({x, span.end() - x});
  return out;
}

double spread(const data::CostModel& model, const std::vector<data::Range>& ranges) {
  const std::vector<double> costs = predicted_costs(model, ranges);
  const auto [lo, hi] = std::minmax_element(costs.begin(), costs.end());
  return *hi - *lo;
}

}  // namespace

std::vector<double> predicted_costs(const data::CostModel& model, const std::vector<data::Range>& ranges) {
  std::vector<double> costs;
  costs.reserve(ranges.size());
  for (const data::Range& r : ranges) costs.push_back(model.cost(r));
  return costs;
}

std::vector<data::Range> min_max_ranges(const data::CostModel& model, const data::Range& span, std::int64_t n,
                                        std::int64_t align) {
  double lo = 0;
  double hi = model.cost(span);
  std::vector<data::Range> best{span};
  for (int i = 0; i < kMaxBisections && hi - lo > kRelativeGap * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    if (auto ranges = greedy_ranges(model, span, n, align, mid)) {
      hi = mid;
      best = std::move(*ranges);
    } else {
      lo = mid;
    }
  }
  return best;
}

std::vector<data::Range> equal_cost_ranges(const data::CostModel& model, const data::Range& span, std::int64_t n,
                                           std::int64_t align) {
  double lo = 0;
  double hi = model.cost(span);
  std::optional<std::vector<data::Range>> below;  // remainder costs more than the target
  std::optional<std::vector<data::Range>> above;  // remainder costs at most the target
  for (int i = 0; i < kMaxBisections && hi - lo > kRelativeGap * hi; ++i) {
    const double mid = lo + (hi - lo) / 2;
    auto ranges = nearest_cost_ranges(model, span, n, align, mid);
    if (ranges && model.cost(ranges->back()) > mid) {
      lo = mid;
      below = std::move(ranges);
    } else {
      hi = mid;
      if (ranges) above = std::move(ranges);
    }
  }
  if (below && (!above || spread(model, *below) <= spread(model, *above))) return *below;
  if (above) return *above;
  return min_max_ranges(model, span, n, align);
}

}  // namespace millrace::partitioners
