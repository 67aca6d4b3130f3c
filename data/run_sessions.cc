#include "data/run_sessions.h"

#include <sqlite3.h>

#include <ctime>

#include "data/sqlite_db.h"

namespace millrace::data {

namespace {

constexpr const char* kSessionColumns =
    "SELECT session, host, pid, pid_start, boot_id, tree_root, tree_tag, started_us, heartbeat_us, state "
    "FROM run_sessions ";

SessionRecord read_session(const Statement& s) {
  SessionRecord r;
  r.session = static_cast<int>(s.int64(0));
  r.host = s.text(1);
  r.pid = s.int64(2);
  r.pid_start = s.int64(3);
  r.boot_id = s.text(4);
  r.tree_root = s.text(5);
  r.tree_tag = s.text(6);
  r.started = s.int64(7);
  r.heartbeat = s.int64(8);
  r.state = s.text(9);
  return r;
}

}  // namespace

std::string utc_text(Micros at) {
  std::time_t seconds = static_cast<std::time_t>(at / kMicrosPerSecond);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

RunSessions::RunSessions(TraceStore& store, std::int64_t run_id)
    : store_(store), run_id_(run_id), label_("run " + std::to_string(run_id)) {}

SessionRecord RunSessions::claim(SessionRecord me, const OwnerGone& gone, std::vector<TakenOver>* taken_over) {
  sqlite3* db = store_.handle();
  const std::string& path = store_.path();
  Transaction tx(db, path);
  std::vector<TakenOver> taken;
  {
    Statement live(db, path, std::string(kSessionColumns) + "WHERE run_id = ? AND state = 'live' ORDER BY session");
    live.bind(1, run_id_);
    while (live.step()) {
      SessionRecord owner = read_session(live);
      std::optional<std::string> why = gone(owner);
      if (!why) {
        throw RunOwned(label_, "is owned by a live millrace: pid " + std::to_string(owner.pid) + " on host " +
                                   owner.host + ", since " + utc_text(owner.started) + ", last heartbeat " +
                                   utc_text(owner.heartbeat) + "; stop it first (Ctrl-C or SIGTERM) or let it end");
      }
      taken.push_back(TakenOver{owner, *why});
    }
  }
  {
    Statement next(db, path, "SELECT coalesce(max(session), 0) + 1 FROM run_sessions WHERE run_id = ?");
    next.bind(1, run_id_);
    next.step();
    me.session = static_cast<int>(next.int64(0));
  }
  Statement insert(db, path,
                   "INSERT INTO run_sessions (run_id, session, host, pid, pid_start, boot_id, tree_root, tree_tag, "
                   "started_us, heartbeat_us, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'live')");
  insert.bind(1, run_id_).bind(2, me.session).bind(3, me.host).bind(4, me.pid).bind(5, me.pid_start);
  insert.bind(6, me.boot_id).bind(7, me.tree_root).bind(8, me.tree_tag).bind(9, me.started).bind(10, me.heartbeat);
  insert.run();
  tx.commit();
  me.state = "live";
  if (taken_over != nullptr) *taken_over = std::move(taken);
  return me;
}

std::vector<SessionRecord> RunSessions::sessions() const {
  Statement s(store_.handle(), store_.path(), std::string(kSessionColumns) + "WHERE run_id = ? ORDER BY session");
  s.bind(1, run_id_);
  std::vector<SessionRecord> out;
  while (s.step()) out.push_back(read_session(s));
  return out;
}

void RunSessions::set_trees(int session, const std::string& root, const std::string& tag) {
  Statement s(store_.handle(), store_.path(),
              "UPDATE run_sessions SET tree_root = ?, tree_tag = ? WHERE run_id = ? AND session = ?");
  s.bind(1, root).bind(2, tag).bind(3, run_id_).bind(4, session);
  s.run();
}

void RunSessions::heartbeat(int session, Micros at) {
  Statement s(store_.handle(), store_.path(), "UPDATE run_sessions SET heartbeat_us = ? WHERE run_id = ? AND session = ?");
  s.bind(1, at).bind(2, run_id_).bind(3, session);
  s.run();
}

void RunSessions::set_state(int session, const std::string& state) {
  Statement s(store_.handle(), store_.path(), "UPDATE run_sessions SET state = ? WHERE run_id = ? AND session = ?");
  s.bind(1, state).bind(2, run_id_).bind(3, session);
  s.run();
}

void RunSessions::add_tree(const AttemptTreeRecord& t) {
  Statement s(store_.handle(), store_.path(),
              "INSERT OR REPLACE INTO attempt_trees (run_id, item_id, number, session, worker, pid, pgid, pid_start, "
              "boot_id, tag, cgroup, status_file, started_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, run_id_).bind(2, t.item_id).bind(3, t.number).bind(4, t.session).bind(5, t.worker).bind(6, t.pid);
  s.bind(7, t.pgid).bind(8, t.pid_start).bind(9, t.boot_id).bind(10, t.tag).bind(11, t.cgroup).bind(12, t.status_file);
  s.bind(13, t.started);
  s.run();
}

std::vector<AttemptTreeRecord> RunSessions::unfinished_trees(int session) const {
  Statement s(store_.handle(), store_.path(),
              "SELECT t.item_id, t.number, t.session, t.worker, t.pid, t.pgid, t.pid_start, t.boot_id, t.tag, "
              "t.cgroup, t.status_file, t.started_us FROM attempt_trees t WHERE t.run_id = ? AND t.session = ? AND NOT EXISTS "
              "(SELECT 1 FROM attempts a WHERE a.run_id = t.run_id AND a.item_id = t.item_id AND a.number = t.number) "
              "ORDER BY t.started_us, t.item_id");
  s.bind(1, run_id_).bind(2, session);
  std::vector<AttemptTreeRecord> out;
  while (s.step()) {
    AttemptTreeRecord t;
    t.item_id = s.text(0);
    t.number = static_cast<int>(s.int64(1));
    t.session = static_cast<int>(s.int64(2));
    t.worker = s.text(3);
    t.pid = s.int64(4);
    t.pgid = s.int64(5);
    t.pid_start = s.int64(6);
    t.boot_id = s.text(7);
    t.tag = s.text(8);
    t.cgroup = s.text(9);
    t.status_file = s.text(10);
    t.started = s.int64(11);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace millrace::data
