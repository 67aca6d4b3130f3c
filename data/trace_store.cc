#include "data/trace_store.h"

#include <sqlite3.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <ostream>
#include <thread>

#include <nlohmann/json.hpp>

#include "data/attempt_rows.h"
#include "data/checked_numbers.h"
#include "data/csv.h"
#include "data/error.h"
#include "data/item_rows.h"
#include "data/json_output.h"
#include "data/schema_sql.h"
#include "data/sqlite_db.h"
#include "data/text_excerpt.h"
#include "data/timing_table.h"

namespace millrace::data {

namespace {

constexpr int kBusyTimeoutMs = 30'000;
constexpr std::string_view kMigrationMarker = "\n-- migration ";

// schema.sql split at the lines that start with its "-- migration N" markers: element N-1 takes
// a store to version N. A marker quoted elsewhere in a line is not one.
const std::vector<std::string>& migrations() {
  static const std::vector<std::string> steps = [] {
    std::vector<std::string> out;
    std::string_view sql = kSchemaSql;
    std::size_t at = sql.find(kMigrationMarker);
    while (at != std::string_view::npos) {
      ++at;  // past the newline
      std::size_t next = sql.find(kMigrationMarker, at);
      out.emplace_back(sql.substr(at, next == std::string_view::npos ? sql.size() - at : next - at));
      at = next;
    }
    return out;
  }();
  return steps;
}

// Rejects an existing non-empty file that is not SQLite before SQLite touches it.
void check_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;  // missing: it will be created
  std::array<char, 16> header{};
  in.read(header.data(), header.size());
  if (in.gcount() == 0) return;  // empty file: SQLite treats it as an empty database
  if (in.gcount() < static_cast<std::streamsize>(header.size()) ||
      std::memcmp(header.data(), "SQLite format 3", header.size()) != 0) {
    throw Error(path, "not a millrace trace store (not an SQLite database); file left untouched");
  }
}

std::int64_t single_int(sqlite3* db, const std::string& input, std::string_view sql) {
  Statement s(db, input, sql);
  if (!s.step()) throw Error(input, "no result for " + std::string(sql));
  return s.int64(0);
}

std::string single_text(sqlite3* db, const std::string& input, std::string_view sql) {
  Statement s(db, input, sql);
  if (!s.step()) throw Error(input, "no result for " + std::string(sql));
  return s.text(0);
}

// An SQLite URI naming `path` (absolute, with the bytes a URI may not hold as %XX).
std::string file_uri(const std::string& path) {
  static const char* const kHex = "0123456789ABCDEF";
  std::string uri = "file:";
  for (char c : std::filesystem::absolute(path).string()) {
    auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || std::strchr("/-._~", c) != nullptr) {
      uri += c;
    } else {
      uri += {'%', kHex[byte >> 4], kHex[byte & 15]};
    }
  }
  return uri;
}

bool on_read_only_filesystem(const std::string& path) {
  struct statvfs fs {};
  return statvfs(path.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0;
}

std::filesystem::path directory_of(const std::string& path) {
  const std::filesystem::path absolute = std::filesystem::absolute(path);
  return absolute.parent_path();
}

// Why a writer cannot write the store at `path` (or create it there), "" when it can: a
// read-only mount, a file without write permission, or a directory where SQLite cannot make the
// write-ahead log and its index beside the store.
std::string read_only_reason(const std::string& path) {
  std::error_code ignored;
  const bool exists = std::filesystem::exists(path, ignored);
  const std::string dir = directory_of(path).string();
  if (on_read_only_filesystem(exists ? path : dir)) return "on a read-only filesystem";
  if (exists && ::access(path.c_str(), W_OK) != 0) return "the file is not writable";
  const bool side_files = ::access((path + "-wal").c_str(), W_OK) == 0 && ::access((path + "-shm").c_str(), W_OK) == 0;
  if (::access(dir.c_str(), W_OK) != 0 && !side_files) {
    return "its directory " + dir + " is not writable (a store being written needs its -wal and -shm files beside it)";
  }
  return "";
}

// A store whose write-ahead log holds changes not yet in the file: read as immutable, those
// changes would be missed.
bool has_unmerged_log(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path + "-wal", error);
  return !error && size > 0;
}

