#include "partitioners/logarithmic.h"

#include <algorithm>

#include "data/error.h"
#include "partitioners/cuts.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {

Partition LogarithmicPartitioner::partition(const PartitionParams& params) const {
  check_common_params(params, name());
  if (params.workers < 1) throw data::Error(name(), "needs the parallelism P (workers >= 1)");
  if (params.floor < 1) throw data::Error(name(), "needs a floor (smallest range length >= 1)");
  const std::int64_t floor = align_up(params.floor, params.align);
  const data::Range& span = params.span;
  std::vector<std::int64_t> cuts;
  std::int64_t start = span.first;
  for (std::int64_t chunk = span.count / 2 / params.workers; chunk > floor; chunk /= 2) {
    const std::int64_t end = std::min(span.end(), align_down(start + chunk * params.workers, params.align));
    if (end <= start) break;
    const std::vector<std::int64_t> inner = cuts_by_count({start, end - start}, params.workers, params.align, name());
    cuts.insert(cuts.end(), inner.begin(), inner.end());
    if (end == span.end()) return partition_from_cuts(span, cuts, params.overlap);
    cuts.push_back(end);
    start = end;
  }
  const std::vector<std::int64_t> rest = cuts_by_length_from_top({start, span.end() - start}, floor, params.align);
  cuts.insert(cuts.end(), rest.begin(), rest.end());
  return partition_from_cuts(span, cuts, params.overlap);
}

}  // namespace millrace::partitioners
