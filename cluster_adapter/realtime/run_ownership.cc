#include "cluster_adapter/realtime/run_ownership.h"

#include <signal.h>

#include <ostream>

#include "cluster_adapter/realtime/process_identity.h"

namespace millrace::cluster_adapter {

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
  record.started = now;
  writes_.add([run_id = run_id_, record](data::TraceStore& store) { data::RunSessions(store, run_id).add_tree(record); });
}

void RunOwnership::sweep(data::Micros now) {
  data::RunSessions sessions(writes_.store(), run_id_);
  for (const data::SessionRecord& dead : sessions.sessions()) {
    if (dead.session == me_.session || dead.state != "live") continue;
    std::vector<data::AttemptTreeRecord> unfinished = sessions.unfinished_trees(dead.session);
    int ended = 0;
    if (dead.host != host_name()) {
      notes_ << "millrace: run " << run_id_ << ": session " << dead.session << " ran on host " << dead.host
             << "; what it left running there cannot be ended from here\n";
    } else if (dead.boot_id == boot_id()) {
      SessionLeftovers leftovers{dead.tree_root, dead.tree_tag, {}};
      for (const data::AttemptTreeRecord& t : unfinished) {
        leftovers.trees.push_back(TreeIdentity{static_cast<pid_t>(t.pid), static_cast<pid_t>(t.pgid),
                                               static_cast<std::uint64_t>(t.pid_start), t.boot_id, t.tag, t.cgroup});
      }
      ended = end_session_leftovers(leftovers, kLeftoverPatience);
    }
    std::vector<data::Attempt> lost;
    for (const data::AttemptTreeRecord& t : unfinished) {
      data::Attempt& a = lost.emplace_back();
      a.item_id = t.item_id;
      a.number = t.number;
      a.worker = t.worker;
      a.start = t.started;
      a.end = now;
      a.outcome = data::Outcome::kCancelled;
      a.exit_code = 128 + SIGKILL;
      a.failure_reason = "session-lost";
    }
    writes_.add([run_id = run_id_, session = dead.session, lost](data::TraceStore& store) {
      store.add_attempts(run_id, lost);
      data::RunSessions(store, run_id).set_state(session, "swept");
    });
    writes_.drain();
    notes_ << "millrace: run " << run_id_ << ": ended " << ended << " processes left running by session "
           << dead.session << " (pid " << dead.pid << "); " << lost.size()
           << " attempts it left unfinished recorded as cancelled\n";
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
