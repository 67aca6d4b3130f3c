#include "partitioners/uniform.h"

#include "data/error.h"
#include "partitioners/cuts.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {

Partition UniformPartitioner::partition(const PartitionParams& params) const {
  check_common_params(params, name());
  if (params.range_length > 0) {
    if (params.range_length % params.align != 0) {
      throw data::Error(name(), "range length " + std::to_string(params.range_length) +
                                    " is not a multiple of the alignment " + std::to_string(params.align));
    }
    return partition_from_cuts(params.span, cuts_by_length_from_top(params.span, params.range_length, params.align),
                               params.overlap);
  }
  if (params.ranges < 1) throw data::Error(name(), "needs a range count or a range length");
  return partition_from_cuts(params.span, cuts_by_count(params.span, params.ranges, params.align, name()),
                             params.overlap);
}

}  // namespace millrace::partitioners