// Switching a store to WAL takes an exclusive lock that SQLite does not wait for through the busy
// handler: when other processes open the same new store at once, the switch is retried here, for
// as long as the busy timeout.
void switch_to_wal(sqlite3* db, const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    try {
      if (single_text(db, path, "PRAGMA journal_mode = WAL") != "wal") throw Error(path, "cannot switch to WAL mode");
      return;
    } catch (const StoreBusy&) {
      if (std::chrono::steady_clock::now() >= deadline) throw;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(100));
  }
}

// Read-only checks on an opened file: schema version, that it is a millrace store, integrity.
int check_existing(sqlite3* db, const std::string& path) {
  int version = 0;
  int tables = 0;
  try {
    // One statement, so one snapshot: read apart, another process creating the store could
    // commit in between and its new tables be seen without its version.
    Statement s(db, path,
                "SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)");
    if (!s.step()) throw Error(path, "no schema version");
    version = static_cast<int>(s.int64(0));
    tables = static_cast<int>(s.int64(1));
  } catch (const StoreFull&) {
    throw;
  } catch (const Error& e) {
    throw Error(path, "unreadable or corrupt store (" + e.problem() + "); file left untouched");
  }
  int current = TraceStore::current_schema_version();
  if (version > current) {
    throw Error(path, "schema version " + std::to_string(version) + " is newer than this millrace supports (" +
                          std::to_string(current) + "); file left untouched");
  }
  if (version == 0 && tables > 0) {
    throw Error(path, "not a millrace trace store (SQLite file without the millrace schema); file left untouched");
  }
  if (tables > 0) {
    std::string verdict;
    try {
      Statement check(db, path, "PRAGMA quick_check(1)");
      verdict = check.step() ? check.text(0) : "no verdict";
    } catch (const Error& e) {
      verdict = e.problem();
    }
    if (verdict != "ok") throw Error(path, "corrupt store (" + verdict + "); file left untouched");
  }
  return version;
}

void migrate(sqlite3* db, const std::string& path) {
  Transaction tx(db, path);
  int version = static_cast<int>(single_int(db, path, "PRAGMA user_version"));  // re-read under the lock
  const auto& steps = migrations();
  for (int v = version; v < static_cast<int>(steps.size()); ++v) exec_sql(db, path, steps[v].c_str());
  if (version < static_cast<int>(steps.size())) {
    exec_sql(db, path, ("PRAGMA user_version = " + std::to_string(steps.size())).c_str());
  }
  tx.commit();
}

constexpr int kRequestsSchema = 8;  // migration 8 adds item_requests
constexpr int kNodeArrivalsSchema = 12;  // migration 12 adds node arrivals and unschedulable_us
constexpr int kNodeDeparturesSchema = 13;  // migration 13 adds their departures and capacity types

std::string run_label(std::int64_t run_id) { return "run " + std::to_string(run_id); }

constexpr const char* kRunColumns =
    "SELECT id, name, source, units, partitioner, policy, parameters, started_us, ended_us FROM runs ";

// Runs of imports still in progress (importers/staged_import.h) are hidden from every reader.
constexpr const char* kVisible = "id NOT IN (SELECT run_id FROM staged_imports) ";

Run read_run(const Statement& s, const std::string& input) {
  Run r;
  r.id = s.int64(0);
  r.name = s.text(1);
  r.source = run_source_from_string(s.text(2), input);
  r.units = s.text(3);
  r.partitioner = s.text(4);
  r.policy = s.text(5);
  r.parameters = s.text(6);
  r.started = s.int64(7);
  r.ended = s.int64(8);
  return r;
}

void insert_attempts(sqlite3* db, const std::string& path, std::int64_t run_id, const std::vector<Attempt>& attempts) {
  AttemptRowWriter insert(db, path);
  // A finished attempt's process tree is no longer in flight (run_sessions.h).
  Statement forget_tree(db, path, "DELETE FROM attempt_trees WHERE run_id = ? AND item_id = ? AND number = ?");
  for (const auto& a : attempts) {
    try {
      insert.insert(run_id, a);
      forget_tree.bind(1, run_id).bind(2, a.item_id).bind(3, a.number);
      forget_tree.run();
    } catch (const Error& e) {
      throw Error(path, run_label(run_id) + ": cannot add attempt " + std::to_string(a.number) + " of item '" +
                            a.item_id + "': " + e.problem());
    }
  }
}

