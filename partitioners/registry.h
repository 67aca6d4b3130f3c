// The partitioners by name (data/registry.h), so a config or the CLI can pick one.
// make_partition runs the named generator and passes its output through the shared validator;
// with_defaults fills what a caller giving only span and workers left open, each generator with
// its own defaults (Partitioner::fill_defaults). A new generator is a file of its own and one
// line in registry.cc.
#pragma once

#include <string>
#include <vector>

#include "partitioners/partitioner.h"

namespace millrace::partitioners {

std::vector<std::string> partitioner_names();
// "uniform, logarithmic, ..." (or joined by `separator`), for help texts.
std::string partitioner_list(const std::string& separator = ", ");
// Throws data::Error naming `input` (the option that gave the name) and the name, listing the
// known ones.
const Partitioner& find_partitioner(const std::string& name, const std::string& input = "--partitioner");
// `params` with the named generator's defaults for `params.workers` (> 0) filled in; an unknown
// name is refused like find_partitioner.
PartitionParams with_defaults(const std::string& name, PartitionParams params,
                              const std::string& input = "--partitioner");
Partition make_partition(const std::string& name, const PartitionParams& params);
// make_partition's result from the generator's candidates built apart (Partitioner::candidates),
// validated the same way: the first lowest scoring of `candidates`, which are all of them in
// order, or those still in the running in order (a comparison passes only the best so far, having
// freed each loser as it was known: sim/comparison.cc).
Partition chosen_partition(const std::string& name, const PartitionParams& params, std::vector<Candidate> candidates);

}  // namespace millrace::partitioners
