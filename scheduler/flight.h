// An attempt in flight as the scheduler core and its cluster both keep it: one record per attempt,
// in one table found by handle (scheduler/flight_table.h), from the scheduler's submission until
// the attempt's end is reported. The scheduler's part says what runs and since when; the
// cluster's part is room for what a cluster keeps of the attempt (the simulated cluster's phase,
// slot and pending event), so that a cluster sharing the table (Cluster::share_flights) keeps no
// second table of the same attempts under the same handles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <optional>
#include <type_traits>
#include <utility>

#include "data/records.h"
#include "data/run_summary.h"
#include "scheduler/cluster.h"
#include "scheduler/flight_table.h"

namespace millrace::scheduler {

// A cluster's own state of one attempt, of a trivially copyable type of at most 40 bytes: made
// by emplace() when the attempt is submitted, read by as() until its end is reported.
class ClusterRoom {
 public:
  template <typename State, typename... Args>
  State& emplace(Args&&... args) {
    check<State>();
    return *::new (static_cast<void*>(bytes_)) State{std::forward<Args>(args)...};
  }
  template <typename State>
  State& as() {
    check<State>();
    return *std::launder(reinterpret_cast<State*>(bytes_));
  }
  template <typename State>
  const State& as() const {
    check<State>();
    return *std::launder(reinterpret_cast<const State*>(bytes_));
  }

 private:
  template <typename State>
  static constexpr void check() {
    static_assert(std::is_trivially_copyable_v<State> && sizeof(State) <= kBytes && alignof(State) <= 8,
                  "a cluster's state of an attempt is a small trivially copyable struct");
  }
  static constexpr std::size_t kBytes = 40;
  alignas(8) std::byte bytes_[kBytes] = {};
};

// The scheduler core's part of the record.
struct CoreFlight {
  std::uint32_t item = 0;              // its position in the plan
  int lane = kNoLane;                  // the pool lane it runs on
  int attempt = 1;                     // 1-based attempt number of the item
  std::uint32_t worker = data::AttemptSpan::kNoWorker;  // the scheduler's worker record: submitted-to, then started-on
  data::Micros submitted = 0;
  std::optional<data::Micros> started;
};

struct Flight : CoreFlight {
  ClusterRoom cluster;                 // the cluster's, when it shares the table
};

using Flights = FlightTable<Flight>;

}  // namespace millrace::scheduler