std::int64_t insert_run(sqlite3* db, const std::string& path, const Run& run) {
  require_utf8(run.name, "run name", path);
  require_utf8(run.units, "units", path);
  Statement insert(db, path,
                   "INSERT INTO runs (name, source, units, partitioner, policy, parameters, started_us, ended_us) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  insert.bind(1, run.name).bind(2, to_string(run.source)).bind(3, run.units).bind(4, run.partitioner);
  insert.bind(5, run.policy).bind(6, run.parameters).bind(7, run.started).bind(8, run.ended);
  insert.run();
  return sqlite3_last_insert_rowid(db);
}

// Stored values are checked before arithmetic relies on them (a range's last unit, an int
// field): a row written by another program, or damaged, is an Error naming the run and item.
std::optional<Range> stored_range(const Statement& s, int first_column, const std::string& path,
                                  std::int64_t run_id, const std::string& item_id) {
  if (s.is_null(first_column)) return std::nullopt;
  auto range = range_from_first_count(s.int64(first_column), s.int64(first_column + 1));
  if (!range) {
    throw Error(path, run_label(run_id) + ": item " + excerpt(item_id) + " has an invalid stored range (first " +
                          std::to_string(s.int64(first_column)) + ", count " +
                          std::to_string(s.int64(first_column + 1)) + "): corrupt row");
  }
  return range;
}

int stored_int(const Statement& s, int column, const char* what, const std::string& path, std::int64_t run_id,
               const std::string& item_id) {
  auto value = to_int(s.int64(column));
  if (!value) {
    throw Error(path, run_label(run_id) + ": item " + excerpt(item_id) + " has " + what + " " +
                          std::to_string(s.int64(column)) + " beyond an int: corrupt row");
  }
  return *value;
}

void check_bins(const CostProfile& profile) {
  for (std::size_t i = 0; i < profile.bins.size(); ++i) {
    const auto& bin = profile.bins[i];
    if (bin.range.count <= 0) throw Error("profile " + profile.name, "bin " + std::to_string(i) + " is empty");
    if (i > 0 && bin.range.first != profile.bins[i - 1].range.end()) {
      throw Error("profile " + profile.name, "bin " + std::to_string(i) + " does not start where bin " +
                                                 std::to_string(i - 1) + " ends");
    }
  }
}

}  // namespace

