// The events of a simulation: one small plain struct for everything (timers of the scheduler's
// clock, steps of simulated attempts, node losses and interruptions), so the engine stores them inline.
#pragma once

#include <cstdint>

#include "sim/engine.h"

namespace millrace::sim {

struct SimEvent {
  enum class Kind : std::uint8_t {
    kTimer,      // a VirtualClock timer: index = timer slot, value = its generation
    kPlace,      // a pod was created for attempt `value`: find it a slot
    kStart,      // attempt `value` starts running (its pod is up)
    kFinish,     // attempt `value` ends: index 1 when it fails
    kFreeSlot,   // slot `index` is free again (its pod was deleted)
    kNodeLoss,   // node `index` is lost
    kFreeNode,   // pool node `index` gets back the requests of pod shape `value` (its pod was deleted):
                 // the low 32 bits of `value`, the node's incarnation the high ones
    kNodeUp,     // ordered pool node `index` is up
    kNodeIdle,   // pool node `index` may go if still empty since generation `value`
    kPoolIdle,   // pool `index`'s nodes up since the start that never held a pod may go
    kNodeInterrupted,  // spot node `index` is taken back if still in incarnation `value`
  };
  Kind kind = Kind::kTimer;
  std::uint32_t index = 0;
  std::uint64_t value = 0;
};

using SimEngine = Engine<SimEvent>;

}  // namespace millrace::sim
