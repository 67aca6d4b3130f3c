// The Cluster seam: where the scheduler core sends attempts and from where it hears what
// happened to them. Capacity (slots, nodes) and start-up latency live behind it. Implemented
// by sim::SimCluster (virtual time), cluster_adapter::LocalProcessCluster and
// cluster_adapter::KubernetesCluster (real time); the scheduler knows only this interface.
//
// Glossary: the nouns of the domain, as the code uses them (after SimGrid's s4u, one meaning
// per word).
//   item     One piece of the plan (data::WorkItem): a range of units [first, first + count) of
//            a catch-up, or one job of a queue. It is settled once: succeeded, failed (out of
//            attempts) or blocked (a predecessor failed).
//   attempt  One try at running an item, numbered from 1 per item. The scheduler hands it to
//            the cluster as a Submission under an AttemptHandle unique within the run; the
//            cluster reports it started, then succeeded or failed ("cancelled" when stopped).
//   worker   What runs attempts, one at a time: a long-lived pool worker (w000, w001, ...) that
//            pulls item after item and pays its start-up once, or, in job-per-item, whatever
//            the cluster ran the attempt on (the pod, process or slot it names when it starts).
//   lane     A pool worker's index in its concurrency policy (0 .. workers - 1), fixed with its
//            name for the whole run, so per-worker state is a vector, not a map; kNoLane when
//            each attempt is its own Job.
//   pod      What a cluster runs a worker in: a Kubernetes pod, a local process group, a
//            simulated pod. A pool worker's pod lives until the worker is retired; in
//            job-per-item every attempt has a pod (a Job) of its own.
//   slot     Room for one pod at a time on a node of the cluster; capacity() counts the slots
//            that can take a pod now.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "data/records.h"
#include "scheduler/planned_work.h"

namespace millrace::scheduler {

using AttemptHandle = std::uint64_t;

struct Flight;  // scheduler/flight.h
template <typename Record>
class FlightTable;  // scheduler/flight_table.h

// The lane of an attempt that has no pool worker (job-per-item).
inline constexpr int kNoLane = -1;

// What the scheduler asks a cluster to run.
struct Submission {
  AttemptHandle handle = 0;            // chosen by the scheduler, unique within a run
  const PlannedWork* plan = nullptr;   // the run's plan, alive for the whole run
  std::uint32_t index = 0;             // the item's position in it
  int attempt = 1;                     // 1-based attempt number of this item
  // Set for long-lived workers (fixed pool): the worker slot that pulls this item, which pays
  // its start-up cost once. Empty for job-per-item, where each attempt is its own Job/pod. It
  // views the policy's name of the worker, which lives as long as the scheduler that submits.
  std::string_view worker;
  // The pool worker's lane, fixed with its name for the whole run, so a cluster may index its
  // per-worker state by it; kNoLane when `worker` is empty or the submitter has no lane.
  int lane = kNoLane;
  // The submitter's record of the attempt, in the table it shares with the cluster
  // (Cluster::share_flights), valid during the call; null when it shares none.
  Flight* flight = nullptr;

  // The item, whole (built from the plan's columns), and the parts clusters often read alone.
  data::WorkItem item() const { return plan->item(index); }
  std::string item_id() const { return plan->id(index); }
  const data::Quantities& requests() const { return plan->requests(index); }
};

// What a cluster reports about one attempt. Built without strings: its texts are views of what
// the cluster holds, valid during the call that reports the event (a listener copies what it
// keeps); an event reported later is kept as a KeptAttemptEvent.
struct AttemptEvent {
  AttemptHandle handle = 0;
  data::Micros at = 0;                 // clock time of the event
  std::string_view worker;             // started events: the pod / process / slot that runs it;
                                       // empty when it is the submitted worker (Submission::worker)
  int exit_code = 0;
  std::string_view reason;             // failure reason: "exit", "timeout", "node-lost", ...
  std::optional<data::Micros> work_time;  // per-unit work part of the duration, when reported
  // Started events, optionally: the cluster's own dense number for `worker` (a slot, a node),
  // the same number always with the same name, so the listener can find the worker by it
  // instead of by its name.
  std::uint32_t worker_key = kNoWorkerKey;
  static constexpr std::uint32_t kNoWorkerKey = UINT32_MAX;
  // Started events, when the cluster knows them: when the attempt was placed (pod bound to a
  // node, local slot granted), at or before `at`, and the node or slot's name. A real run's
  // recorded attempt keeps them (data::Attempt::placed, node); simulations leave them empty.
  std::optional<data::Micros> placed{};
  std::string_view node{};
  // Started events, when the cluster knows it: when its scheduler first said the attempt fits on
  // no node (what makes an autoscaler order one), at or before `placed` (data::Attempt::unschedulable).
  std::optional<data::Micros> unschedulable{};
};

// An AttemptEvent kept past the moment it happened (queued to be reported later, recorded by a
// test): the same fields, owning their texts.
struct KeptAttemptEvent {
  AttemptHandle handle = 0;
  data::Micros at = 0;
  std::string worker = "";
  int exit_code = 0;
  std::string reason = "";
  std::optional<data::Micros> work_time = std::nullopt;
  std::uint32_t worker_key = AttemptEvent::kNoWorkerKey;
  std::optional<data::Micros> placed = std::nullopt;
  std::string node = "";
  std::optional<data::Micros> unschedulable = std::nullopt;

  // The event to report, viewing this one's texts.
  AttemptEvent view() const {
    return AttemptEvent{handle, at, worker, exit_code, reason, work_time, worker_key, placed, node, unschedulable};
  }
};

// `e` kept, its texts copied.
inline KeptAttemptEvent kept(const AttemptEvent& e) {
  return KeptAttemptEvent{e.handle,   e.at,         std::string(e.worker), e.exit_code,       std::string(e.reason),
                          e.work_time, e.worker_key, e.placed,              std::string(e.node), e.unschedulable};
}

class ClusterListener {
 public:
  virtual ~ClusterListener() = default;
  virtual void on_started(const AttemptEvent& event) = 0;
  virtual void on_succeeded(const AttemptEvent& event) = 0;
  virtual void on_failed(const AttemptEvent& event) = 0;
  // The number of attempts the cluster can run at once changed (nodes lost/added, quota).
  virtual void on_capacity_changed(int slots, data::Micros at) = 0;
};

class Cluster {
 public:
  virtual ~Cluster() = default;
  virtual void set_listener(ClusterListener* listener) = 0;
  // Starts an attempt; the cluster reports started and then succeeded or failed.
  virtual void submit(const Submission& submission) = 0;
  // Stops an attempt; the cluster reports it failed with reason "cancelled".
  virtual void cancel(AttemptHandle handle) = 0;
  // Attempts the cluster can place at once right now.
  virtual int capacity() const = 0;
  // The long-lived worker named in earlier submissions (Submission::worker) will get no more
  // work: the cluster may free what it holds (its pod, its slot). Clusters without long-lived
  // workers ignore it.
  virtual void retire_worker(const std::string& /*worker*/) {}
  // The submitter's table of the attempts in flight (scheduler/flight.h), offered before the
  // first submission: a cluster may keep its own state of each attempt in the record's room
  // instead of in a table of its own. The table outlives the submissions; a record is there from
  // the submission until the cluster reports the attempt's end, so the offer is only for a cluster
  // whose reports reach the submitter (a wrapper that filters them does not pass it on). Other
  // clusters ignore it.
  virtual void share_flights(FlightTable<Flight>& /*flights*/) {}
};

}  // namespace millrace::scheduler
