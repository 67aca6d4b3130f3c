#include "cli/autoscale_options.h"

#include <algorithm>

#include "cli/option_checks.h"

namespace millrace::cli {

void add_autoscale_options(CLI::App* cmd, AutoscaleOptions& o) {
  cmd->add_option("--min-workers", o.min_workers, "autoscale: fewest workers")
      ->capture_default_str()
      ->transform(whole_number(0));
  cmd->add_option("--deadline", o.deadline, "autoscale: wanted makespan, from the run's start (e.g. 48h)")
      ->transform(micros());
  cmd->add_option("--scale-up-delay", o.scale_up_delay, "autoscale: time for new workers to arrive")
      ->transform(micros());
}

scheduler::PolicyParams policy_params(int workers, const AutoscaleOptions& o) {
  scheduler::PolicyParams params;
  params.workers = workers;
  params.max_in_flight = workers;
  params.min_workers = std::min(o.min_workers, workers);
  params.deadline = o.deadline;
  params.scale_up_delay = o.scale_up_delay;
  return params;
}

nlohmann::json to_json(const AutoscaleOptions& o) {
  return {{"min_workers", o.min_workers}, {"deadline_us", o.deadline}, {"scale_up_delay_us", o.scale_up_delay}};
}

AutoscaleOptions autoscale_options_from(const nlohmann::json& parameters) {
  AutoscaleOptions o;
  o.min_workers = parameters.value("min_workers", o.min_workers);
  o.deadline = parameters.value("deadline_us", o.deadline);
  o.scale_up_delay = parameters.value("scale_up_delay_us", o.scale_up_delay);
  return o;
}

}  // namespace millrace::cli
