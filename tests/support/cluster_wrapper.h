// A Cluster that forwards every call to another Cluster (LevelDB's EnvWrapper habit): a test
// double derives from it and overrides only the calls it changes, so it keeps working as the
// Cluster interface grows.
#pragma once

#include <string>

#include "scheduler/cluster.h"

namespace millrace::test_support {

class ClusterWrapper : public scheduler::Cluster {
 public:
  explicit ClusterWrapper(scheduler::Cluster& target) : target_(target) {}

  scheduler::Cluster& target() const { return target_; }

  void set_listener(scheduler::ClusterListener* listener) override { target_.set_listener(listener); }
  void submit(const scheduler::Submission& submission) override { target_.submit(submission); }
  void cancel(scheduler::AttemptHandle handle) override { target_.cancel(handle); }
  int capacity() const override { return target_.capacity(); }
  void retire_worker(const std::string& worker) override { target_.retire_worker(worker); }

 private:
  scheduler::Cluster& target_;
};

}  // namespace millrace::test_support
