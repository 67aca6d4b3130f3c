#include "scheduler/worker_pool_policy.h"

#include <algorithm>

namespace millrace::scheduler {

WorkerPoolPolicy::WorkerPoolPolicy(Sizing sizing, const PolicyParams& params)
    : sizing_(sizing),
      params_(params),
      idle_(params.workers),
      busy_(params.workers, false),
      alive_(params.workers, false),
      warm_(params.workers) {
  std::size_t width = std::max<std::size_t>(3, std::to_string(params.workers - 1).size());
  names_.reserve(params.workers);
  for (int w = 0; w < params.workers; ++w) {
    std::string digits = std::to_string(w);
    std::string name = "w";
    name.append(width - std::min(width, digits.size()), '0');
    names_.push_back(name + digits);
  }
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

int WorkerPoolPolicy::acquire(const std::string&) {
  int lane = static_cast<int>(idle_.first());
  idle_.erase(lane);
  warm_.erase(lane);
  busy_[lane] = true;
  alive_[lane] = true;
  return lane;
}

void WorkerPoolPolicy::release(const std::string&, int lane) {
  busy_[lane] = false;
  if (lane < target_) {
    idle_.insert(lane);
    warm_.insert(lane);
  } else {
    retire(lane);
  }
}

void WorkerPoolPolicy::on_capacity_changed(int slots) {
  if (sizing_ == Sizing::kPartial) resize(std::min(params_.workers, slots));
}

void WorkerPoolPolicy::on_progress() {
  if (sizing_ != Sizing::kAutoscale) return;
  int wanted = wanted_by_deadline();
  if (wanted < target_) {
    resize(wanted);
  } else if (wanted > target_) {
    plan_scale_up();
  }
}

void WorkerPoolPolicy::on_queue_drained() {
  while (!warm_.empty()) retire(static_cast<int>(warm_.first()));
}

void WorkerPoolPolicy::on_run_finished() {
  if (scale_up_timer_) host_->clock().cancel_timer(*scale_up_timer_);
  scale_up_timer_.reset();
  on_queue_drained();
  idle_.clear();
  target_ = 0;
}

void WorkerPoolPolicy::resize(int target) {
  target = std::clamp(target, 0, params_.workers);
  for (int w = target_; w < target; ++w) {
    if (!busy_[w]) idle_.insert(w);
  }
  for (int w = target; w < target_; ++w) {
    if (idle_.erase(w) && alive_[w]) retire(w);
  }
  bool grew = target > target_;
  target_ = target;
  if (grew && host_ != nullptr) host_->wake();
}

void WorkerPoolPolicy::retire(int lane) {
  alive_[lane] = false;
  warm_.erase(lane);
  host_->retire_worker(names_[lane]);
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
    if (wanted > target_) resize(wanted);
  });
}

}  // namespace millrace::scheduler
