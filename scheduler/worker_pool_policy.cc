#include "scheduler/worker_pool_policy.h"

#include <algorithm>

namespace millrace::scheduler {

WorkerPoolPolicy::WorkerPoolPolicy(Sizing sizing, const PolicyParams& params)
    : ConcurrencyPolicy(lanes_), sizing_(sizing), params_(params), lanes_(params.workers) {
  if (sizing_ == Sizing::kAutoscale) replans_on_progress();
}

void WorkerPoolPolicy::attach(PolicyHost& host) {
  host_ = &host;
  started_at_ = host.clock().now();
  switch (sizing_) {
    case Sizing::kFixed: resize(params_.workers); break;
    case Sizing::kPartial: resize(std::min(params_.workers, host.cluster_capacity())); break;
    case Sizing::kAutoscale:
      resize(std::max(params_.min_workers, 1));
      on_progress();
      break;
  }
}

void WorkerPoolPolicy::on_capacity_changed(int slots) {
  if (sizing_ == Sizing::kPartial) resize(std::min(params_.workers, slots));
}

void WorkerPoolPolicy::on_progress() {
  int wanted = wanted_by_deadline();
  if (wanted < lanes_.target()) {
    resize(wanted);
  } else if (wanted > lanes_.target()) {
    plan_scale_up();
  }
}

void WorkerPoolPolicy::on_queue_drained() {
  for (int lane = lanes_.first_warm(); lane >= 0; lane = lanes_.first_warm()) retire(lane);
}

void WorkerPoolPolicy::on_run_finished() {
  if (scale_up_timer_) host_->clock().cancel_timer(*scale_up_timer_);
  scale_up_timer_.reset();
  on_queue_drained();
  lanes_.close();
}

void WorkerPoolPolicy::resize(int target) {
  target = std::clamp(target, 0, params_.workers);
  const bool grew = target > lanes_.target();
  lanes_.resize(target, [this](int lane) { retire(lane); });
  if (grew && host_ != nullptr) host_->wake();
}

void WorkerPoolPolicy::retire(int lane) {
  lanes_.retire(lane);
  host_->retire_worker(lanes_.name(lane));
}

// Workers needed so the remaining predicted work ends by the deadline, within min..max.
int WorkerPoolPolicy::wanted_by_deadline() const {
  data::Micros left = started_at_ + params_.deadline - host_->clock().now();
  data::Micros work = host_->remaining_predicted();
  if (left <= 0) return work > 0 ? params_.workers : params_.min_workers;
  data::Micros wanted = (work + left - 1) / left;
  return static_cast<int>(std::clamp<data::Micros>(wanted, params_.min_workers, params_.workers));
}

void WorkerPoolPolicy::plan_scale_up() {
  if (scale_up_timer_) return;
  scale_up_timer_ = host_->clock().call_at(host_->clock().now() + params_.scale_up_delay, [this] {
    scale_up_timer_.reset();
    int wanted = wanted_by_deadline();
    if (wanted > lanes_.target()) resize(wanted);
  });
}

}  // namespace millrace::scheduler
