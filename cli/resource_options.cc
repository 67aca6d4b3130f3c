#include "cli/resource_options.h"

#include <charconv>
#include <filesystem>

#include "cli/help_layout.h"
#include "data/error.h"
#include "data/quantity.h"
#include "data/typed_duration.h"
#include "sim/node_pools.h"

namespace millrace::cli {

void add_resource_options(CLI::App& command, ResourceOptions& options) {
  // Each value is checked as it is parsed too (the checks apply_resource_options makes, with their
  // messages), so an experiment file's bad value is refused with its FILE:LINE:COLUMN.
  command.add_option("--node-pools", options.node_pools,
                     "Node pools file instead of --nodes x --slots-per-node: CSV pool,count,min,max,provision_delay,"
                     "capacity.NAME... or JSON (job-per-item; pods ask for their items' request.NAME)");
  command.add_option("--machine", options.machine,
                     "Instead of --node-pools: one pool of fixed size of this machine, e.g. cpu=4,memory=16Gi "
                     "(simulate: --nodes of them; plan: the count searched; compare: one)")
      ->each([](const std::string& text) { data::parse_quantity_list(text, "--machine"); });
  command.add_option("--placement", options.placement, "With --node-pools: first-fit, most-allocated or least-allocated")
      ->capture_default_str()
      ->each([](const std::string& text) { sim::placement_named(text, "--placement"); });
  command.add_option("--expander", options.expander,
                     "With --node-pools: the pool the autoscaler grows for a pod that fits nowhere, of those that may: "
                     "first (in the file) or least-waste (the machine the pod fills best)")
      ->capture_default_str()
      ->each([](const std::string& text) { sim::expander_named(text, "--expander"); });
  command.add_option("--scale-down-delay", options.scale_down_delay,
                     "With --node-pools: an empty node above its pool's min goes after this long")
      ->capture_default_str()
      ->each([](const std::string& text) { data::parse_duration(text, "--scale-down-delay"); });
  command.add_option("--type-limit", options.type_limits,
                     "TYPE=K: at most K attempts of items of TYPE at once (job-per-item; repeatable)")
      ->each([](const std::string& text) { parse_type_limits({text}); });
  put_in_group(command, {kClusterGroup,
                         {"--node-pools", "--machine", "--placement", "--expander", "--scale-down-delay", "--type-limit"}});
}

std::map<std::string, int> parse_type_limits(const std::vector<std::string>& texts) {
  std::map<std::string, int> limits;
  for (const std::string& text : texts) {
    const std::size_t equals = text.rfind('=');
    int cap = 0;
    const char* end = text.data() + text.size();
    if (equals == std::string::npos || equals == 0 ||
        std::from_chars(text.data() + equals + 1, end, cap).ptr != end || equals + 1 == text.size() || cap < 1) {
      throw data::Error("--type-limit '" + text + "'", "expected TYPE=K with K a whole number from 1, e.g. render=8");
    }
    if (!limits.emplace(text.substr(0, equals), cap).second) {
      throw data::Error("--type-limit '" + text + "'", "type '" + text.substr(0, equals) + "' is limited twice");
    }
  }
  return limits;
}

void apply_resource_options(const ResourceOptions& options, sim::SimulationConfig& config, int machines) {
  config.scheduler.params.type_limits = parse_type_limits(options.type_limits);
  if (options.node_pools.empty() && options.machine.empty()) return;
  if (!options.node_pools.empty() && !options.machine.empty()) {
    throw data::Error("--machine " + options.machine, "give either --node-pools or --machine, not both");
  }
  const std::string option = options.machine.empty() ? "--node-pools " + options.node_pools : "--machine " + options.machine;
  if (config.scheduler.policy != "job-per-item") {
    throw data::Error(option, "node pools run one Job per item: use --policy job-per-item (not " +
                                  config.scheduler.policy + ")");
  }
  sim::NodePoolsConfig& pools = config.cluster.pools;
  if (options.machine.empty()) {
    pools.pools = sim::read_node_pools(options.node_pools);
  } else {
    pools.pools = {sim::NodePool{"machine", machines, machines, machines, 0,
                                 data::parse_quantity_list(options.machine, "--machine")}};
  }
  pools.placement = sim::placement_named(options.placement, "--placement");
  pools.expander = sim::expander_named(options.expander, "--expander");
  pools.scale_down_delay = data::parse_duration(options.scale_down_delay, "--scale-down-delay");
}

nlohmann::json resource_parameters(const ResourceOptions& options) {
  nlohmann::json out = {{"type_limits", parse_type_limits(options.type_limits)}};
  if (!options.machine.empty()) out["machine"] = options.machine;
  if (!options.node_pools.empty() || !options.machine.empty()) {
    if (!options.node_pools.empty()) out["node_pools"] = std::filesystem::path(options.node_pools).filename().string();
    out["placement"] = options.placement;
    out["expander"] = options.expander;
    out["scale_down_delay"] = options.scale_down_delay;
  }
  return out;
}

}  // namespace millrace::cli
