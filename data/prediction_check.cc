#include "data/prediction_check.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace millrace::data {

namespace {

// Nearest-rank quantile of sorted values.
double nearest_rank(const std::vector<double>& sorted, double p) {
  const double rank = std::ceil(p * static_cast<double>(sorted.size()));
  const std::size_t index = rank < 1 ? 0 : static_cast<std::size_t>(rank) - 1;
  return sorted[std::min(index, sorted.size() - 1)];
}

}  // namespace

double PredictionCheck::makespan_error() const {
  if (!makespan_band || makespan_band->p50 <= 0) return 0;
  return static_cast<double>(makespan - makespan_band->p50) / static_cast<double>(makespan_band->p50);
}

bool PredictionCheck::makespan_inside() const {
  return makespan_band && makespan >= makespan_band->p10 && makespan <= makespan_band->p90;
}

PredictionCheck check_predictions(const std::vector<WorkItem>& items, const std::vector<Attempt>& attempts,
                                  const DurationNoise* noise, std::optional<MakespanBand> makespan_band,
                                  Micros makespan, std::size_t worst_count) {
  std::unordered_map<std::string, Micros> actual;
  for (const Attempt& attempt : attempts) {
    if (attempt.outcome == Outcome::kSucceeded) actual[attempt.item_id] = attempt.duration();
  }
  PredictionCheck check;
  check.makespan_band = makespan_band;
  check.makespan = makespan;
  const bool banded = noise != nullptr && !noise->empty();
  std::vector<double> ratios;
  std::vector<std::pair<const WorkItem*, double>> checked;  // and what each took
  double predicted_sum = 0;
  double actual_sum = 0;
  for (const WorkItem& item : items) {
    const auto found = actual.find(item.id);
    if (item.predicted <= 0 || found == actual.end()) continue;
    const double predicted = static_cast<double>(item.predicted);
    const double took = static_cast<double>(found->second);
    ratios.push_back(took / predicted);
    checked.emplace_back(&item, took);
    check.worst.push_back({item.id, item.predicted, found->second, took / predicted});
    predicted_sum += predicted;
    actual_sum += took;
  }
  check.items = ratios.size();
  if (ratios.empty()) return check;
  check.total_ratio = actual_sum / predicted_sum;
  if (banded) {
    // With the run-to-run spread learnt, each range's noise is within its run: the run's own level
    // is taken out before a range is set against its band.
    check.relative_to_run = noise->runs().identified();
    const double level = check.relative_to_run ? check.total_ratio : 1;
    std::size_t inside = 0;
    for (const auto& [item_of, took] : checked) {
      const WorkItem& item = *item_of;
      const std::int64_t first = item.range ? item.range->first : 0;
      const std::int64_t units = item.range ? item.range->count : 0;
      const double predicted = static_cast<double>(item.predicted) * level;
      inside += took >= predicted * noise->factor(first, units, 0.1) && took <= predicted * noise->factor(first, units, 0.9);
    }
    check.inside_band = inside;
  }
  std::sort(ratios.begin(), ratios.end());
  check.ratio_p10 = nearest_rank(ratios, 0.1);
  check.ratio_p50 = nearest_rank(ratios, 0.5);
  check.ratio_p90 = nearest_rank(ratios, 0.9);
  const auto miss = [](const ItemMiss& m) { return std::abs(std::log(std::max(m.ratio, 1e-12))); };
  std::stable_sort(check.worst.begin(), check.worst.end(),
                   [&](const ItemMiss& a, const ItemMiss& b) { return miss(a) > miss(b); });
  if (check.worst.size() > worst_count) check.worst.resize(worst_count);
  return check;
}

}  // namespace millrace::data
