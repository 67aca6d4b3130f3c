// A plan with its work graph, built once (which validates the plan: unique ids, known and acyclic
// dependencies) and then only read. Runs of the same plan share one: the replicas of a comparison
// simulate it without copying the items or building the graph again.
//
// The plan is kept in columns, not as data::WorkItems (216 bytes each): a range item whose id is
// its range's END/COUNT form (data::Range::end_count, as simulations, comparisons and importers
// name them) costs its range, and its prediction and submit time only when some item has one.
// Items with anything else (another id, no range, a payload, a type, dependencies, a priority)
// are kept whole beside the columns; resource requests are kept once per distinct set. item(i)
// builds the data::WorkItem back for the callers that need one (real clusters, errors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "data/records.h"
#include "scheduler/work_graph.h"

namespace millrace::scheduler {

class PlannedWork {
 public:
  // The type of a plain item: data::WorkItem's default.
  static inline const std::string kPlainType = data::WorkItem{}.type;

  // Throws data::Error naming `plan_name` and the problem (a duplicate id, an unknown or cyclic
  // dependency), as WorkGraph does.
  PlannedWork(const std::vector<data::WorkItem>& plan, const std::string& plan_name);
  // Range items named by their END/COUNT form: `predicted` is empty or one per range, `requests`
  // the first items' requests (the rest ask for nothing). A range given twice is refused as a
  // duplicate id.
  PlannedWork(std::vector<data::Range> ranges, std::vector<data::Micros> predicted,
              const std::vector<data::Quantities>& requests, const std::string& plan_name);
  PlannedWork(const PlannedWork&) = delete;
  PlannedWork& operator=(const PlannedWork&) = delete;

  std::size_t size() const { return ranges_.size(); }
  // The item at plan position i, whole.
  data::WorkItem item(std::size_t i) const;
  std::vector<data::WorkItem> items() const;

  std::string id(std::size_t i) const { return plain(i) ? ranges_[i].end_count() : whole(i).id; }
  // Null for an item without a range.
  const data::Range* range(std::size_t i) const {
    return plain(i) || whole(i).range ? &ranges_[i] : nullptr;
  }
  const std::string& type(std::size_t i) const { return plain(i) ? kPlainType : whole(i).type; }
  const data::Quantities& requests(std::size_t i) const {
    return request_sets_[request_set_.empty() ? 0 : request_set_[i]];
  }
  // The distinct non-empty request sets the items ask for, each once, numbered 0.. in the order
  // of the first item asking for it: checks of what items ask walk these sets, not the items, and
  // name first_asking(k), whose requests are set k.
  std::size_t asked_set_count() const { return first_asking_.size(); }
  std::size_t first_asking(std::size_t k) const { return first_asking_[k]; }
  int priority(std::size_t i) const { return plain(i) ? 0 : whole(i).priority; }
  data::Micros predicted(std::size_t i) const { return predicted_.empty() ? 0 : predicted_[i]; }
  data::Micros submit_at(std::size_t i) const { return submit_at_.empty() ? 0 : submit_at_[i]; }
  // Whether every item is a plain range item (its id derived from its range).
  bool all_plain() const { return whole_of_.empty(); }
  // The whole item kept for a non-plain one, for its payload and dependencies; plain(i) is false.
  const data::WorkItem& whole(std::size_t i) const { return wholes_[whole_of_[i]]; }
  bool plain(std::size_t i) const { return whole_of_.empty() || whole_of_[i] == kPlain; }

  const WorkGraph& graph() const { return graph_; }

 private:
  static constexpr std::uint32_t kPlain = UINT32_MAX;

  using RequestIndex = std::map<data::Quantities, std::uint32_t>;  // a request set's index in request_sets_
  void add_requests(std::size_t i, std::size_t count, const data::Quantities& requests, RequestIndex& known);

  std::vector<data::Range> ranges_;          // {0, 0} for an item without a range
  std::vector<data::Micros> predicted_;      // empty when no item has a prediction
  std::vector<data::Micros> submit_at_;      // empty when no item has a submit time
  std::vector<std::uint32_t> whole_of_;      // empty when every item is plain; else index into wholes_
  std::vector<data::WorkItem> wholes_;       // the non-plain items (their predictions and submit times in the columns)
  std::vector<std::uint32_t> request_set_;   // empty when no item asks for anything; else index into request_sets_
  std::vector<data::Quantities> request_sets_{{}};  // distinct request sets, the first the empty one
  std::vector<std::size_t> first_asking_;    // the first item asking for request_sets_[k + 1]
  WorkGraph graph_;
};

}  // namespace millrace::scheduler
