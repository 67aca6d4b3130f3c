// A recorded stellar parallel catch-up (stellar/supercluster's HistoryPubnetParallelCatchupV2):
// per range END/COUNT (END = last ledger, inclusive), the worker that ran it, its transaction
// apply time and its total wall time. Both the raw log's /metrics line and the parsed CSV give
// these entries (and the metrics set dumped from Redis); StellarRecording turns them into one
// run the same way, whatever their number:
// - items: one per range, id "END/COUNT", units = ledgers, range first = END - COUNT + 1 and
//   count = COUNT exactly as recorded. For the lowest range (6463/16320) first is -9856: the
//   recorded 320-ledger overlap reaches before the chain's first ledger, and the store keeps
//   the recorded numbers rather than clamping them. Plan order is tip first (END descending),
//   the order the deployment handed ranges out.
// - attempts: one succeeded attempt per entry, worker as recorded, duration = total_s, work
//   time = tx_apply_ms. A range listed several times was tried several times (re-queued after
//   its worker was lost, then finished by two workers): each entry is an attempt of the one
//   item, numbered by worker id (numerically when both are numbers), then duration, so the
//   numbers do not depend on the order a Redis set was dumped in. One END with two COUNTs, or
//   the same entry twice, is an Error naming the later entry and the earlier one.
//   The recording has no start times: each worker's ranges are laid back to back from t = 0 in
//   tip-first order (lay_back_to_back), so a worker's busy time and the run's makespan are
//   exact but individual start times are a reconstruction.
// The order is global (a /metrics line lists ranges in no order) but memory must not grow with
// the recording: the entries wait in a private temporary SQLite database on disk (SQLite
// deletes it when it is closed), which sorts them within its bounded page cache and spills to
// temporary files, and are then written to the sink in plan order, checked one range at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/importers/trace.h"
#include "data/importers/trace_sink.h"

struct sqlite3;

namespace millrace::data {
class Statement;
class Transaction;
}  // namespace millrace::data

namespace millrace::data::importers {

struct StellarEntry {
  std::string where;  // "file:line" or "file:line: entry N"
  Range range;
  std::string worker;
  std::optional<Micros> tx_apply;  // unset when the worker wrote "N/A" (metric not found)
  Micros total = 0;
};

// Whether tx_apply and total carry their "ms" and "s" units: the job monitor's /metrics
// response always does; lines read straight from the workers' Redis set may not (their
// worker.sh writes the duration as "123s" but tx_apply bare, or "N/A" when it found no metric).
enum class Suffixes { kRequired, kOptional };

// Parses one entry "END/COUNT|worker|tx_apply|total"; throws Error(where, ...) naming the
// problem (field count, COUNT, worker, a non-numeric or negative time).
StellarEntry parse_stellar_entry(const std::string& entry, const std::string& where, Suffixes suffixes);

// The entries of one recording, on disk until write().
class StellarRecording {
 public:
  // `input` names the recording in an error about the run as a whole.
  explicit StellarRecording(std::string input);
  StellarRecording(const StellarRecording&) = delete;
  StellarRecording& operator=(const StellarRecording&) = delete;
  ~StellarRecording();

  void add(const StellarEntry& entry);
  std::size_t size() const { return entries_; }

  // Adds the items and attempts to `sink` in plan order and lays them back to back; returns
  // the run's fields. Throws Error naming the first entry (in the recording's order) that no
  // retry explains. `on_item`, when given, sees each item as it is added.
  Run write(TraceSink& sink, const std::function<void(const WorkItem&)>& on_item = nullptr);

 private:
  std::string input_;
  std::string database_;  // names the temporary database in an error
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db_;
  std::unique_ptr<Transaction> adding_;  // the entries go in in one transaction
  std::unique_ptr<Statement> insert_;
  std::size_t entries_ = 0;
};

// The item of one range, named by its END/COUNT.
WorkItem end_count_item(const Range& range);

}  // namespace millrace::data::importers
