#include "cli/autoscale_options.h"

#include "cli/help_layout.h"
#include "cli/option_checks.h"

namespace millrace::cli {

void add_autoscale_options(CLI::App* cmd, scheduler::AutoscaleSettings& o) {
  cmd->add_option("--min-workers", o.min_workers, "autoscale: fewest workers")
      ->capture_default_str()
      ->transform(whole_number(0));
  cmd->add_option("--deadline", o.deadline, "autoscale: wanted makespan, from the run's start (e.g. 48h)")
      ->transform(micros());
  cmd->add_option("--scale-up-delay", o.scale_up_delay, "autoscale: time for new workers to arrive")
      ->transform(micros());
  put_in_group(*cmd, {kClusterGroup, {"--min-workers", "--deadline", "--scale-up-delay"}});
}

}  // namespace millrace::cli
