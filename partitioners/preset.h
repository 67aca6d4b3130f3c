// Presets: an existing deployment's settings under one name, so that `--preset stellar-pubnet`
// plans, simulates and pushes exactly what that deployment runs today.
//
// stellar-pubnet (stellar/supercluster's parallel catch-up): units = ledgers, 16,000 ledgers
// per range plus 320 ledgers (5 checkpoints of 64) of overlap, 192 workers in a fixed pool,
// ranges taken tip first. Their uniform generator writes END/COUNT items from the tip down:
// END = tip, tip - 16000, tip - 32000, ... while END > start, each COUNT = 16000 + 320. So the
// lowest range always has the full length and may reach below the start ledger (in the 2024-11
// recording the lowest item is 6463/16320, first ledger -9856). The recording pins the rule:
// every END there is congruent to the tip (54,326,463) modulo 16,000, and END + 1 is a multiple
// of 64 (each END is a checkpoint's last ledger) because the tip is one and 16,000 = 250 * 64.
// tip_down_span reproduces that tiling: the uniform partitioner cut from the top of it gives
// their list byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "data/records.h"

namespace millrace::partitioners {

struct Preset {
  std::string name;
  std::string description;
  std::string units;
  std::string partitioner;        // default generator
  std::int64_t range_length = 0;  // units per range (before overlap)
  std::int64_t overlap = 0;
  std::int64_t align = 1;         // checkpoint stride
  std::int64_t floor = 0;         // logarithmic floor
  int workers = 0;
  std::string policy;             // concurrency policy name (scheduler/concurrency_policy.h)
  std::string order;              // queue order: tip-first, lpt, ...
};

std::vector<std::string> preset_names();
// Throws data::Error naming the requested preset and listing the known ones.
const Preset& find_preset(const std::string& name);

// The span a tip-down generator covers: [tip - n * length + 1, tip] with n the number of ENDs
// tip, tip - length, ... above `start`. Throws data::Error when tip <= start, length < 1, or
// the span or its end (tip + 1) does not fit in 64 bits.
data::Range tip_down_span(std::int64_t tip, std::int64_t start, std::int64_t range_length);

// True when `last` is the last ledger of an aligned checkpoint (last + 1 is a multiple of align).
// Throws data::Error when align < 1.
bool ends_checkpoint(std::int64_t last, std::int64_t align);

}  // namespace millrace::partitioners
