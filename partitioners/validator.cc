#include "partitioners/validator.h"

#include <utility>

#include "data/error.h"

namespace millrace::partitioners {

std::vector<data::Range> Partition::work_ranges() const {
  std::vector<data::Range> out = ranges;
  for (data::Range& r : out) {
    r.first -= overlap;
    r.count += overlap;
  }
  return out;
}

void keep_better(Candidate& best, Candidate next) {
  if (next.score < best.score) best = std::move(next);
}

Partition best_candidate(std::vector<Candidate> candidates) {
  for (std::size_t i = 1; i < candidates.size(); ++i) keep_better(candidates[0], std::move(candidates[i]));
  return std::move(candidates[0].partition);
}

RangeCountBound Partitioner::most_ranges(const PartitionParams& params) const {
  if (params.ranges > 0) return {static_cast<double>(params.ranges), "ranges", params.ranges};
  return {static_cast<double>(params.workers), "workers", params.workers};
}

void check_common_params(const PartitionParams& params, const std::string& who) {
  if (params.span.count <= 0) throw data::Error(who, "the span is empty");
  if (params.align < 1) throw data::Error(who, "alignment must be at least 1 (got " + std::to_string(params.align) + ")");
  if (params.overlap < 0) throw data::Error(who, "overlap must not be negative (got " + std::to_string(params.overlap) + ")");
  if (params.ranges < 0) throw data::Error(who, "range count must not be negative");
  if (params.ranges > params.span.count) {
    throw data::Error(who, "span of " + std::to_string(params.span.count) + " units is smaller than the range count " +
                               std::to_string(params.ranges));
  }
}

void validate(const Partition& partition, const PartitionParams& params, const std::string& who) {
  if (partition.ranges.empty()) throw data::Error(who, "produced no ranges");
  if (partition.overlap != params.overlap) throw data::Error(who, "overlap differs from the one asked for");
  std::int64_t expected = params.span.first;
  for (std::size_t i = 0; i < partition.ranges.size(); ++i) {
    const data::Range& r = partition.ranges[i];
    const std::string where = "range " + std::to_string(i) + " (" + r.end_count() + ")";
    if (r.count <= 0) throw data::Error(who, where + " is empty");
    if (r.first != expected) {
      throw data::Error(who, where + " starts at " + std::to_string(r.first) + ", expected " + std::to_string(expected) +
                                 " (ranges must be sorted and contiguous)");
    }
    if (i > 0 && r.first % params.align != 0) {
      throw data::Error(who, where + " starts at a cut not aligned to " + std::to_string(params.align));
    }
    expected = r.end();
  }
  if (expected != params.span.end()) {
    throw data::Error(who, "ranges end at " + std::to_string(expected) + " but the span ends at " +
                               std::to_string(params.span.end()));
  }
}

}  // namespace millrace::partitioners
