#include "cli/resource_options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>

#include "cli/help_layout.h"
#include "data/error.h"
#include "data/quantity.h"
#include "data/typed_duration.h"
#include "sim/node_pools.h"

namespace millrace::cli {

namespace {

void check_currency(const std::string& text) {
  const bool letters = std::all_of(text.begin(), text.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
  if (text.empty() || text.size() > 8 || !letters) {
    throw data::Error("--currency '" + text + "'", "expected a currency code of 1 to 8 letters, e.g. USD, EUR");
  }
}

}  // namespace

void add_resource_options(CLI::App& command, ResourceOptions& options) {
  // Each value is checked as it is parsed too (the checks apply_resource_options makes, with their
  // messages), so an experiment file's bad value is refused with its FILE:LINE:COLUMN.
  command.add_option("--node-pools", options.node_pools,
                     "Node pools file instead of --nodes x --slots-per-node: CSV pool,count,min,max,provision_delay,"
                     "capacity.NAME... or JSON (job-per-item; pods ask for their items' request.NAME)");
  command.add_option("--machine", options.machine,
                     "Instead of --node-pools: one pool of fixed size of this machine, e.g. cpu=4,memory=16Gi "
                     "(simulate: --nodes of them; plan: the count searched; compare: one); price=P per node-hour "
                     "and billing=RULE as in --worker-billing may follow")
      ->each([](const std::string& text) { parse_machine(text); });
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
  add_price_options(command, options);
}

void add_price_options(CLI::App& command, ResourceOptions& options) {
  command.add_option("--worker-price", options.worker_price,
                     "Price per worker-hour of a fixed pool of workers (no node pools: their file or --machine "
                     "takes a price), e.g. 0.40; every result then says what it costs")
      ->each([](const std::string& text) { data::parse_money(text, "--worker-price"); });
  command.add_option("--worker-billing", options.worker_billing,
                     "How a worker's lifetime is billed: per-second, per-second:60s (a minimum), per-minute, per-hour "
                     "(default: per second)")
      ->each([](const std::string& text) { data::parse_billing(text, "--worker-billing"); });
  command.add_option("--currency", options.currency, "The currency prices are in, printed with every figure")
      ->capture_default_str()
      ->each([](const std::string& text) { check_currency(text); });
  put_in_group(command, {kClusterGroup, {"--worker-price", "--worker-billing", "--currency"}});
}

sim::Pricing pricing_of(const ResourceOptions& options) {
  check_currency(options.currency);
  sim::Pricing pricing;
  pricing.currency = options.currency;
  pricing.worker_billing = data::parse_billing(options.worker_billing, "--worker-billing");
  if (!options.worker_price.empty()) pricing.worker_price = data::parse_money(options.worker_price, "--worker-price");
  return pricing;
}

std::vector<sim::NodePool> pools_of(const ResourceOptions& options, int machines) {
  if (options.node_pools.empty() && options.machine.empty()) return {};
  if (!options.node_pools.empty() && !options.machine.empty()) {
    throw data::Error("--machine " + options.machine, "give either --node-pools or --machine, not both");
  }
  if (options.machine.empty()) return sim::read_node_pools(options.node_pools);
  MachineSpec machine = parse_machine(options.machine);
  sim::NodePool pool;
  pool.name = "machine";
  pool.count = pool.min = pool.max = machines;
  pool.capacity = std::move(machine.capacity);
  pool.price = machine.price;
  pool.billing = machine.billing;
  return {std::move(pool)};
}

MachineSpec parse_machine(const std::string& text) {
  MachineSpec machine;
  std::string capacity;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string part = text.substr(begin, comma - begin);
    if (part.starts_with("price=")) {
      machine.price = data::parse_money(part.substr(6), "--machine " + text + ": price");
    } else if (part.starts_with("billing=")) {
      machine.billing = data::parse_billing(part.substr(8), "--machine " + text + ": billing");
    } else {
      capacity += (capacity.empty() ? "" : ",") + part;
    }
    begin = comma + 1;
  }
  machine.capacity = data::parse_quantity_list(capacity, "--machine");
  return machine;
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
  config.pricing = pricing_of(options);
  std::vector<sim::NodePool> pools_of_options = pools_of(options, machines);
  if (pools_of_options.empty()) return;
  if (config.pricing.worker_price) {
    throw data::Error("--worker-price " + options.worker_price,
                      "prices a fixed pool of workers; node pools take theirs per pool (a price column, or "
                      "--machine ...,price=P)");
  }
  const std::string option = options.machine.empty() ? "--node-pools " + options.node_pools : "--machine " + options.machine;
  if (config.scheduler.policy != "job-per-item") {
    throw data::Error(option, "node pools run one Job per item: use --policy job-per-item (not " +
                                  config.scheduler.policy + ")");
  }
  sim::NodePoolsConfig& pools = config.cluster.pools;
  pools.pools = std::move(pools_of_options);
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
  if (!options.worker_price.empty()) out["worker_price"] = options.worker_price;
  if (!options.worker_billing.empty()) out["worker_billing"] = options.worker_billing;
  if (!options.worker_price.empty() || options.currency != "USD") out["currency"] = options.currency;
  return out;
}

}  // namespace millrace::cli
