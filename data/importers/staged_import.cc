#include "data/importers/staged_import.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <map>
#include <vector>

#include "data/attempt_rows.h"
#include "data/error.h"
#include "data/importers/read_progress.h"
#include "data/item_rows.h"
#include "data/sqlite_db.h"

namespace millrace::data::importers {

namespace {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

bool process_gone(std::int64_t pid) { return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH; }

Micros wall_clock_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Runs `sql` (binding the run id as ?1) until it deletes fewer than kBatchRows rows, one
// transaction each.
void delete_in_batches(sqlite3* db, const std::string& path, const std::string& sql, std::int64_t run_id) {
  for (int deleted = static_cast<int>(kBatchRows); deleted >= static_cast<int>(kBatchRows);) {
    Transaction tx(db, path);
    Statement remove(db, path, sql);
    remove.bind(1, run_id);
    remove.run();
    deleted = sqlite3_changes(db);
    tx.commit();
  }
}

const std::string kLimit = " LIMIT " + std::to_string(kBatchRows) + ")";

void purge_sources(sqlite3* db, const std::string& path, std::int64_t run_id) {
  delete_in_batches(db, path,
                    "DELETE FROM staged_attempt_sources WHERE rowid IN (SELECT rowid FROM staged_attempt_sources "
                    "WHERE run_id = ?1" + kLimit, run_id);
}

// Deletes an unpublished import: its items in batches (their dependencies and attempts go with
// them), then its run and registration together.
void purge_import(sqlite3* db, const std::string& path, std::int64_t run_id) {
  delete_in_batches(db, path, "DELETE FROM items WHERE run_id = ?1 AND id IN (SELECT id FROM items WHERE run_id = ?1" + kLimit,
                    run_id);
  purge_sources(db, path, run_id);
  Transaction tx(db, path);
  Statement remove(db, path, "DELETE FROM runs WHERE id = ?");  // cascades to the registration
  remove.bind(1, run_id);
  remove.run();
  tx.commit();
}

// Removes the imports of this host whose process is gone, and sources left after a publish.
void remove_stale_imports(sqlite3* db, const std::string& path) {
  const std::string host = host_name();
  std::vector<std::int64_t> stale;
  {
    Statement s(db, path, "SELECT run_id, host, pid FROM staged_imports");
    while (s.step()) {
      if (s.text(1) == host && process_gone(s.int64(2))) stale.push_back(s.int64(0));
    }
  }
  for (std::int64_t run_id : stale) purge_import(db, path, run_id);
  std::vector<std::int64_t> published;
  {
    Statement s(db, path,
                "SELECT DISTINCT run_id FROM staged_attempt_sources WHERE run_id NOT IN (SELECT run_id FROM staged_imports)");
    while (s.step()) published.push_back(s.int64(0));
  }
  for (std::int64_t run_id : published) purge_sources(db, path, run_id);
}

}  // namespace

struct StagedImport::Statements {
  Statements(sqlite3* db, const std::string& path)
      : items(db, path),
        find_item(db, path, "SELECT 1 FROM items WHERE run_id = ? AND id = ?"),
        latest_attempt(db, path, "SELECT max(number) FROM attempts WHERE run_id = ? AND item_id = ?"),
        insert_attempt(db, path),
        insert_source(db, path,
                      "INSERT INTO staged_attempt_sources (run_id, item_id, number, source) VALUES (?, ?, ?, ?)"),
        source_of(db, path, "SELECT source FROM staged_attempt_sources WHERE run_id = ? AND item_id = ? AND number = ?") {}

