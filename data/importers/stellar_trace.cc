#include "data/importers/stellar_trace.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/importers/fields.h"
#include "data/sqlite_db.h"
#include "data/text_excerpt.h"

namespace millrace::data::importers {

namespace {

std::string_view without_suffix(std::string_view text, std::string_view suffix, Suffixes suffixes,
                                const std::string& where, const char* what) {
  if (text.size() <= suffix.size() || text.substr(text.size() - suffix.size()) != suffix) {
    if (suffixes == Suffixes::kOptional) return text;
    throw Error(where, std::string(what) + " " + excerpt(text) + " lacks its '" + std::string(suffix) + "' unit");
  }
  return text.substr(0, text.size() - suffix.size());
}

bool numeric(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The order of one range's tries by worker id, whatever order the recording lists them in (a
// Redis set has none): numerically when both are numbers, as text otherwise. A SQLite
// collation (the ORDER BY of StellarRecording::write).
int worker_order(void*, int a_size, const void* a_data, int b_size, const void* b_data) {
  const std::string_view a(static_cast<const char*>(a_data), static_cast<std::size_t>(a_size));
  const std::string_view b(static_cast<const char*>(b_data), static_cast<std::size_t>(b_size));
  if (numeric(a) && numeric(b) && a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  const int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

// One entry as read back, in plan order.
struct Row {
  std::int64_t order = 0;  // the entry's place in the recording
  StellarEntry entry;
};

// What no retry explains, found one range (END) at a time in plan order: one END with two
// COUNTs, and the same entry twice (a Redis set holds each once). Reports the violation whose
// later entry comes first in the recording, naming it and the earlier one, as a check in the
// recording's order would.
class RetryCheck {
 public:
  void add(const Row& row) {
    if (!first_ || row.entry.range.last() != first_->entry.range.last()) {
      end_range();
      first_ = row;
    } else {
      if (previous_.entry.worker == row.entry.worker && previous_.entry.tx_apply == row.entry.tx_apply &&
          previous_.entry.total == row.entry.total) {
        note(row.order, false,
             Error(row.entry.where, "repeats the entry at " + previous_.entry.where + " (each try is recorded once)"));
      }
      // first_: the range's earliest entry; other_count_: the earliest with another COUNT.
      if (row.order < first_->order) {
        if (row.entry.range.count != first_->entry.range.count) other_count_ = first_;
        first_ = row;
      } else if (row.entry.range.count != first_->entry.range.count &&
                 (!other_count_ || row.order < other_count_->order)) {
        other_count_ = row;
      }
    }
    previous_ = row;
  }

  // Throws the first violation, if any.
  void finish() {
    end_range();
    if (violation_) throw violation_->second;
  }

 private:
  void end_range() {
    if (other_count_) {
      const StellarEntry& e = other_count_->entry;
      note(other_count_->order, true, Error(e.where, "range " + e.range.end_count() + " disagrees with " +
                                                   first_->entry.range.end_count() + " at " + first_->entry.where +
                                                   ": one END, two COUNTs"));
    }
    other_count_.reset();
  }
  // A duplicate and a COUNT clash at the same entry: the clash is reported (checked first).
  void note(std::int64_t order, bool clash, Error error) {
    if (!violation_ || order < violation_->first || (order == violation_->first && clash)) {
      violation_.emplace(order, std::move(error));
    }
  }

  std::optional<Row> first_;
  std::optional<Row> other_count_;
  Row previous_;
  std::optional<std::pair<std::int64_t, Error>> violation_;
};

}  // namespace

StellarEntry parse_stellar_entry(const std::string& entry, const std::string& where, Suffixes suffixes) {
  std::vector<std::string_view> fields;
  std::string_view rest = entry;
  for (std::size_t bar; (bar = rest.find('|')) != std::string_view::npos; rest.remove_prefix(bar + 1)) {
    fields.push_back(rest.substr(0, bar));
  }
  fields.push_back(rest);
  if (fields.size() != 4) {
    throw Error(where, "bad field count: " + std::to_string(fields.size()) + " fields in " + excerpt(entry) +
                           ", expected END/COUNT|worker|tx_apply_ms|total_s");
  }
  StellarEntry e;
  e.where = where;
  e.range = parse_end_count(fields[0], where);
  if (fields[1].empty()) throw Error(where, "empty worker");
  e.worker = std::string(fields[1]);
  if (suffixes == Suffixes::kRequired || fields[2] != "N/A") {
    e.tx_apply = parse_millis(without_suffix(fields[2], "ms", suffixes, where, "tx_apply"), where, "tx_apply_ms");
  }
  e.total = parse_seconds(without_suffix(fields[3], "s", suffixes, where, "total"), where, "total_s (duration)");
  return e;
}

WorkItem end_count_item(const Range& range) {
  WorkItem item;
  item.id = range.end_count();
  item.range = range;
  return item;
}

StellarRecording::StellarRecording(std::string input)
    : input_(std::move(input)), database_("the temporary sort of " + input_), db_(nullptr, sqlite3_close) {
  sqlite3* db = nullptr;
  // An empty name: a private temporary database on disk, deleted when it is closed.
  const int rc = sqlite3_open_v2("", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  db_.reset(db);
  check_sqlite(rc, db, database_, "open");
  check_sqlite(sqlite3_create_collation_v2(db, "worker_order", SQLITE_UTF8, nullptr, worker_order, nullptr), db,
               database_, "collation");
  exec_sql(db, database_,
           "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192;"
           "CREATE TABLE entries (last INTEGER NOT NULL, count INTEGER NOT NULL, worker TEXT NOT NULL, "
           "tx_apply INTEGER, total INTEGER NOT NULL, place TEXT NOT NULL)");
  adding_ = std::make_unique<Transaction>(db, database_);
  insert_ = std::make_unique<Statement>(db, database_, "INSERT INTO entries VALUES (?, ?, ?, ?, ?, ?)");
}

StellarRecording::~StellarRecording() {
  insert_.reset();
  adding_.reset();
}

void StellarRecording::add(const StellarEntry& e) {
  insert_->bind(1, e.range.last()).bind(2, e.range.count).bind(3, e.worker).bind(4, e.tx_apply);
  insert_->bind(5, e.total).bind(6, e.where);
  insert_->run();
  ++entries_;
}

Run StellarRecording::write(TraceSink& sink, const std::function<void(const WorkItem&)>& on_item) {
  insert_.reset();
  adding_->commit();
  adding_.reset();
  sqlite3* db = db_.get();
  Statement select(db, database_,
                   "SELECT rowid, last, count, worker, tx_apply, total, place FROM entries "
                   "ORDER BY last DESC, worker COLLATE worker_order, total, tx_apply, rowid");
  RetryCheck check;
  std::string item_id;
  int number = 0;
  std::map<std::string, Micros> free_at;  // each worker's attempts laid back to back from 0
  std::optional<Error> overflow;          // reported after what no retry explains
  while (select.step()) {
    Row row;
    row.order = select.int64(0);
    StellarEntry& e = row.entry;
    const std::int64_t last = select.int64(1);
    e.range = {last - select.int64(2) + 1, select.int64(2)};  // read as END/COUNT, so it fits
    e.worker = select.text(3);
    e.tx_apply = select.optional_int64(4);
    e.total = select.int64(5);
    e.where = select.text(6);
    check.add(row);
    const WorkItem item = end_count_item(e.range);
    if (item.id != item_id) {
      item_id = item.id;
      number = 0;
      sink.add_item(item);
      if (on_item) on_item(item);
    }
    Attempt a;
    a.item_id = item.id;
    a.number = ++number;
    a.worker = e.worker;
    a.work_time = e.tx_apply;
    Micros& at = free_at[a.worker];
    try {
      a.start = at;
      a.end = back_to_back_end(at, e.total, a.worker, a.item_id, input_);
      at = a.end;
    } catch (const Error& error) {
      if (!overflow) overflow = error;
    }
    sink.add_attempt(a, e.where);
  }
  check.finish();
  if (overflow) throw *overflow;
  Statement workers(db, database_, "SELECT count(DISTINCT worker) FROM entries");
  workers.step();
  Run run;
  run.source = RunSource::kRecorded;
  run.units = "ledgers";
  run.partitioner = "uniform";
  run.policy = "fixed-pool";
  run.parameters = nlohmann::json{{"workers", workers.int64(0)},
                                  {"order", "tip-first"},
                                  {"start_times", "reconstructed: each worker's ranges back to back from 0, "
                                                  "tip first"}}
                       .dump();
  return run;
}

}  // namespace millrace::data::importers
