#include "cluster_adapter/realtime/run_ownership.h"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <ostream>
#include <thread>

#include "cluster_adapter/realtime/attempt_exit_status.h"
#include "cluster_adapter/realtime/process_identity.h"

namespace millrace::cluster_adapter {

namespace {

TreeIdentity identity_of(const data::AttemptTreeRecord& t) {
  return TreeIdentity{static_cast<pid_t>(t.pid), static_cast<pid_t>(t.pgid), static_cast<std::uint64_t>(t.pid_start),
                      t.boot_id, t.tag, t.cgroup, t.status_file};
}

std::optional<RecordedExit> recorded_exit(const data::AttemptTreeRecord& t) {
  if (t.status_file.empty()) return std::nullopt;
  return read_recorded_exit(t.status_file);
}

std::string seconds_text(data::Micros micros) { return std::to_string(micros / data::kMicrosPerSecond) + " s"; }

}  // namespace

std::optional<std::string> owner_gone(const data::SessionRecord& session, data::Micros now) {
  if (session.host == host_name()) {
    if (session.boot_id != boot_id()) return "this machine rebooted since it started";
    ProcessIdentity owner{session.host, static_cast<pid_t>(session.pid), static_cast<std::uint64_t>(session.pid_start),
                          session.boot_id};
    if (!is_running_here(owner)) return "its process is gone";
    return std::nullopt;
  }
  data::Micros age = now - session.heartbeat;
  if (age > kHeartbeatExpiry) return "its heartbeat is " + std::to_string(age / data::kMicrosPerSecond) + " s old";
  return std::nullopt;
}

RunOwnership::RunOwnership(StoreBacklog& writes, std::int64_t run_id, data::Micros now, std::ostream& notes)
    : writes_(writes), run_id_(run_id), notes_(notes), last_heartbeat_(now) {
  ProcessIdentity self = self_identity();
  data::SessionRecord me;
  me.host = self.host;
  me.pid = self.pid;
  me.pid_start = static_cast<std::int64_t>(self.start_ticks);
  me.boot_id = self.boot_id;
  me.started = now;
  me.heartbeat = now;
  std::vector<data::TakenOver> taken;
  writes_.add([&](data::TraceStore& store) {
    me_ = data::RunSessions(store, run_id_).claim(me, [now](const data::SessionRecord& s) { return owner_gone(s, now); },
                                                  &taken);
  });
  writes_.drain();
  for (const data::TakenOver& t : taken) {
    notes_ << "millrace: run " << run_id_ << ": taking over from millrace pid " << t.session.pid << " on "
           << t.session.host << " (session " << t.session.session << ", since " << data::utc_text(t.session.started)
           << "): " << t.why << "\n";
  }
}

void RunOwnership::set_trees(const ProcessTrees& trees) {
  me_.tree_root = trees.root();
  me_.tree_tag = trees.session_tag();
  writes_.add([run_id = run_id_, me = me_](data::TraceStore& store) {
    data::RunSessions(store, run_id).set_trees(me.session, me.tree_root, me.tree_tag);
  });
  writes_.drain();  // before any attempt starts
}

void RunOwnership::record_tree(const data::WorkItem& item, int attempt, const std::string& worker,
                               const TreeIdentity& tree, data::Micros now) {
  data::AttemptTreeRecord record;
  record.item_id = item.id;
  record.number = attempt;
  record.session = me_.session;
  record.worker = worker;
  record.pid = tree.pid;
  record.pgid = tree.pgid;
  record.pid_start = static_cast<std::int64_t>(tree.start_ticks);
  record.boot_id = tree.boot_id;
  record.tag = tree.tag;
  record.cgroup = tree.cgroup;
  record.status_file = tree.status_file;
  record.started = now;
  writes_.add([run_id = run_id_, record](data::TraceStore& store) { data::RunSessions(store, run_id).add_tree(record); });
}

std::set<std::size_t> RunOwnership::await(const data::SessionRecord& dead,
                                          const std::vector<data::AttemptTreeRecord>& trees,
                                          const scheduler::Clock& clock, const LeftoverHandling& handling) {
  const data::Micros since = clock.now();
  std::vector<bool> settled(trees.size(), false);
  std::set<std::size_t> timed_out;
  bool announced = false;
  while (true) {
    const data::Micros now = clock.now();
    std::size_t running = 0;
    for (std::size_t i = 0; i < trees.size(); ++i) {
      if (settled[i]) continue;
      const data::AttemptTreeRecord& t = trees[i];
      if (recorded_exit(t) || !tree_runs(identity_of(t))) {
        settled[i] = true;
      } else if (handling.attempt_timeout > 0 && now - t.started >= handling.attempt_timeout) {
        settled[i] = true;
        timed_out.insert(i);
      } else {
        ++running;
      }
    }
    if (running == 0) break;
    const std::string left = std::to_string(running) + " attempts left running by session " +
                             std::to_string(dead.session) + " (pid " + std::to_string(dead.pid) + ")";
    if (!announced) {
      notes_ << "millrace: run " << run_id_ << ": waiting for " << left << " to end (--leftovers wait"
             << (handling.wait_limit > 0 ? ", at most " + seconds_text(handling.wait_limit) : std::string()) << ")\n";
      announced = true;
    }
    if (handling.wait_limit > 0 && now - since >= handling.wait_limit) {
      notes_ << "millrace: run " << run_id_ << ": " << left << " still running after --leftover-wait "
             << seconds_text(handling.wait_limit) << ": ending them, their ranges run again\n";
      break;
    }
    if (handling.interrupted && handling.interrupted()) {
      throw data::Error("run " + std::to_string(run_id_), "interrupted while waiting for " + left + "; they run on");
    }
    heartbeat(now);
    writes_.retry();
    std::this_thread::sleep_for(std::chrono::microseconds(kLeftoverRecheck));
  }
  return timed_out;
}

void RunOwnership::sweep(const scheduler::Clock& clock, const LeftoverHandling& handling) {
  data::RunSessions sessions(writes_.store(), run_id_);
  for (const data::SessionRecord& dead : sessions.sessions()) {
    if (dead.session == me_.session || dead.state != "live") continue;
    std::vector<data::AttemptTreeRecord> unfinished = sessions.unfinished_trees(dead.session);
    const bool here = dead.host == host_name();
    std::set<std::size_t> timed_out;
    int ended = 0;
    if (!here) {
      notes_ << "millrace: run " << run_id_ << ": session " << dead.session << " ran on host " << dead.host
             << "; what it left running there cannot be ended from here\n";
    } else if (dead.boot_id == boot_id()) {
      if (handling.wait) timed_out = await(dead, unfinished, clock, handling);
      SessionLeftovers leftovers{dead.tree_root, dead.tree_tag, {}};
      for (const data::AttemptTreeRecord& t : unfinished) leftovers.trees.push_back(identity_of(t));
      ended = end_session_leftovers(leftovers, kLeftoverPatience);
    }
    // An exit status written before the end is the attempt's real outcome, on this machine even
    // across a reboot (the file was written once the command ended).
    const data::Micros now = clock.now();
    std::vector<data::Attempt> settled;
    int by_themselves = 0;
    int status_lost = 0;
    int timeouts = 0;
    int lost = 0;
    for (std::size_t i = 0; i < unfinished.size(); ++i) {
      const data::AttemptTreeRecord& t = unfinished[i];
      data::Attempt& a = settled.emplace_back();
      a.item_id = t.item_id;
      a.number = t.number;
      a.worker = t.worker;
      a.start = t.started;
      if (std::optional<RecordedExit> exit = here ? recorded_exit(t) : std::nullopt) {
        a.end = std::max(exit->ended, t.started);
        a.exit_code = exit->exit_code;
        a.outcome = exit->exit_code == 0 ? data::Outcome::kSucceeded : data::Outcome::kFailed;
        if (exit->exit_code != 0) a.failure_reason = "exit";
        ++by_themselves;
        continue;
      }
      // Ended (its status file exists) with its exit code lost: failed, so the retry policy runs
      // its range again (counted against --max-attempts), and said so below.
      if (std::optional<data::Micros> ended = here && !t.status_file.empty() && !tree_runs(identity_of(t))
                                                  ? status_file_without_exit(t.status_file)
                                                  : std::nullopt) {
        a.end = std::max(*ended, t.started);
        a.exit_code = -1;
        a.outcome = data::Outcome::kFailed;
        a.failure_reason = kExitStatusLost;
        ++status_lost;
        continue;
      }
      a.end = now;
      a.exit_code = 128 + SIGKILL;
      if (timed_out.contains(i)) {
        a.outcome = data::Outcome::kFailed;
        a.failure_reason = "timeout";
        ++timeouts;
      } else {
        a.outcome = data::Outcome::kCancelled;
        a.failure_reason = "session-lost";
        ++lost;
      }
    }
    writes_.add([run_id = run_id_, session = dead.session, settled](data::TraceStore& store) {
      store.add_attempts(run_id, settled);
      data::RunSessions(store, run_id).set_state(session, "swept");
    });
    writes_.drain();
    notes_ << "millrace: run " << run_id_ << ": ended " << ended << " processes left running by session "
           << dead.session << " (pid " << dead.pid << "); of " << unfinished.size()
           << " attempts it left unfinished, " << by_themselves
           << " ended by themselves (recorded with their exit status), ";
    if (status_lost > 0) {
      notes_ << status_lost << " ended with their exit status lost (status file empty or cut short: was the disk "
             << "full?), recorded as failed (" << kExitStatusLost << ", their ranges run again as retries), ";
    }
    if (timeouts > 0) notes_ << timeouts << " ran past --timeout (recorded as timeouts), ";
    notes_ << lost << " recorded as cancelled (session-lost)\n";
  }
}

void RunOwnership::heartbeat(data::Micros now) {
  if (now - last_heartbeat_ < kHeartbeatEvery) return;
  last_heartbeat_ = now;
  writes_.add([run_id = run_id_, session = me_.session, now](data::TraceStore& store) {
    data::RunSessions(store, run_id).heartbeat(session, now);
  });
}

void RunOwnership::release() {
  writes_.add([run_id = run_id_, session = me_.session](data::TraceStore& store) {
    data::RunSessions(store, run_id).set_state(session, "ended");
  });
}

}  // namespace millrace::cluster_adapter
