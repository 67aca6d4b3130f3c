// Concurrency policies decide how many attempts may be in flight now and on which worker: a
// fixed pool of long-lived workers, one Job per item under caps, a deadline-driven autoscaled
// pool, or a pool that makes do with what the cluster can place. They are registered by name
// (below) so a config or the CLI picks one; the scheduler core only talks to this interface.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/records.h"
#include "data/time.h"
#include "scheduler/clock.h"
#include "scheduler/cluster.h"
#include "scheduler/lane_pool.h"

namespace millrace::scheduler {

// Parameters of every built-in policy; each reads the fields it needs.
struct PolicyParams {
  int workers = 1;                          // fixed-pool, partial: pool size; autoscale: maximum
  int min_workers = 1;                      // autoscale: minimum
  int max_in_flight = 1;                    // job-per-item: at most K attempts at once
  std::map<std::string, int> type_limits;   // job-per-item: at most this many of one item type
  data::Micros deadline = 0;                // autoscale: wanted end, measured from the run's start
  data::Micros scale_up_delay = 0;          // autoscale: time for new workers to become available
};

// What a policy may ask of the scheduler that hosts it.
class PolicyHost {
 public:
  virtual ~PolicyHost() = default;
  virtual Clock& clock() = 0;
  virtual int cluster_capacity() const = 0;
  // Sum of the predicted durations of items not yet succeeded.
  virtual data::Micros remaining_predicted() const = 0;
  // The worker is no longer needed: the cluster may free what it holds.
  virtual void retire_worker(const std::string& worker) = 0;
  // More attempts may start now than before: the scheduler should dispatch again.
  virtual void wake() = 0;
};

// The scheduler asks a policy about every attempt (may one start, on which lane, it ended):
// those calls are inline, reading the places the policy keeps in this base, a pool's lanes or a
// count of attempts in flight under a cap, so an attempt costs no virtual call. The virtual hooks
// are the policy's decisions: the pool's size, a type's limit, a lane that left the pool.
class ConcurrencyPolicy {
 public:
  virtual ~ConcurrencyPolicy() = default;
  virtual void attach(PolicyHost& host) = 0;

  // True when no attempt of any item may start now (the scheduler stops looking).
  bool saturated() const { return lanes_ != nullptr ? lanes_->none_idle() : in_flight_ >= cap_; }
  // Whether one more attempt of an item of `type` may start now.
  bool admits(const std::string& type) const { return limits_types_ ? admits_type(type) : !saturated(); }
  // Takes a place for an item of `type`: a pool worker's lane, or kNoLane when each attempt is its own Job.
  int acquire(const std::string& type) {
    if (limits_types_) count_type(type, 1);
    if (lanes_ != nullptr) return lanes_->take();
    ++in_flight_;
    return kNoLane;
  }
  void release(const std::string& type, int lane) {
    if (limits_types_) count_type(type, -1);
    if (lanes_ == nullptr) {
      --in_flight_;
    } else if (!lanes_->give_back(lane)) {
      left_pool(lane);
    }
  }
  // The name the worker of a lane is submitted under, kept as long as the policy. Only called
  // for a lane (not kNoLane).
  const std::string& worker_name(int lane) const { return lanes_->name(lane); }
  // An item succeeded or exhausted its attempts: a policy that re-plans on progress does.
  void progressed() {
    if (replans_on_progress_) on_progress();
  }

  virtual void on_capacity_changed(int slots) = 0;
  // Nothing is queued or waiting, only attempts in flight: idle long-lived workers may go (a
  // retry later brings one back, paying its start-up again).
  virtual void on_queue_drained() = 0;
  // Every item is settled: long-lived workers are retired.
  virtual void on_run_finished() = 0;
  // How many attempts the policy would run at once now (workers in the pool, or K).
  virtual int target() const = 0;

 protected:
  // A pool policy: its lanes, owned by it.
  explicit ConcurrencyPolicy(LanePool& lanes) : lanes_(&lanes) {}
  // A policy without lanes: at most `cap` attempts at once.
  explicit ConcurrencyPolicy(int cap) : cap_(cap) {}

  // What a policy that limits item types decides (limits_types() was called): whether one more
  // of `type` may start, and `delta` attempts of it started (1) or ended (-1).
  void limits_types() { limits_types_ = true; }
  virtual bool admits_type(const std::string& /*type*/) const { return !saturated(); }
  virtual void count_type(const std::string& /*type*/, int /*delta*/) {}
  // on_progress() is called as items settle (replans_on_progress() was called).
  void replans_on_progress() { replans_on_progress_ = true; }
  virtual void on_progress() {}
  // A lane given back that is no longer below the pool's target.
  virtual void left_pool(int /*lane*/) {}

 private:
  LanePool* lanes_ = nullptr;
  int cap_ = 0;
  int in_flight_ = 0;
  bool limits_types_ = false;
  bool replans_on_progress_ = false;
};

// Autoscale's settings as every command that runs a policy takes them (cli/autoscale_options.h)
// and a real run keeps them for --resume.
struct AutoscaleSettings {
  int min_workers = 1;
  data::Micros deadline = 0;        // wanted makespan, from the run's start
  data::Micros scale_up_delay = 0;
};

// The parameters of `workers` workers (a pool's size, job-per-item's K, autoscale's maximum).
PolicyParams policy_params(int workers, const AutoscaleSettings& autoscale);
// {"min_workers", "deadline_us", "scale_up_delay_us"}, and back (a key missing: its default).
nlohmann::json to_json(const AutoscaleSettings& autoscale);
AutoscaleSettings autoscale_settings_from(const nlohmann::json& parameters);

using PolicyFactory = std::function<std::unique_ptr<ConcurrencyPolicy>(const PolicyParams&)>;

// The policies are registered by name in concurrency_policy.cc (data/registry.h), one line each:
// fixed-pool, partial, autoscale, job-per-item. A new policy is a class of its own and one line
// there.
// Throws data::Error naming the policy when it is unknown (listing the known names) or when its
// parameters are out of range.
std::unique_ptr<ConcurrencyPolicy> make_policy(const std::string& name, const PolicyParams& params);
std::vector<std::string> policy_names();
// "fixed-pool, partial, ...", for help texts.
std::string policy_list();

}  // namespace millrace::scheduler
