// Pool policies: long-lived workers (w000, w001, ...) that each pull the next ready item, paying
// their start-up once. The pool's size is what varies between them: fixed (`fixed-pool`), as
// large as the cluster can place up to the asked size (`partial`), or grown and shrunk between a
// minimum and a maximum to meet a deadline, growth arriving after a scale-up delay (`autoscale`).
// Every pool shrinks as the queue drains: once nothing is queued or waiting, idle workers are
// retired instead of waiting for the run's end, so the straggler tail holds only the workers still
// running (a retry brings a worker back).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "scheduler/concurrency_policy.h"
#include "scheduler/index_set.h"

namespace millrace::scheduler {

class WorkerPoolPolicy : public ConcurrencyPolicy {
 public:
  enum class Sizing { kFixed, kPartial, kAutoscale };
  WorkerPoolPolicy(Sizing sizing, const PolicyParams& params);

  void attach(PolicyHost& host) override;
  bool admits(const std::string&) const override { return !idle_.empty(); }
  bool saturated() const override { return idle_.empty(); }
  int acquire(const std::string& type) override;
  void release(const std::string& type, int lane) override;
  const std::string& worker_name(int lane) const override { return names_[lane]; }
  void on_capacity_changed(int slots) override;
  void on_progress() override;
  void on_queue_drained() override;
  void on_run_finished() override;
  int target() const override { return target_; }

 private:
  void resize(int target);
  void retire(int lane);
  int wanted_by_deadline() const;
  void plan_scale_up();

  Sizing sizing_;
  PolicyParams params_;
  PolicyHost* host_ = nullptr;
  int target_ = 0;
  data::Micros started_at_ = 0;
  std::optional<TimerId> scale_up_timer_;
  // All by lane (0 .. workers - 1); lanes below target_ are the pool now.
  std::vector<std::string> names_;  // w000, w001, ...: zero-padded to the widest lane
  IndexSet idle_;                   // idle lanes below target_, lowest served first
  // Flags as bytes, not std::vector<bool>'s bits: they are set and cleared on every attempt.
  std::vector<std::uint8_t> busy_;
  std::vector<std::uint8_t> alive_; // its worker was acquired at least once since last retired
  IndexSet warm_;                   // idle and alive: retired when the queue drains
};

}  // namespace millrace::scheduler
