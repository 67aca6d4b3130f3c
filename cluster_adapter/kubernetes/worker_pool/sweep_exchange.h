// What a sweep's run (compare or plan fanned out over the worker pool, cli/sweep_fanout.h)
// exchanges with its workers beside the leases: the bundles they fetch by SHA-256 (GET
// /v1/bundles/SHA256, lease_server.h), and the results a shard's completion carries. A run whose
// pool serves a sweep expects every successful completion to carry results its check accepts
// (else the completion is refused, and the lease, unextended, expires: the shard runs again);
// the results of an item are kept once, from the completion the lease book recorded first, so a
// late duplicate never counts twice. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

namespace millrace::cluster_adapter {

class SweepExchange {
 public:
  // Throws data::Error (naming the item and the field) for results the sweep cannot use.
  using CheckResults = std::function<void(const std::string& item_id, const nlohmann::json& results)>;

  // Serves `bytes` under `sha256` (the caller's hash of them) from now on.
  void add_bundle(const std::string& sha256, std::string bytes);
  // The bundle, or null when none has that hash.
  std::shared_ptr<const std::string> bundle(const std::string& sha256) const;

  // From now on successful completions must carry results that pass `check`; what was kept is
  // dropped (a new batch of shards).
  void expect_results(CheckResults check);
  bool expects_results() const;
  // Throws what the check throws.
  void check(const std::string& item_id, const nlohmann::json& results) const;
  // Keeps the results of `item_id` unless some are kept already.
  void keep(const std::string& item_id, nlohmann::json results);
  // What was kept, by item id.
  std::map<std::string, nlohmann::json> results() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const std::string>> bundles_;
  CheckResults check_;
  std::map<std::string, nlohmann::json> results_;
};

}  // namespace millrace::cluster_adapter
