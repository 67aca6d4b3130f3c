#include "partitioners/preset.h"

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
  const std::int64_t n = (tip - start + range_length - 1) / range_length;
  return {tip - n * range_length + 1, n * range_length};
}

bool ends_checkpoint(std::int64_t last, std::int64_t align) { return (last + 1) % align == 0; }

}  // namespace millrace::partitioners
