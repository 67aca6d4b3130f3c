#include "cli/comparison_ranking.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "data/readable_duration.h"

namespace millrace::cli {

std::vector<std::vector<RankedRow>> rank_by_workers(const sim::Comparison& comparison) {
  std::vector<std::vector<RankedRow>> ranking;
  std::vector<int> counts;
  for (const sim::ComparisonRow& row : comparison.rows) {
    auto at = std::find(counts.begin(), counts.end(), row.workers);
    if (at == counts.end()) {
      counts.push_back(row.workers);
      ranking.emplace_back();
      at = counts.end() - 1;
    }
    ranking[static_cast<std::size_t>(at - counts.begin())].push_back({&row, 1, false});
  }
  for (std::vector<RankedRow>& rows : ranking) {
    std::stable_sort(rows.begin(), rows.end(), [](const RankedRow& a, const RankedRow& b) {
      return a.row->makespan_p50 < b.row->makespan_p50;
    });
    const sim::ComparisonRow& best = *rows.front().row;
    for (RankedRow& r : rows) {
      r.times_best = best.makespan_p50 > 0 ? static_cast<double>(r.row->makespan_p50) / static_cast<double>(best.makespan_p50) : 1;
      r.beyond_spread = r.row->makespan_p10 > best.makespan_p90;
    }
  }
  return ranking;
}

void mark_extrapolated(std::vector<std::vector<RankedRow>>& ranking, const sim::ComparisonSpec& spec) {
  if (spec.model == nullptr || spec.model->noise().lengths().empty()) return;
  const double recorded = static_cast<double>(spec.model->noise().lengths().front().units);
  for (std::vector<RankedRow>& rows : ranking) {
    for (RankedRow& r : rows) {
      if (r.row->partitioner == "recorded" || r.row->ranges == 0) continue;
      const double mean_length = static_cast<double>(spec.span.count) / static_cast<double>(r.row->ranges) +
                                 static_cast<double>(spec.partition.overlap);
      r.extrapolated = mean_length > kExtrapolatedLength * recorded &&
                       spec.model->noise().relative_spread(std::llround(mean_length)) > kUnnarrowedSpread;
    }
  }
}

std::string ranking_text(const std::vector<std::vector<RankedRow>>& ranking) {
  std::string text;
  bool extrapolated = false;
  for (const std::vector<RankedRow>& rows : ranking) {
    std::set<std::string> orders;
    for (const RankedRow& r : rows) orders.insert(r.row->order);
    const auto name = [&orders, &extrapolated](const RankedRow& ranked) {
      const sim::ComparisonRow& row = *ranked.row;
      extrapolated = extrapolated || ranked.extrapolated;
      return (orders.size() > 1 ? row.partitioner + "/" + row.order : row.partitioner) +
             (ranked.extrapolated ? " (extrapolated)" : "");
    };
    const sim::ComparisonRow& best = *rows.front().row;
    text += "on " + data::counted(best.workers, "worker") + ": " + name(rows.front()) + " fastest, " +
            data::readable_duration(best.makespan_p50);
    text += best.replicas <= 1                         ? std::string(" (1 replica: no spread)")
            : best.makespan_p10 == best.makespan_p90 ? " (every one of " + data::counted(best.replicas, "replica") + " alike)"
                                                     : " (p10-p90 " + data::readable_band(best.makespan_p10, best.makespan_p90) + ")";
    if (best.cost) text += ", cost " + sim::band_text(*best.cost, best.cost->p50);
    for (std::size_t i = 1; i < rows.size(); ++i) {
      char times[32];
      if (i > kRankedOthers) {
        std::snprintf(times, sizeof times, "%.2f", rows.back().times_best);
        text += ", and " + std::to_string(rows.size() - i) + " more, up to " + times + " times (the table below)";
        break;
      }
      std::snprintf(times, sizeof times, "%.2f", rows[i].times_best);
      text += (i == 1 ? "; then " : ", ") + name(rows[i]) + " " + times + (i == 1 ? " times the best" : " times");
      if (best.replicas > 1) {
        text += rows[i].beyond_spread ? (i == 1 ? " (beyond the replicas' spread)" : " (beyond it)")
                                      : (i == 1 ? " (within the replicas' spread)" : " (within it)");
      }
    }
    text += "\n";
  }
  if (extrapolated) {
    char times[16];
    std::snprintf(times, sizeof times, "%g", kExtrapolatedLength);
    text += std::string("(extrapolated: ranges more than ") + times +
            " times the recorded ones' length, for which the fit's noise did not narrow as it does over windows of "
            "recorded ranges: their drawn spread is carried from much shorter ranges; a fit at the recording's own "
            "resolution, without --bins, narrows it)\n";
  }
  return text;
}

}  // namespace millrace::cli
