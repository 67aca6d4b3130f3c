// Pool policies: long-lived workers (w000, w001, ...) that each pull the next ready item, paying
// their start-up once. The pool's size is what varies between them: fixed (`fixed-pool`), as
// large as the cluster can place up to the asked size (`partial`), or grown and shrunk between a
// minimum and a maximum to meet a deadline, growth arriving after a scale-up delay (`autoscale`).
// Every pool shrinks as the queue drains: once nothing is queued or waiting, idle workers are
// retired instead of waiting for the run's end, so the straggler tail holds only the workers still
// running (a retry brings a worker back).
#pragma once

#include <optional>

#include "scheduler/concurrency_policy.h"
#include "scheduler/lane_pool.h"

namespace millrace::scheduler {

class WorkerPoolPolicy : public ConcurrencyPolicy {
 public:
  enum class Sizing { kFixed, kPartial, kAutoscale };
  WorkerPoolPolicy(Sizing sizing, const PolicyParams& params);

  void attach(PolicyHost& host) override;
  void on_capacity_changed(int slots) override;
  void on_queue_drained() override;
  void on_run_finished() override;
  int target() const override { return lanes_.target(); }

 private:
  void on_progress() override;
  void left_pool(int lane) override { retire(lane); }
  void resize(int target);
  void retire(int lane);
  int wanted_by_deadline() const;
  void plan_scale_up();

  Sizing sizing_;
  PolicyParams params_;
  PolicyHost* host_ = nullptr;
  data::Micros started_at_ = 0;
  std::optional<TimerId> scale_up_timer_;
  LanePool lanes_;  // by lane (0 .. workers - 1); lanes below its target are the pool now
};

}  // namespace millrace::scheduler
