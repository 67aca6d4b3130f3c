// The entry points the fuzz targets drive (fuzz/README.md), shared with the regression test of
// the inputs fuzzing found (tests/fuzz_regressions_test.cc), so a kept input goes through
// exactly the code that crashed on it.
//
// The contract: for any input an entry point either returns (the input was accepted, and what
// it became passed the checks below) or throws data::Error, the clean refusal the CLI prints as
// "millrace: FILE:LINE: problem". Accepted data that breaks an invariant throws
// ContractViolation; anything else thrown, and any sanitizer report, is a bug as well.
#pragma once

#include <functional>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz/input_folder.h"

namespace millrace::fuzz {

class ContractViolation : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

using EntryPoint = void (*)(std::string_view input, const InputFolder& folder);

// Runs every call in turn, each also when an earlier one was refused with data::Error, then
// rethrows the first refusal: one input can go through several parsers.
void run_all(std::initializer_list<std::function<void()>> calls);

// The target names (fuzz_NAME executables, tests/fuzz_regressions/NAME folders).
std::vector<std::string> entry_point_names();
// Throws std::invalid_argument for an unknown name.
EntryPoint entry_point(const std::string& name);

// Importers (import_entries.cc): `input` is one file of the format, read through parse_input as
// `millrace import` reads it; an accepted trace has non-empty ranges whose end fits, no attempt
// ending before it starts, and a run summary (`millrace show`) computed without overflow.
void import_csv(std::string_view input, const InputFolder& folder);
void import_json(std::string_view input, const InputFolder& folder);
void import_swf(std::string_view input, const InputFolder& folder);
void import_stellar_log(std::string_view input, const InputFolder& folder);
void import_stellar_csv(std::string_view input, const InputFolder& folder);
void import_stellar_metrics(std::string_view input, const InputFolder& folder);
void import_stellar_status(std::string_view input, const InputFolder& folder);
// A cost profile (CSV or JSON rows, `import --format profile`); an accepted profile has
// contiguous non-empty bins of finite, non-negative cost, and a cost model made of it is
// either valid or refused with data::Error.
void import_profile(std::string_view input, const InputFolder& folder);
// The ethereum folder: export-BlockCountRewards.csv up to the first NUL byte, then the series
// file, read as both series; an accepted profile makes a valid cost model.
void import_ethereum(std::string_view input, const InputFolder& folder);

// Ranges (range_entries.cc). range_text: the text as END/COUNT (parse_end_count) and as
// FIRST:LAST (--span); an accepted range is non-empty, its end fits and its END/COUNT form
// parses back to it. preset_span: the first 32 bytes (zero-padded) as four little-endian
// int64 tip, start, range length and checkpoint alignment given to tip_down_span and
// ends_checkpoint; an accepted span ends at the tip, covers whole ranges and reaches the start.
void range_text(std::string_view input, const InputFolder& folder);
// ranges_file: a ranges file (END/COUNT, CSV or JSON) through read_ranges_file; an accepted file
// lists ranges longer than its overlap, each starting overlap units before the previous end,
// and its tiling covers its span contiguously.
void ranges_file(std::string_view input, const InputFolder& folder);
void preset_span(std::string_view input, const InputFolder& folder);

// Configuration and requests (config_entries.cc). cost_model_json: a model file through
// CostModel::load and load_cluster_model; an accepted cost model predicts over its whole span,
// and every delay an accepted cluster draws lies within the simulator's clock. kubeconfig: load_kubeconfig
// with its current context. job_template: JobTemplate::parse, then render for a range item and
// a payload item and render_pool. lease_request: a body as a lease request and as a completion
// report; an accepted completion has a non-negative work time.
void cost_model_json(std::string_view input, const InputFolder& folder);
void kubeconfig(std::string_view input, const InputFolder& folder);
void job_template(std::string_view input, const InputFolder& folder);
void lease_request(std::string_view input, const InputFolder& folder);
// sweep_shard: a body as a shard's completion (its results read as the replica results of a
// sweep, sim/replica_result.h) and as a shard's lease payload (sim/sweep_shards.h); accepted
// results and payloads read back as they are written again.
void sweep_shard(std::string_view input, const InputFolder& folder);

}  // namespace millrace::fuzz