TraceStore TraceStore::open(const std::string& path) {
  check_header(path);
  std::error_code ignored;
  if (const std::filesystem::path dir = directory_of(path); !std::filesystem::is_directory(dir, ignored)) {
    throw Error(path, "no such directory " + dir.string() + " to make the store in (create it first)");
  }
  if (const std::string reason = read_only_reason(path); !reason.empty()) {
    throw Error(path, "read-only store (" + reason + "): this command writes to it; commands that only read it (runs, "
                      "show, export, fit) work as they are");
  }
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  TraceStore store(path, raw);  // owns the handle from here, even on failure
  check_sqlite(rc, raw, path, "cannot open");
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  int version = check_existing(raw, path);
  // From here on the file is known to be a healthy store of this or an older version. Nothing
  // below takes the write lock unless the store needs it (new, or an older schema).
  if (single_text(raw, path, "PRAGMA journal_mode") != "wal") switch_to_wal(raw, path);
  // NORMAL is WAL's recommended level: a crash can lose the last commits but never corrupts.
  exec_sql(raw, path, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON");
  if (version < current_schema_version()) migrate(raw, path);
  return store;
}

TraceStore TraceStore::in_memory() {
  const std::string path = ":memory:";
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  TraceStore store(path, raw);
  check_sqlite(rc, raw, path, "cannot open");
  exec_sql(raw, path, "PRAGMA foreign_keys = ON");
  migrate(raw, path);
  return store;
}

TraceStore TraceStore::open_existing(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error(path, "no such trace store");
  return open(path);
}

TraceStore TraceStore::open_for_reading(const std::string& path) {
  if (!std::filesystem::exists(path)) throw Error(path, "no such trace store");
  std::error_code ignored;
  if (std::filesystem::is_regular_file(path, ignored) && std::filesystem::file_size(path, ignored) == 0) {
    throw Error(path, "an empty file, no millrace store (`millrace import` or `millrace run` makes one)");
  }
  check_header(path);
  try {
    return open_read_only(path, "mode=ro");
  } catch (const StoreFull&) {
    throw;
  } catch (const Error&) {
    // A WAL store on a read-only mount or in a read-only directory: its shared-memory index
    // cannot be made, and no writer can be at work without one, so SQLite may read the file as
    // immutable; unless the write-ahead log holds changes, which only the index would find.
    if (read_only_reason(path).empty()) throw;
    if (has_unmerged_log(path)) {
      throw Error(path, "read-only store whose write-ahead log (" + path +
                            "-wal) holds changes that cannot be read without its index, which cannot be made here; "
                            "copy the store with its -wal file to a writable place and read the copy");
    }
  }
  return open_read_only(path, "immutable=1");
}

TraceStore TraceStore::open_read_only(const std::string& path, const std::string& parameter) {
  sqlite3* raw = nullptr;
  std::string uri = file_uri(path) + "?" + parameter;
  int rc = sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  TraceStore store(path, raw);
  check_sqlite(rc, raw, path, "cannot open");
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  if (check_existing(raw, path) == 0) {
    throw Error(path, "no millrace store (an SQLite database without tables; `millrace import` or `millrace run` "
                      "makes one)");
  }
  return store;
}

void TraceStore::set_busy_timeout(int milliseconds) { sqlite3_busy_timeout(db_, milliseconds); }

TraceStore::TraceStore(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

TraceStore::TraceStore(TraceStore&& other) noexcept : path_(std::move(other.path_)), db_(other.db_) {
  other.db_ = nullptr;
}

TraceStore& TraceStore::operator=(TraceStore&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    path_ = std::move(other.path_);
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}

TraceStore::~TraceStore() { sqlite3_close_v2(db_); }

int TraceStore::current_schema_version() { return static_cast<int>(migrations().size()); }

int TraceStore::schema_version() const { return static_cast<int>(single_int(db_, path_, "PRAGMA user_version")); }

std::int64_t TraceStore::add_run(const Run& run, const std::vector<WorkItem>& items,
                                 const std::vector<Attempt>& attempts) {
  Transaction tx(db_, path_);
  check_new_run_name(run.name);
  std::int64_t run_id = insert_run(db_, path_, run);

  ItemRowWriter writer(db_, path_);
  std::int64_t position = 0;
  for (const auto& item : items) {
    try {
      writer.insert(run_id, position++, item);
    } catch (const Error& e) {
      throw Error(path_, "run '" + run.name + "': cannot add item '" + item.id + "': " + e.problem());
    }
  }
  insert_attempts(db_, path_, run_id, attempts);
  tx.commit();
  return run_id;
}

std::int64_t TraceStore::add_hidden_run() {
  Run placeholder;
  placeholder.source = RunSource::kImported;
  return insert_run(db_, path_, placeholder);
}

void TraceStore::publish_staged_import(std::int64_t import_id, const Run& run) {
  Transaction tx(db_, path_);
  check_new_run_name(run.name);
  require_utf8(run.units, "units", path_);
  Statement update(db_, path_,
                   "UPDATE runs SET name = ?, source = ?, units = ?, partitioner = ?, policy = ?, parameters = ?, "
                   "started_us = ?, ended_us = ? WHERE id = ?");
  update.bind(1, run.name).bind(2, to_string(run.source)).bind(3, run.units).bind(4, run.partitioner);
  update.bind(5, run.policy).bind(6, run.parameters).bind(7, run.started).bind(8, run.ended).bind(9, run.id);
  update.run();
  if (sqlite3_changes(db_) != 1) throw Error(path_, "no hidden " + run_label(run.id) + " to publish");
  Statement unregister(db_, path_, "DELETE FROM staged_imports WHERE id = ?");
  unregister.bind(1, import_id);
  unregister.run();
  tx.commit();
}

void TraceStore::add_attempts(std::int64_t run_id, const std::vector<Attempt>& attempts) {
  Transaction tx(db_, path_);
  run(run_id);
  insert_attempts(db_, path_, run_id, attempts);
  tx.commit();
}

void TraceStore::put_node_arrivals(std::int64_t run_id, const std::vector<NodeArrival>& nodes) {
  Transaction tx(db_, path_);  // a missing run is refused by the row's foreign key
  Statement put(db_, path_,
                "INSERT OR REPLACE INTO node_arrivals (run_id, node, pool, created_us, ready_us, departed_us, "
                "capacity_type, present_at_start) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  for (const NodeArrival& n : nodes) {
    put.bind(1, run_id).bind(2, n.node).bind(3, n.pool).bind(4, n.created).bind(5, n.ready).bind(6, n.departed);
    put.bind(7, n.capacity_type).bind(8, static_cast<std::int64_t>(n.present_at_start));
    put.run();
  }
  tx.commit();
}

void TraceStore::set_node_arrivals_unrecorded(std::int64_t run_id, const std::string& why) {
  Statement update(db_, path_, "UPDATE runs SET node_arrivals_unrecorded = ? WHERE id = ?");
  update.bind(1, why).bind(2, run_id);
  update.run();
  if (sqlite3_changes(db_) == 0) throw Error(path_, "no " + run_label(run_id));
}

void TraceStore::set_run_ended(std::int64_t run_id, Micros ended) {
  Statement update(db_, path_, "UPDATE runs SET ended_us = ? WHERE id = ?");
  update.bind(1, ended).bind(2, run_id);
  update.run();
  if (sqlite3_changes(db_) == 0) throw Error(path_, "no " + run_label(run_id));
}

std::vector<Run> TraceStore::runs() const {
  Statement s(db_, path_, std::string(kRunColumns) + "WHERE " + kVisible + "ORDER BY id");
  std::vector<Run> out;
  while (s.step()) out.push_back(read_run(s, path_));
  return out;
}

Run TraceStore::run(std::int64_t run_id) const {
  Statement s(db_, path_, std::string(kRunColumns) + "WHERE id = ? AND " + kVisible);
  s.bind(1, run_id);
  if (!s.step()) throw Error(path_, "no " + run_label(run_id));
  return read_run(s, path_);
}

std::int64_t TraceStore::find_run(const std::string& id_or_name) const {
  std::int64_t id = 0;
  const char* end = id_or_name.data() + id_or_name.size();
  auto [ptr, ec] = std::from_chars(id_or_name.data(), end, id);
  if (ec == std::errc() && ptr == end) return run(id).id;
  const std::vector<std::int64_t> ids = runs_named(id_or_name);
  if (ids.empty()) throw Error(path_, "no run with id or name '" + id_or_name + "'");
  if (ids.size() > 1) {
    std::string list;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      list += (i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ") + std::to_string(ids[i]);
    }
    throw Error(path_, "run name '" + id_or_name + "' matches runs " + list + "; name the run by its id");
  }
  return ids.front();
}

std::vector<std::int64_t> TraceStore::runs_named(const std::string& name) const {
  Statement s(db_, path_, std::string("SELECT id FROM runs WHERE name = ? AND ") + kVisible + "ORDER BY id");
  s.bind(1, name);
  std::vector<std::int64_t> ids;
  while (s.step()) ids.push_back(s.int64(0));
  return ids;
}

void TraceStore::check_new_run_name(const std::string& name, const std::string& option) const {
  require_utf8(name, "run name", path_);
  if (name.empty()) return;  // an unnamed run (made through the API) is found by id alone
  const std::vector<std::int64_t> taken = runs_named(name);
  if (taken.empty()) return;
  throw Error(path_, "a run named '" + name + "' is already in this store (" + run_label(taken.front()) +
                         "): give the new run another " + option);
}

std::string TraceStore::unused_run_name(const std::string& name) const {
  std::string unused = name;
  for (int repeat = 2; !runs_named(unused).empty(); ++repeat) unused = name + " (" + std::to_string(repeat) + ")";
  return unused;
}

std::vector<WorkItem> TraceStore::items(std::int64_t run_id) const {
  std::map<std::string, std::vector<std::string>> deps;
  Statement d(db_, path_, "SELECT item_id, depends_on FROM item_deps WHERE run_id = ? ORDER BY item_id, position");
  d.bind(1, run_id);
  while (d.step()) deps[d.text(0)].push_back(d.text(1));
  std::map<std::string, Quantities> requests;
  if (schema_version() >= kRequestsSchema) {  // a store read as it is may predate requests
    Statement r(db_, path_, "SELECT item_id, resource, milli FROM item_requests WHERE run_id = ?");
    r.bind(1, run_id);
    while (r.step()) requests[r.text(0)][r.text(1)] = r.int64(2);
  }

  Statement s(db_, path_,
              "SELECT id, range_first, range_count, type, payload, priority, submit_at_us, predicted_us "
              "FROM items WHERE run_id = ? ORDER BY position");
  s.bind(1, run_id);
  std::vector<WorkItem> out;
  while (s.step()) {
    WorkItem item;
    item.id = s.text(0);
    item.range = stored_range(s, 1, path_, run_id, item.id);
    item.type = s.text(3);
    item.payload = s.text(4);
    item.priority = stored_int(s, 5, "priority", path_, run_id, item.id);
    item.submit_at = s.int64(6);
    item.predicted = s.int64(7);
    if (auto found = deps.find(item.id); found != deps.end()) item.depends_on = std::move(found->second);
    if (auto found = requests.find(item.id); found != requests.end()) item.requests = std::move(found->second);
    out.push_back(std::move(item));
  }
  return out;
}

std::vector<NodeArrival> TraceStore::node_arrivals(std::int64_t run_id) const {
  std::vector<NodeArrival> out;
  if (schema_version() < kNodeArrivalsSchema) return out;  // a store read as it is may predate them
  const std::string departures = schema_version() >= kNodeDeparturesSchema
                                     ? "departed_us, capacity_type, present_at_start"
                                     : "NULL, '', 0";
  Statement s(db_, path_,
              "SELECT node, pool, created_us, ready_us, " + departures +
                  " FROM node_arrivals WHERE run_id = ? ORDER BY created_us, ready_us, node");
  s.bind(1, run_id);
  while (s.step()) {
    out.push_back(NodeArrival{s.text(0), s.text(1), s.optional_int64(2), s.optional_int64(3), s.optional_int64(4),
                              s.text(5), s.int64(6) != 0});
  }
  return out;
}

std::string TraceStore::node_arrivals_unrecorded(std::int64_t run_id) const {
  if (schema_version() < kNodeArrivalsSchema) return "";
  Statement s(db_, path_, "SELECT node_arrivals_unrecorded FROM runs WHERE id = ?");
  s.bind(1, run_id);
  if (!s.step()) throw Error(path_, "no " + run_label(run_id));
  return s.text(0);
}

std::vector<Attempt> TraceStore::attempts(std::int64_t run_id) const {
  const std::string unschedulable = schema_version() >= kNodeArrivalsSchema ? "unschedulable_us" : "NULL";
  Statement s(db_, path_,
              "SELECT item_id, number, worker, start_us, end_us, outcome, exit_code, failure_reason, work_time_us, "
              "submitted_us, placed_us, node, " + unschedulable +
                  " FROM attempts WHERE run_id = ? ORDER BY start_us, item_id, number");
  s.bind(1, run_id);
  std::vector<Attempt> out;
  while (s.step()) {
    Attempt a;
    a.item_id = s.text(0);
    a.number = stored_int(s, 1, "attempt number", path_, run_id, a.item_id);
    a.worker = s.text(2);
    a.start = s.int64(3);
    a.end = s.int64(4);
    a.outcome = outcome_from_string(s.text(5), path_);
    a.exit_code = stored_int(s, 6, "exit code", path_, run_id, a.item_id);
    if (a.end < a.start) {
      throw Error(path_, run_label(run_id) + ": attempt " + std::to_string(a.number) + " of item " + excerpt(a.item_id) +
                             " ends before it starts: corrupt row");
    }
    a.failure_reason = s.text(7);
    a.work_time = s.optional_int64(8);
    a.submitted = s.optional_int64(9);
    a.placed = s.optional_int64(10);
    a.node = s.text(11);
    a.unschedulable = s.optional_int64(12);
    out.push_back(std::move(a));
  }
  return out;
}

std::int64_t TraceStore::count_rows(const std::string& table) const {
  for (const char* known : {"runs", "items", "item_deps", "item_requests", "attempts", "profiles", "profile_bins", "staged_imports",
                            "staged_attempt_sources", "node_arrivals"}) {
    if (table == known) return single_int(db_, path_, "SELECT count(*) FROM " + table);
  }
  throw Error(path_, "no table '" + table + "'");
}

std::int64_t TraceStore::count_rows(const std::string& table, std::int64_t run_id) const {
  for (const char* known : {"items", "item_deps", "item_requests", "attempts", "node_arrivals"}) {
    if (table != known) continue;
    Statement s(db_, path_, "SELECT count(*) FROM " + table + " WHERE run_id = ?");
    s.bind(1, run_id);
    s.step();
    return s.int64(0);
  }
  throw Error(path_, "no per-run table '" + table + "'");
}

void TraceStore::put_profile(const CostProfile& profile) {
  check_bins(profile);
  require_utf8(profile.name, "profile name", path_);
  require_utf8(profile.units, "units", path_);
  Transaction tx(db_, path_);
  Statement remove(db_, path_, "DELETE FROM profiles WHERE name = ?");
  remove.bind(1, profile.name);
  remove.run();
  Statement insert(db_, path_, "INSERT INTO profiles (name, units, source) VALUES (?, ?, ?)");
  insert.bind(1, profile.name).bind(2, profile.units).bind(3, profile.source);
  insert.run();
  Statement insert_bin(db_, path_,
                       "INSERT INTO profile_bins (profile, position, first, count, micros_per_unit) "
                       "VALUES (?, ?, ?, ?, ?)");
  std::int64_t position = 0;
  for (const auto& bin : profile.bins) {
    insert_bin.bind(1, profile.name).bind(2, position++).bind(3, bin.range.first).bind(4, bin.range.count);
    insert_bin.bind(5, bin.micros_per_unit);
    insert_bin.run();
  }
  tx.commit();
}

CostProfile TraceStore::profile(const std::string& name) const {
  Statement s(db_, path_, "SELECT units, source FROM profiles WHERE name = ?");
  s.bind(1, name);
  if (!s.step()) throw Error(path_, "no cost profile '" + name + "'");
  CostProfile p{name, s.text(0), s.text(1), {}};
  Statement bins(db_, path_,
                 "SELECT first, count, micros_per_unit FROM profile_bins WHERE profile = ? ORDER BY position");
  bins.bind(1, name);
  while (bins.step()) p.bins.push_back(ProfileBin{Range{bins.int64(0), bins.int64(1)}, bins.real(2)});
  return p;
}

std::vector<std::string> TraceStore::profile_names() const {
  Statement s(db_, path_, "SELECT name FROM profiles ORDER BY name");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

void TraceStore::export_csv(std::int64_t run_id, std::ostream& out) const {
  const std::string units = run(run_id).units;
  const std::vector<WorkItem> plan = items(run_id);
  std::vector<std::string> columns = timing_columns();
  columns.emplace_back(kUnitsColumn);
  for (std::string& column : request_columns(plan)) columns.push_back(std::move(column));
  for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << columns[c];
  out << "\n";
  for (auto& row : timing_rows(plan, attempts(run_id))) {
    row[kUnitsColumn] = units;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      auto cell = row.find(columns[c]);
      out << (c ? "," : "") << csv_quote(cell == row.end() ? std::string() : timing_cell_text(*cell));
    }
    out << "\n";
  }
}

void TraceStore::export_json(std::int64_t run_id, std::ostream& out) const {
  Run r = run(run_id);
  nlohmann::json parameters = nlohmann::json::parse(r.parameters, nullptr, false);
  nlohmann::json doc;
  doc["run"] = {{"id", r.id},
                {"name", r.name},
                {"source", to_string(r.source)},
                {"units", r.units},
                {"partitioner", r.partitioner},
                {"policy", r.policy},
                {"parameters", parameters.is_discarded() ? nlohmann::json(r.parameters) : parameters},
                {"started_s", seconds_from_micros(r.started)},
                {"ended_s", seconds_from_micros(r.ended)}};
  doc["rows"] = timing_rows(items(run_id), attempts(run_id));
  out << json_text(doc, 1, run_label(run_id)) << "\n";
}

}  // namespace millrace::data
