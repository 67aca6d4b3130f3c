// The options of the autoscale policy, one definition for every command that runs a policy
// (`simulate`, `compare`, `run`): --deadline (the wanted makespan, from the run's start),
// --min-workers and --scale-up-delay, durations read by the one duration parser and kept in
// microseconds, stored under the same keys (deadline_us, min_workers, scale_up_delay_us).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "data/time.h"
#include "scheduler/concurrency_policy.h"

namespace millrace::cli {

struct AutoscaleOptions {
  int min_workers = 1;
  data::Micros deadline = 0;
  data::Micros scale_up_delay = 0;
};

void add_autoscale_options(CLI::App* cmd, AutoscaleOptions& options);

// The parameters of `workers` workers (a pool's size, job-per-item's K, autoscale's maximum).
scheduler::PolicyParams policy_params(int workers, const AutoscaleOptions& options);

// {"min_workers", "deadline_us", "scale_up_delay_us"}, and back (a key missing: its default).
nlohmann::json to_json(const AutoscaleOptions& options);
AutoscaleOptions autoscale_options_from(const nlohmann::json& parameters);

}  // namespace millrace::cli
