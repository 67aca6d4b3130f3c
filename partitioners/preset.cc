#include "partitioners/preset.h"

#include <limits>

#include "data/error.h"

namespace millrace::partitioners {

namespace {

const std::vector<Preset>& presets() {
  static const std::vector<Preset> all = {
      {"stellar-pubnet",
       "stellar pubnet parallel catch-up: ledgers, 16000 per range + 320 overlap, checkpoints of 64, "
       "192 workers, fixed pool, tip first",
       "ledgers", "uniform", 16'000, 320, 64, 64'000, 192, "fixed-pool", "tip-first"},
  };
  return all;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  return names;
}

const Preset& find_preset(const std::string& name) {
  std::string known;
  for (const Preset& p : presets()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw data::Error("preset " + name, "unknown preset (known: " + known + ")");
}

data::Range tip_down_span(std::int64_t tip, std::int64_t start, std::int64_t range_length) {
  if (range_length < 1) throw data::Error("range length " + std::to_string(range_length), "must be >= 1");
  if (tip <= start) {
    throw data::Error("tip " + std::to_string(tip), "must be above the start ledger " + std::to_string(start));
  }
  // Ranges [first, tip] of whole lengths, and their exclusive end tip + 1, in 64-bit unit numbers.
  std::int64_t distance = 0, covered = 0, first = 0;
  if (tip == std::numeric_limits<std::int64_t>::max() || __builtin_sub_overflow(tip, start, &distance) ||
      __builtin_mul_overflow(distance / range_length + (distance % range_length != 0), range_length, &covered) ||
      __builtin_sub_overflow(tip, covered - 1, &first)) {
    throw data::Error("tip " + std::to_string(tip), "the ranges of " + std::to_string(range_length) +
                                                        " down to the start ledger " + std::to_string(start) +
                                                        " do not fit in 64-bit unit numbers");
  }
  return {first, covered};
}

bool ends_checkpoint(std::int64_t last, std::int64_t align) {
  if (align < 1) throw data::Error("checkpoint alignment " + std::to_string(align), "must be >= 1");
  const std::int64_t rest = last % align;  // last + 1 is a multiple of align, without computing last + 1
  return rest == align - 1 || rest == -1;
}

}  // namespace millrace::partitioners
