// The options of the autoscale policy, one definition for every command that runs a policy
// (`simulate`, `compare`, `run`): --deadline (the wanted makespan, from the run's start),
// --min-workers and --scale-up-delay, durations read by the one duration parser into
// microseconds (scheduler::AutoscaleSettings, stored as deadline_us, min_workers,
// scale_up_delay_us).
#pragma once

#include <CLI/CLI.hpp>

#include "scheduler/concurrency_policy.h"

namespace millrace::cli {

void add_autoscale_options(CLI::App* cmd, scheduler::AutoscaleSettings& settings);

}  // namespace millrace::cli
