// The trace store: runs, their planned items and every recorded attempt, plus cost profiles,
// in one SQLite file (schema in data/schema.sql, versioned with PRAGMA user_version and
// migrated forward when a writer opens an older one). WAL mode; every multi-row write is one
// transaction, so a failed import or an interrupted run never leaves half its rows behind.
// Readers never wait for writers: a store opened for reading is opened read-only and nothing
// about opening it writes (read-only files and read-only mounts can be read).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "data/cost_profile.h"
#include "data/records.h"

struct sqlite3;

namespace millrace::data {

class TraceStore {
 public:
  // Opens the store at `path`, creating it (with the current schema) when missing. Throws Error
  // naming the path when the file is not a millrace store, is corrupt, or has a newer schema;
  // such a file is left untouched.
  static TraceStore open(const std::string& path);
  // Like open, but a missing file is an Error instead of a new store.
  static TraceStore open_existing(const std::string& path);
  // For commands that only read: opens read-only (SQLite mode=ro; on a read-only filesystem,
  // immutable), takes no lock a writer holds and never migrates (an older schema is read as it
  // is). Throws Error naming the path when it is missing, not a store, corrupt or newer.
  static TraceStore open_for_reading(const std::string& path);
  // An empty store of the current schema in memory, gone when closed: for a command that reads no
  // run and stores nothing (compare or plan with --no-record) but runs through the store's seams.
  static TraceStore in_memory();

  TraceStore(TraceStore&&) noexcept;
  TraceStore& operator=(TraceStore&&) noexcept;
  ~TraceStore();

  static int current_schema_version();
  int schema_version() const;
  const std::string& path() const { return path_; }
  // How long a write waits for another process's lock before it fails with StoreBusy.
  void set_busy_timeout(int milliseconds);

  // Adds a run with its items and attempts in one transaction; returns the new run id. A name
  // another run has is refused (check_new_run_name) and nothing is written.
  std::int64_t add_run(const Run& run, const std::vector<WorkItem>& items,
                       const std::vector<Attempt>& attempts);
  // For imports in progress (importers/staged_import.h, schema migration 4): a placeholder run
  // row to hold the import's items and attempts (hidden from readers while the import is
  // registered in staged_imports), and its publication: the run's fields set from `run` (run.id
  // is the hidden run) and the registration removed, in one short transaction.
  std::int64_t add_hidden_run();
  void publish_staged_import(std::int64_t import_id, const Run& run);
  // Appends attempts to an existing run (real runs record as they go), in one transaction.
  void add_attempts(std::int64_t run_id, const std::vector<Attempt>& attempts);
  void set_run_ended(std::int64_t run_id, Micros ended);
  // Node arrivals of a run (schema migration 12), keyed by node name: a node given again replaces
  // what was kept of it (a real run learns a node's ready time after its creation), in one
  // transaction. Throws Error naming the store when the run is missing (a hidden run of
  // an import in progress may have them).
  void put_node_arrivals(std::int64_t run_id, const std::vector<NodeArrival>& nodes);
  // Why a run that watched for node arrivals could not record them ("" clears it).
  void set_node_arrivals_unrecorded(std::int64_t run_id, const std::string& why);

  std::vector<Run> runs() const;
  Run run(std::int64_t run_id) const;                        // throws Error when missing
  // A run named by its id ("12") or its name; throws Error when missing or when the name is
  // shared by several runs (stores made before names were unique may hold such runs).
  std::int64_t find_run(const std::string& id_or_name) const;
  // The ids of the runs called `name`, in id order.
  std::vector<std::int64_t> runs_named(const std::string& name) const;
  // Run names are unique and UTF-8: throws Error naming the store, the name and the run that has
  // it when `name` is taken, suggesting another `option` (the command's option that names a new
  // run), and naming the byte when `name` is not UTF-8 (it is written to JSON).
  // Commands call it before they write anything; add_run and the staged import check it again.
  // The empty name (runs added through the API without one) is never taken.
  void check_new_run_name(const std::string& name, const std::string& option = "--name") const;
  // For names millrace makes up (a simulation's description, a run's default name): `name` when
  // no run has it, else the first of "name (2)", "name (3)", ... that none has.
  std::string unused_run_name(const std::string& name) const;
  // Reading checks what later arithmetic relies on (ranges fit in 64 bits, int fields fit,
  // attempts end after they start) and throws Error naming the run and item otherwise.
  std::vector<WorkItem> items(std::int64_t run_id) const;    // in plan order
  std::vector<Attempt> attempts(std::int64_t run_id) const;  // by start time, then item
  // By creation (then ready) time, unknown times first, then node name; empty for a store
  // read as it is from before migration 12.
  std::vector<NodeArrival> node_arrivals(std::int64_t run_id) const;
  std::string node_arrivals_unrecorded(std::int64_t run_id) const;
  std::int64_t count_rows(const std::string& table) const;   // for checks and tests
  // Rows of `table` (items, item_deps, item_requests, attempts or node_arrivals) that belong to one run.
  std::int64_t count_rows(const std::string& table, std::int64_t run_id) const;

  // Cost profiles, keyed by name (adding an existing name replaces it, in one transaction).
  void put_profile(const CostProfile& profile);
  CostProfile profile(const std::string& name) const;        // throws Error when missing
  std::vector<std::string> profile_names() const;

  // The run's timing table (data/timing_table.h): CSV rows, or JSON {"run": {...}, "rows": [...]}.
  void export_csv(std::int64_t run_id, std::ostream& out) const;
  void export_json(std::int64_t run_id, std::ostream& out) const;

  sqlite3* handle() const { return db_; }  // for modules that add their own tables

 private:
  TraceStore(std::string path, sqlite3* db);
  static TraceStore open_read_only(const std::string& path, const std::string& parameter);
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace millrace::data
