// `job-per-item`: every attempt is its own Job (its own pod start-up), at most K in flight in
// total and at most a per-type limit of each item type: the "max concurrency per job type"
// design of Kubernetes batch deployments.
#pragma once

#include <string>
#include <unordered_map>

#include "scheduler/concurrency_policy.h"

namespace millrace::scheduler {

class JobPerItemPolicy : public ConcurrencyPolicy {
 public:
  explicit JobPerItemPolicy(const PolicyParams& params);

  void attach(PolicyHost&) override {}
  void on_capacity_changed(int) override {}
  void on_queue_drained() override {}
  void on_run_finished() override {}
  int target() const override { return params_.max_in_flight; }

 private:
  // Only with type limits (the usual case has none: an attempt then only counts towards K).
  bool admits_type(const std::string& type) const override;
  void count_type(const std::string& type, int delta) override;

  PolicyParams params_;
  std::unordered_map<std::string, int> per_type_;  // in flight per limited type
};

}  // namespace millrace::scheduler
