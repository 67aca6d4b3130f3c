// Partitioners: generators that cut a span of units into ordered, contiguous ranges for
// parallel work. Each generator lives in its own file and is registered by name
// (partitioners/registry.h) so a config or the CLI can pick one; every output is checked by
// the one shared validator (partitioners/validator.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "data/cost_model.h"
#include "data/records.h"

namespace millrace::partitioners {

// What a generator is asked for. Generators read the fields they need and reject missing ones.
struct PartitionParams {
  data::Range span;                          // the units to cover
  const data::CostModel* model = nullptr;    // cost-balanced and optimal need one
  std::int64_t ranges = 0;                   // requested range count (0: the generator chooses)
  std::int64_t range_length = 0;             // uniform: units per range, cut from the top down
  int workers = 0;                           // logarithmic's parallelism; optimal's worker count
  std::int64_t overlap = 0;                  // units each range also replays before its first
  std::int64_t align = 1;                    // cuts between ranges fall on multiples of this
  std::int64_t floor = 0;                    // logarithmic: smallest range length
};

// The most ranges a generator may cut for some parameters and the parameter that decides it, so
// that a caller can refuse a request too big for memory before anything is allocated.
struct RangeCountBound {
  double ranges = 0;
  std::string decided_by;  // the PartitionParams field: "ranges", "range_length", "floor" or "workers"
  std::int64_t value = 0;  // its value
};

// Ranges in ascending order that tile the span exactly; `overlap` extends each one backwards
// when the work is handed out (verification replay), without changing the tiling.
struct Partition {
  std::vector<data::Range> ranges;
  std::int64_t overlap = 0;

  // The ranges as workers run them: each starts `overlap` units earlier.
  std::vector<data::Range> work_ranges() const;
};

// One of the partitions a generator chooses between, with its score: the lowest wins, ties going
// to the first.
struct Candidate {
  Partition partition;
  double score = 0;
};

// Keeps in `best` the better of it and `next`, a later candidate: `next` only when it scores lower.
void keep_better(Candidate& best, Candidate next);
// The first candidate with the lowest score; `candidates` is not empty.
Partition best_candidate(std::vector<Candidate> candidates);

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // Throws data::Error naming the partitioner for bad parameters.
  virtual Partition partition(const PartitionParams& params) const = 0;
  // A generator choosing the best of several candidate partitions (optimal) builds them one at a
  // time, so that a caller with threads can build them at once: candidates() says how many (never
  // throwing: for parameters it refuses, candidate(i) throws why), candidate(i) builds the i-th, and
  // partition() is best_candidate() of them all. The others have one candidate, their partition.
  virtual std::size_t candidates(const PartitionParams& /*params*/) const { return 1; }
  virtual Candidate candidate(const PartitionParams& params, std::size_t /*i*/) const { return {partition(params), 0}; }
  // The generator's own defaults, for callers that give a span and a worker count and leave the
  // rest open (compare, plan): fills the parameters left at 0 from span and workers (> 0). A
  // generator with nothing to default keeps this.
  virtual void fill_defaults(PartitionParams& /*params*/) const {}
  // At most how many ranges partition(params) cuts (before the span's own limit of one per
  // unit): this default is the range count, or one range per worker without one.
  virtual RangeCountBound most_ranges(const PartitionParams& params) const;
};

}  // namespace millrace::partitioners
