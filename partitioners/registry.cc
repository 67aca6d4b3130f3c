#include "partitioners/registry.h"

#include <memory>

#include "data/error.h"
#include "partitioners/cost_balanced.h"
#include "partitioners/logarithmic.h"
#include "partitioners/optimal.h"
#include "partitioners/uniform.h"
#include "partitioners/validator.h"

namespace millrace::partitioners {

namespace {

std::vector<std::unique_ptr<Partitioner>> make_registry() {
  std::vector<std::unique_ptr<Partitioner>> all;
  all.push_back(std::make_unique<UniformPartitioner>());
  all.push_back(std::make_unique<LogarithmicPartitioner>());
  all.push_back(std::make_unique<CostBalancedPartitioner>());
  all.push_back(std::make_unique<OptimalPartitioner>());
  return all;
}

const std::vector<std::unique_ptr<Partitioner>>& registry() {
  static const std::vector<std::unique_ptr<Partitioner>> all = make_registry();
  return all;
}

}  // namespace

std::vector<std::string> partitioner_names() {
  std::vector<std::string> names;
  for (const auto& p : registry()) names.push_back(p->name());
  return names;
}

const Partitioner& find_partitioner(const std::string& name) {
  std::string known;
  for (const auto& p : registry()) {
    if (p->name() == name) return *p;
    known += (known.empty() ? "" : ", ") + p->name();
  }
  throw data::Error("partitioner '" + name + "'", "unknown (known: " + known + ")");
}

Partition make_partition(const std::string& name, const PartitionParams& params) {
  const Partitioner& partitioner = find_partitioner(name);
  Partition partition = partitioner.partition(params);
  validate(partition, params, partitioner.name());
  return partition;
}

}  // namespace millrace::partitioners
