// `job-per-item`: every attempt is its own Job (its own pod start-up), at most K in flight in
// total and at most a per-type limit of each item type: the "max concurrency per job type"
// design of Kubernetes batch deployments.
#pragma once

#include <unordered_map>

#include "scheduler/concurrency_policy.h"

namespace millrace::scheduler {

class JobPerItemPolicy : public ConcurrencyPolicy {
 public:
  explicit JobPerItemPolicy(const PolicyParams& params);

  void attach(PolicyHost&) override {}
  bool admits(const std::string& type) const override;
  bool saturated() const override { return in_flight_ >= params_.max_in_flight; }
  int acquire(const std::string& type) override;
  void release(const std::string& type, int lane) override;
  const std::string& worker_name(int) const override { return no_name_; }
  void on_capacity_changed(int) override {}
  void on_progress() override {}
  void on_queue_drained() override {}
  void on_run_finished() override {}
  int target() const override { return params_.max_in_flight; }

 private:
  PolicyParams params_;
  int in_flight_ = 0;
  std::unordered_map<std::string, int> per_type_;  // in flight per limited type
  std::string no_name_;
};

}  // namespace millrace::scheduler
