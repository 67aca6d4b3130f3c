#include "cli/redis_options.h"

#include "cli/help_layout.h"

namespace millrace::cli {

void add_redis_names_options(CLI::App& cmd, cluster_adapter::RedisQueueNames& names) {
  cmd.add_option("--ranges-list", names.ranges, "list of ranges to run")->capture_default_str();
  cmd.add_option("--in-progress-list", names.in_progress, "list of ranges held by workers")->capture_default_str();
  cmd.add_option("--succeeded-list", names.succeeded, "list of ranges done")->capture_default_str();
  cmd.add_option("--failed-list", names.failed, "list of END/COUNT|worker that failed")->capture_default_str();
  cmd.add_option("--metrics-set", names.metrics, "set of END/COUNT|worker|tx_apply_ms|duration lines")
      ->capture_default_str();
  cmd.add_option("--owners-hash", names.owners, "hash range -> worker holding it")->capture_default_str();
  cmd.add_option("--heartbeat-prefix", names.heartbeat_prefix, "key prefix of worker heartbeats")
      ->capture_default_str();
  put_in_group(cmd, {"Redis key names (as the workers use them)",
                     {"--ranges-list", "--in-progress-list", "--succeeded-list", "--failed-list", "--metrics-set",
                      "--owners-hash", "--heartbeat-prefix"}});
}

}  // namespace millrace::cli
