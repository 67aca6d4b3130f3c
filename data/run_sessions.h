// Who runs a real run, kept in the trace store (schema migrations 5 and 7): one session per
// millrace process that ran it, the live one holding the run's lease (owner identity and
// heartbeat), and the process tree of every attempt in flight with the file its exit status goes to. A run is owned by one live millrace at a time:
// claim() refuses a run whose live session's owner still runs, and takes over (saying why) one
// whose owner is gone; the sessions taken over are what a resume must clean up after, from the
// trees they recorded. The judgement of whether an owner runs is the caller's (it needs the
// process table); this module only keeps the records, each change in one short transaction.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/error.h"
#include "data/time.h"
#include "data/trace_store.h"

namespace millrace::data {

struct SessionRecord {
  int session = 0;            // assigned by claim()
  std::string host;
  std::int64_t pid = 0;
  std::int64_t pid_start = 0; // the process's start time, clock ticks since boot
  std::string boot_id;
  std::string tree_root;      // cgroup directory of the session's attempts ('' when none)
  std::string tree_tag;       // MILLRACE_TREE prefix of the session's attempts
  Micros started = 0;         // wall-clock micros since the epoch
  Micros heartbeat = 0;
  std::string state = "live"; // live, ended or swept
};

struct AttemptTreeRecord {
  std::string item_id;
  int number = 0;
  int session = 0;
  std::string worker;
  std::int64_t pid = 0;
  std::int64_t pgid = 0;
  std::int64_t pid_start = 0;
  std::string boot_id;
  std::string tag;
  std::string cgroup;
  std::string status_file;  // where the attempt's recorder writes its exit status ('' when none)
  Micros started = 0;
};

// Thrown by claim() when a live millrace owns the run.
class RunOwned : public Error {
 public:
  using Error::Error;
};

// Why a live session's owner is gone ("its process is gone", ...), or nullopt when it runs.
using OwnerGone = std::function<std::optional<std::string>(const SessionRecord& owner)>;

struct TakenOver {
  SessionRecord session;
  std::string why;
};

class RunSessions {
 public:
  RunSessions(TraceStore& store, std::int64_t run_id);

  // In one write transaction: every live session of the run is judged by `gone`; one whose
  // owner runs makes this throw RunOwned naming it (host, pid, since when, last heartbeat);
  // the others are taken over (listed in `taken_over`, left live until swept). Then `me` is
  // added as the live session; returns it with its number.
  SessionRecord claim(SessionRecord me, const OwnerGone& gone, std::vector<TakenOver>* taken_over);
  std::vector<SessionRecord> sessions() const;
  void set_trees(int session, const std::string& root, const std::string& tag);
  void heartbeat(int session, Micros at);
  void set_state(int session, const std::string& state);

  void add_tree(const AttemptTreeRecord& tree);
  // The trees `session` recorded whose attempt has no attempts row.
  std::vector<AttemptTreeRecord> unfinished_trees(int session) const;

 private:
  TraceStore& store_;
  std::int64_t run_id_;
  std::string label_;
};

// "2026-12-03 10:15:42 UTC" for wall-clock micros since the epoch.
std::string utc_text(Micros at);

}  // namespace millrace::data
