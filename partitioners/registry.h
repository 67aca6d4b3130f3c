// The partitioners by name, so a config or the CLI can pick one. make_partition runs the
// named generator and passes its output through the shared validator.
#pragma once

#include <string>
#include <vector>

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

std::vector<std::string> partitioner_names();
// Throws data::Error naming the requested name and listing the known ones.
const Partitioner& find_partitioner(const std::string& name);
Partition make_partition(const std::string& name, const PartitionParams& params);

}  // namespace millrace::partitioners