  ItemRowWriter items;
  Statement find_item;
  Statement latest_attempt;
  AttemptRowWriter insert_attempt;
  Statement insert_source;
  Statement source_of;
};

StagedImport::StagedImport(TraceStore& store) : store_(store) {
  sqlite3* db = store_.handle();
  const std::string& path = store_.path();
  remove_stale_imports(db, path);
  {
    Transaction tx(db, path);
    run_id_ = store_.add_hidden_run();
    Statement insert(db, path, "INSERT INTO staged_imports (run_id, host, pid, started_us) VALUES (?, ?, ?, ?)");
    insert.bind(1, run_id_).bind(2, host_name()).bind(3, static_cast<std::int64_t>(::getpid()));
    insert.bind(4, wall_clock_micros());
    insert.run();
    id_ = sqlite3_last_insert_rowid(db);
    tx.commit();
  }
  statements_ = std::make_unique<Statements>(db, path);
}

StagedImport::~StagedImport() {
  if (published_) return;
  try {
    statements_.reset();
    purge_import(store_.handle(), store_.path(), run_id_);
  } catch (const Error&) {
    // The store is busy or failing: the run stays hidden, and the next import removes it.
  }
}

void StagedImport::note_span(const Attempt& attempt) {
  started_ = started_ ? std::min(*started_, attempt.start) : attempt.start;
  ended_ = std::max(ended_, attempt.end);
}

bool StagedImport::stored_item(const std::string& item_id) {
  Statement& find = statements_->find_item;
  find.bind(1, run_id_).bind(2, item_id);
  const bool found = find.step();
  find.reset();
  return found;
}

bool StagedImport::add_item(const WorkItem& item) {
  if (pending_.has_item(item.id) || stored_item(item.id)) return false;
  pending_.add_item(item);
  flush_when_full();
  return true;
}

bool StagedImport::has_item(const std::string& item_id) { return pending_.has_item(item_id) || stored_item(item_id); }

int StagedImport::latest_attempt(const std::string& item_id) {
  Statement& latest = statements_->latest_attempt;
  latest.bind(1, run_id_).bind(2, item_id);
  latest.step();
  const int stored = latest.is_null(0) ? 0 : static_cast<int>(latest.int64(0));  // written from ints
  latest.reset();
  return std::max(stored, pending_.latest_attempt(item_id));
}

void StagedImport::add_attempt(const Attempt& a, const std::string& where) {
  Statement& source = statements_->source_of;
  source.bind(1, run_id_).bind(2, a.item_id).bind(3, a.number);
  const std::optional<std::string> earlier = source.step() ? std::optional(source.text(0)) : std::nullopt;
  source.reset();
  if (earlier) throw duplicate_attempt(a, where, *earlier);
  pending_.add_attempt(a, where);
  note_span(a);
  flush_when_full();
}

void StagedImport::flush_when_full() {
  if (pending_.size() >= kBatchRows) flush();
}

void StagedImport::flush() {
  if (pending_.size() == 0) return;
  Transaction tx(store_.handle(), store_.path());
  const Trace& batch = pending_.trace();
  for (const WorkItem& item : batch.items) statements_->items.insert(run_id_, static_cast<std::int64_t>(items_++), item);
  for (const Attempt& a : batch.attempts) {
    statements_->insert_attempt.insert(run_id_, a);
    Statement& source = statements_->insert_source;
    source.bind(1, run_id_).bind(2, a.item_id).bind(3, a.number).bind(4, pending_.where_of(a));
    source.run();
    ++attempts_;
  }
  tx.commit();
  pending_.clear();
}

void StagedImport::lay_back_to_back(const std::string& input) {
  flush();
  sqlite3* db = store_.handle();
  const std::string& path = store_.path();
  struct Row {
    std::int64_t order;
    std::string item_id;
    int number;
    std::string worker;
    Micros duration;
  };
  Statement select(db, path,
                   "SELECT s.rowid, a.item_id, a.number, a.worker, a.end_us - a.start_us "
                   "FROM staged_attempt_sources s JOIN attempts a "
                   "ON a.run_id = s.run_id AND a.item_id = s.item_id AND a.number = s.number "
                   "WHERE s.run_id = ? AND s.rowid > ? ORDER BY s.rowid LIMIT ?");
  Statement update(db, path, "UPDATE attempts SET start_us = ?, end_us = ? WHERE run_id = ? AND item_id = ? AND number = ?");
  std::map<std::string, Micros> free_at;
  started_.reset();
  ended_ = 0;
  const ProgressReport laying = ScopedReadProgress::phase("laying attempts back to back", "attempts");
  std::int64_t laid_count = 0;
  for (std::int64_t after = 0;;) {
    std::vector<Row> chunk;
    select.bind(1, run_id_).bind(2, after).bind(3, static_cast<std::int64_t>(kBatchRows));
    while (select.step()) {
      chunk.push_back(Row{select.int64(0), select.text(1), static_cast<int>(select.int64(2)), select.text(3),
                          select.int64(4)});
    }
    select.reset();
    if (chunk.empty()) break;
    Transaction tx(db, path);
    for (const Row& row : chunk) {
      Micros& at = free_at[row.worker];
      Attempt laid;
      laid.start = at;
      laid.end = back_to_back_end(at, row.duration, row.worker, row.item_id, input);
      update.bind(1, laid.start).bind(2, laid.end).bind(3, run_id_).bind(4, row.item_id).bind(5, row.number);
      update.run();
      note_span(laid);
      at = laid.end;
    }
    tx.commit();
    laid_count += static_cast<std::int64_t>(chunk.size());
    if (laying) laying(laid_count, static_cast<std::int64_t>(attempts_));
    after = chunk.back().order;
  }
}

void StagedImport::add_node_arrivals(const std::vector<NodeArrival>& nodes) {
  if (!nodes.empty()) store_.put_node_arrivals(run_id_, nodes);
}

std::int64_t StagedImport::publish(const Run& run) {
  flush();
  statements_.reset();
  const ProgressReport publishing = ScopedReadProgress::phase("publishing the run", "steps");
  if (publishing) publishing(0, 1);
  Run published = run;
  published.id = run_id_;
  if (started_) {
    published.started = *started_;
    published.ended = ended_;
  }
  store_.publish_staged_import(id_, published);
  published_ = true;
  try {
    purge_sources(store_.handle(), store_.path(), run_id_);
  } catch (const Error&) {
    // Left for the next import, which removes the sources of published runs.
  }
  if (publishing) publishing(1, 1);
  return run_id_;
}

}  // namespace millrace::data::importers
