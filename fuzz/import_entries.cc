// The importers' fuzz entry points (entry_points.h).
#include <algorithm>
#include <cmath>

#include "data/cost_model.h"
#include "data/error.h"
#include "data/importers/ethereum_importer.h"
#include "data/importers/importers.h"
#include "data/run_summary.h"
#include "fuzz/entry_points.h"

namespace millrace::fuzz {

namespace {

void check_trace(const data::importers::Trace& trace) {
  for (const data::WorkItem& item : trace.items) {
    if (!item.range) continue;
    if (item.range->count <= 0) throw ContractViolation("item " + item.id + " accepted with an empty range");
    (void)item.range->end();  // UBSan: the end must fit
  }
  for (const data::Attempt& attempt : trace.attempts) {
    if (attempt.end < attempt.start) {
      throw ContractViolation("attempt of " + attempt.item_id + " accepted ending before it starts");
    }
  }
  (void)data::summarize(trace.items, trace.attempts);
}

void import_one_file(const std::string& format, std::string_view input, const InputFolder& folder) {
  check_trace(*data::importers::parse_input(format, folder.write("input", input)).trace);
}

}  // namespace

void import_csv(std::string_view input, const InputFolder& folder) { import_one_file("csv", input, folder); }
void import_json(std::string_view input, const InputFolder& folder) { import_one_file("json", input, folder); }
void import_swf(std::string_view input, const InputFolder& folder) { import_one_file("swf", input, folder); }
void import_stellar_log(std::string_view input, const InputFolder& folder) {
  import_one_file("stellar-log", input, folder);
}
void import_stellar_csv(std::string_view input, const InputFolder& folder) {
  import_one_file("stellar-csv", input, folder);
}
void import_stellar_metrics(std::string_view input, const InputFolder& folder) {
  import_one_file("stellar-metrics", input, folder);
}
void import_stellar_status(std::string_view input, const InputFolder& folder) {
  import_one_file("stellar-status", input, folder);
}

void import_profile(std::string_view input, const InputFolder& folder) {
  const data::CostProfile profile = *data::importers::parse_input("profile", folder.write("input", input)).profile;
  if (profile.bins.empty()) throw ContractViolation("a profile accepted with no rows");
  for (std::size_t i = 0; i < profile.bins.size(); ++i) {
    const data::ProfileBin& bin = profile.bins[i];
    if (bin.range.count <= 0) throw ContractViolation("a profile bin accepted with an empty range");
    (void)bin.range.end();  // UBSan: the end must fit
    if (!std::isfinite(bin.micros_per_unit) || bin.micros_per_unit < 0) {
      throw ContractViolation("a profile bin accepted with cost " + std::to_string(bin.micros_per_unit));
    }
    if (i > 0 && bin.range.first != profile.bins[i - 1].range.end()) {
      throw ContractViolation("profile bins accepted that are not contiguous");
    }
  }
  (void)data::CostModel::from_profile(profile, 0);  // may refuse (data::Error), never crash
}

void import_ethereum(std::string_view input, const InputFolder& folder) {
  const std::size_t split = std::min(input.find('\0'), input.size());
  const std::string_view series = input.substr(std::min(split + 1, input.size()));
  folder.write("export-BlockCountRewards.csv", input.substr(0, split));
  folder.write("export-BlockSize.csv", series);
  folder.write("export-GasUsed.csv", series);
  auto read_series = [&](data::importers::EthereumSeries series) {
    const data::CostProfile profile = data::importers::read_ethereum_profile(folder.path(), series);
    try {
      (void)data::CostModel::from_profile(profile, 0);
    } catch (const data::Error& e) {
      throw ContractViolation(std::string("an imported profile is not a valid cost model: ") + e.what());
    }
  };
  run_all({[&] { read_series(data::importers::EthereumSeries::kBlockSize); },
           [&] { read_series(data::importers::EthereumSeries::kGasUsed); }});
}

}  // namespace millrace::fuzz
