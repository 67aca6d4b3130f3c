// The one checker every partition passes: ranges sorted, contiguous, covering the span
// exactly, none empty, and every cut between two ranges on a multiple of the alignment.
// Also the parameter checks shared by the generators.
#pragma once

#include <string>

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

// Throws data::Error naming `who` and the first offending range.
void validate(const Partition& partition, const PartitionParams& params, const std::string& who);

// Throws data::Error naming `who` for an empty span, alignment < 1 or negative overlap.
void check_common_params(const PartitionParams& params, const std::string& who);

}  // namespace millrace::partitioners
