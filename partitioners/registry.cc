#include "partitioners/registry.h"

#include <memory>
#include <utility>

#include "data/registry.h"
#include "partitioners/cost_balanced.h"
#include "partitioners/logarithmic.h"
#include "partitioners/optimal.h"
#include "partitioners/uniform.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {

namespace {

using PartitionerRegistry = data::Registry<std::unique_ptr<Partitioner>>;

void add(PartitionerRegistry& registry, std::unique_ptr<Partitioner> partitioner) {
  std::string name = partitioner->name();
  registry.add(std::move(name), std::move(partitioner));
}

// Every generator, in the order help texts list them.
PartitionerRegistry make_registry() {
  PartitionerRegistry all("partitioner");
  add(all, std::make_unique<UniformPartitioner>());
  add(all, std::make_unique<LogarithmicPartitioner>());
  add(all, std::make_unique<CostBalancedPartitioner>());
  add(all, std::make_unique<OptimalPartitioner>());
  return all;
}

const PartitionerRegistry& registry() {
  static const PartitionerRegistry all = make_registry();
  return all;
}

}  // namespace

std::vector<std::string> partitioner_names() { return registry().names(); }

std::string partitioner_list(const std::string& separator) { return registry().known(separator); }

const Partitioner& find_partitioner(const std::string& name, const std::string& input) {
  return *registry().find(name, input);
}

PartitionParams with_defaults(const std::string& name, PartitionParams params, const std::string& input) {
  find_partitioner(name, input).fill_defaults(params);
  return params;
}

Partition make_partition(const std::string& name, const PartitionParams& params) {
  const Partitioner& partitioner = find_partitioner(name);
  Partition partition = partitioner.partition(params);
  validate(partition, params, partitioner.name());
  return partition;
}

Partition chosen_partition(const std::string& name, const PartitionParams& params, std::vector<Candidate> candidates) {
  Partition partition = best_candidate(std::move(candidates));
  validate(partition, params, find_partitioner(name).name());
  return partition;
}

}  // namespace millrace::partitioners
