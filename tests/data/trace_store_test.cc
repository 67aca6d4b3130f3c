#include "data/trace_store.h"

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "data/error.h"
#include "data/schema_sql.h"
#include "tests/data/store_fixture.h"
#include "tests/support/older_store.h"

namespace millrace::data {
namespace {

using testing::read_bytes;
using testing::row_counts;
using testing::TempDir;
using testing::write_file;

Run sample_run() {
  Run r;
  r.name = "catch-up";
  r.source = RunSource::kRecorded;
  r.units = "ledgers";
  r.partitioner = "uniform";
  r.policy = "fixed-pool";
  r.parameters = R"({"workers":2})";
  r.started = 0;
  r.ended = 9 * kMicrosPerSecond;
  return r;
}

Run sample_run_named(const std::string& name) {
  Run r = sample_run();
  r.name = name;
  return r;
}

std::vector<WorkItem> sample_items() {
  WorkItem a{"a", Range{0, 100}, "", "range", {}, 2, 0, 5 * kMicrosPerSecond, {}};
  WorkItem b{"b", Range{100, 50}, "", "range", {"a"}, 1, kMicrosPerSecond, 0, {}};
  WorkItem job{"job,1", std::nullopt, R"({"processors":"4"})", "job", {"a", "b"}, 0, 3, 0, {}};
  return {a, b, job};
}

std::vector<Attempt> sample_attempts() {
  Attempt a1{"a", 1, "w1", 0, 4 * kMicrosPerSecond, Outcome::kFailed, 137, "OOMKilled", std::nullopt, std::nullopt,
             std::nullopt, "", std::nullopt};
  Attempt a2{"a", 2, "w2", 4 * kMicrosPerSecond, 9 * kMicrosPerSecond, Outcome::kSucceeded, 0, "", 2'500'123, 0,
             std::nullopt, "", std::nullopt};
  Attempt b1{"b", 1, "w1", 4 * kMicrosPerSecond, 6 * kMicrosPerSecond + 1, Outcome::kSucceeded, 0, "", 17,
             kMicrosPerSecond, 3 * kMicrosPerSecond, "node-7", 2 * kMicrosPerSecond};
  return {a1, a2, b1};
}

std::vector<Attempt> by_start(std::vector<Attempt> attempts) {
  std::sort(attempts.begin(), attempts.end(), [](const Attempt& x, const Attempt& y) {
    return std::tie(x.start, x.item_id, x.number) < std::tie(y.start, y.item_id, y.number);
  });
  return attempts;
}

TEST(TraceStore, RoundTripsRunsItemsAndAttempts) {
  TempDir dir;
  std::int64_t id = 0;
  {
    auto store = TraceStore::open(dir.file("s.db"));
    id = store.add_run(sample_run(), sample_items(), sample_attempts());
  }
  auto store = TraceStore::open(dir.file("s.db"));
  data::Run expected = sample_run();
  expected.id = id;
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0], expected);
  EXPECT_EQ(store.run(id), expected);
  EXPECT_EQ(store.items(id), sample_items());
  EXPECT_EQ(store.attempts(id), by_start(sample_attempts()));
  EXPECT_EQ(store.find_run("catch-up"), id);
  EXPECT_EQ(store.find_run(std::to_string(id)), id);
}

TEST(TraceStore, AddAttemptsAppendsToAnExistingRunAndSetRunEndedUpdatesIt) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  auto id = store.add_run(sample_run(), sample_items(), {});
  store.add_attempts(id, sample_attempts());
  store.set_run_ended(id, 42);
  EXPECT_EQ(store.attempts(id), by_start(sample_attempts()));
  EXPECT_EQ(store.run(id).ended, 42);
}

TEST(TraceStore, AFailedAddRunLeavesNoRowsBehind) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  store.add_run(sample_run(), sample_items(), sample_attempts());
  auto before = row_counts(store);
  auto attempts = sample_attempts();
  attempts.push_back(Attempt{"nope", 1, "w", 0, 1, Outcome::kSucceeded, 0, "", std::nullopt, std::nullopt, std::nullopt, "",
                             std::nullopt});
  try {
    store.add_run(sample_run_named("other"), sample_items(), attempts);
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
  }
  EXPECT_EQ(row_counts(store), before);
}

TEST(TraceStore, UnknownRunsAndProfilesAreErrorsNamingThem) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  EXPECT_THROW(store.run(7), Error);
  EXPECT_THROW(store.find_run("missing"), Error);
  EXPECT_THROW(store.add_attempts(7, sample_attempts()), Error);
  EXPECT_THROW(store.set_run_ended(7, 1), Error);
  EXPECT_THROW(store.profile("missing"), Error);
  EXPECT_THROW(store.count_rows("sqlite_master; DROP TABLE runs"), Error);
}

TEST(TraceStore, ANewRunWithATakenNameIsRefusedNamingTheRunAndStoreAndNothingIsWritten) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  const std::int64_t first = store.add_run(sample_run(), sample_items(), sample_attempts());
  const auto before = row_counts(store);
  try {
    store.add_run(sample_run(), sample_items(), sample_attempts());
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), dir.file("s.db"));
    EXPECT_EQ(e.problem(), "a run named 'catch-up' is already in this store (run " + std::to_string(first) +
                               "): give the new run another --name");
  }
  EXPECT_EQ(row_counts(store), before);
  EXPECT_EQ(store.find_run("catch-up"), first);
  data::Run unnamed;  // runs added without a name are never looked up by one
  store.add_run(unnamed, {}, {});
  store.add_run(unnamed, {}, {});
  EXPECT_EQ(store.count_rows("runs"), 3);
}

// A store made before run names were unique may hold two runs of one name: a lookup by that name
// names both, and each is still found by its id.
TEST(TraceStore, ANameTwoOlderRunsShareIsAnErrorNamingBothAndTheIdsStillFindThem) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  store.add_run(sample_run_named("other"), {}, {});
  store.add_run(sample_run(), {}, {});
  const std::int64_t third = store.add_run(sample_run_named("third"), {}, {});
  ASSERT_EQ(sqlite3_exec(store.handle(), "UPDATE runs SET name = 'catch-up' WHERE id = 3", nullptr, nullptr, nullptr),
            SQLITE_OK);
  try {
    store.find_run("catch-up");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.problem(), "run name 'catch-up' matches runs 2 and 3; name the run by its id");
  }
  EXPECT_EQ(store.find_run("3"), third);
  EXPECT_EQ(store.run(store.find_run("2")).name, "catch-up");
  EXPECT_EQ(store.find_run("other"), 1);
}

TEST(TraceStore, RoundTripsCostProfilesAndReplacesByName) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  CostProfile p{"eth", "blocks", "export-BlockSize.csv", {{Range{0, 10}, 1.5}, {Range{10, 5}, 0.25}}};
  store.put_profile(p);
  EXPECT_EQ(store.profile("eth"), p);
  p.bins.pop_back();
  p.source = "again";
  store.put_profile(p);
  EXPECT_EQ(store.profile("eth"), p);
  EXPECT_EQ(store.profile_names(), std::vector<std::string>{"eth"});
  EXPECT_EQ(store.count_rows("profile_bins"), 1);
}

TEST(TraceStore, RejectsAProfileWhoseBinsAreNotContiguous) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  CostProfile p{"gap", "blocks", "test", {{Range{0, 10}, 1}, {Range{11, 5}, 1}}};
  EXPECT_THROW(store.put_profile(p), Error);
  EXPECT_EQ(store.count_rows("profiles"), 0);
}

TEST(TraceStore, NewStoreHasTheCurrentSchemaVersionInWalMode) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  EXPECT_EQ(store.schema_version(), TraceStore::current_schema_version());
  EXPECT_GE(TraceStore::current_schema_version(), 1);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(store.handle(), "PRAGMA journal_mode", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "wal");
  sqlite3_finalize(s);
}

void expect_open_fails_untouched(const std::string& path, const std::string& needle) {
  std::string before = read_bytes(path);
  try {
    TraceStore::open(path);
    FAIL() << "expected an Error opening " << path;
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path);
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_bytes(path), before);
}

TEST(TraceStore, AStoreOfVersion9KeepsItsComparisonsAndGainsTheirExperiments) {
  TempDir dir;
  auto store = test_support::reopened_as_older(
      dir.file("v9.db"),
      std::string("INSERT INTO comparisons (kind, created_us, model, span_first, span_count, parameters) "
                  "VALUES ('plan', 1, 'm.json', 0, 10, '{}'); DROP TABLE comparison_experiments; ") +
          test_support::kUndoMigration14 + test_support::kUndoMigration12 + test_support::kUndoMigration11 +
          "PRAGMA user_version = 9");
  EXPECT_EQ(store.schema_version(), TraceStore::current_schema_version());
  const std::string keep =
      "INSERT INTO comparison_experiments (comparison_id, file, text, sha256, overrides) SELECT id, 'e.yaml', "
      "'seed: 1', 'x', '[]' FROM comparisons WHERE kind = 'plan' AND model = 'm.json'";
  EXPECT_EQ(sqlite3_exec(store.handle(), keep.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_changes(store.handle()), 1);  // the comparison was kept, and can have its experiment
}

TEST(TraceStore, AttemptsOfAStoreOfVersion10KeepTheirTimesWithThePhasesUnknown) {
  TempDir dir;
  auto store = test_support::reopened_as_older(
      dir.file("v10.db"),
      std::string(test_support::kUndoMigration14) + test_support::kUndoMigration12 +
      "DROP TABLE attempts; CREATE TABLE attempts (run_id INTEGER NOT NULL, item_id TEXT NOT NULL, number INTEGER "
      "NOT NULL, worker TEXT NOT NULL, start_us INTEGER NOT NULL, end_us INTEGER NOT NULL, outcome TEXT NOT NULL, "
      "exit_code INTEGER NOT NULL, failure_reason TEXT NOT NULL, work_time_us INTEGER, PRIMARY KEY (run_id, item_id, "
      "number)) WITHOUT ROWID; INSERT INTO runs (name, source, units, partitioner, policy, parameters, started_us, "
      "ended_us) VALUES ('old', 'real', 'ledgers', 'uniform', 'fixed-pool', '{}', 0, 9); INSERT INTO items (run_id, "
      "position, id, type, payload, priority, submit_at_us, predicted_us) VALUES (1, 0, 'a', 'range', '', 0, 0, 0); "
      "INSERT INTO attempts VALUES (1, 'a', 1, 'w1', 2, 9, 'succeeded', 0, '', NULL); PRAGMA user_version = 10");
  EXPECT_EQ(store.schema_version(), TraceStore::current_schema_version());
  const auto kept = store.attempts(1);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].start, 2);
  EXPECT_EQ(kept[0].end, 9);
  EXPECT_FALSE(kept[0].submitted.has_value());
  EXPECT_FALSE(kept[0].placed.has_value());
  EXPECT_EQ(kept[0].node, "");
  EXPECT_FALSE(kept[0].unschedulable.has_value());
}

TEST(TraceStore, AStoreOfVersion11KeepsItsRunsAndAttemptsWithNoNodeArrivalsAndUnschedulableUnknown) {
  TempDir dir;
  std::int64_t run_id = 0;
  Attempt placed;
  placed.item_id = "a";
  placed.worker = "w1";
  placed.start = 20;
  placed.end = 90;
  placed.submitted = 5;
  placed.placed = 15;
  placed.node = "n1";
  auto store = test_support::reopened_as_older(
      dir.file("v11.db"),
      std::string(test_support::kUndoMigration14) + test_support::kUndoMigration12 + "PRAGMA user_version = 11",
      [&](TraceStore& fresh) {
        data::Run run;
        run.name = "before";
        WorkItem item;
        item.id = "a";
        run_id = fresh.add_run(run, {item}, {placed});
      });
  EXPECT_EQ(store.schema_version(), TraceStore::current_schema_version());
  const auto kept = store.attempts(run_id);
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0], placed);  // phases kept, unschedulable unknown
  EXPECT_TRUE(store.node_arrivals(run_id).empty());
  EXPECT_EQ(store.node_arrivals_unrecorded(run_id), "");
  store.put_node_arrivals(run_id, {NodeArrival{"n2", "pool-a", 30, 40}});  // the migrated store takes them
  EXPECT_EQ(store.node_arrivals(run_id), (std::vector<NodeArrival>{{"n2", "pool-a", 30, 40}}));
}

TEST(TraceStore, NodeArrivalsAndUnschedulableTimesRoundTripAndANodeGivenAgainReplacesItself) {
  auto store = TraceStore::in_memory();
  data::Run run;
  run.name = "autoscaled";
  WorkItem item;
  item.id = "a";
  Attempt a;
  a.item_id = "a";
  a.start = 50;
  a.end = 60;
  a.submitted = 1;
  a.unschedulable = 2;
  a.placed = 45;
  a.node = "late";
  const auto id = store.add_run(run, {item}, {a});
  EXPECT_EQ(store.attempts(id), std::vector<Attempt>{a});
  store.put_node_arrivals(id, {NodeArrival{"late", "gpu", 10, std::nullopt}, NodeArrival{"early", "", std::nullopt, 5}});
  store.put_node_arrivals(id, {NodeArrival{"late", "gpu", 10, 40}});  // its ready time learned later
  EXPECT_EQ(store.node_arrivals(id),
            (std::vector<NodeArrival>{{"early", "", std::nullopt, 5}, {"late", "gpu", 10, 40}}));  // unknown first
  EXPECT_EQ(store.node_arrivals_unrecorded(id), "");
  store.set_node_arrivals_unrecorded(id, "the API server refused to list nodes (403)");
  EXPECT_EQ(store.node_arrivals_unrecorded(id), "the API server refused to list nodes (403)");
  EXPECT_THROW(store.put_node_arrivals(id + 1, {NodeArrival{"x", "", 1, 2}}), Error);
  EXPECT_THROW(store.set_node_arrivals_unrecorded(id + 1, "why"), Error);
}

TEST(TraceStore, AnEmptyFileIsMigratedToTheCurrentSchema) {
  TempDir dir;
  write_file(dir.file("empty.db"), "");
  auto store = TraceStore::open(dir.file("empty.db"));
  EXPECT_EQ(store.schema_version(), TraceStore::current_schema_version());
  EXPECT_EQ(store.count_rows("runs"), 0);
}

TEST(TraceStore, OpenExistingRefusesToCreateAStore) {
  TempDir dir;
  EXPECT_THROW(TraceStore::open_existing(dir.file("missing.db")), Error);
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

// A store of an older schema `version`, made from the embedded schema text, then `rows` (SQL).
void make_old_store(const std::string& path, int version, const std::string& rows = "") {
  std::string sql = kSchemaSql;
  sql = sql.substr(0, sql.find("\n-- migration " + std::to_string(version + 1)));
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string all =
      sql + "; PRAGMA user_version = " + std::to_string(version) + "; PRAGMA journal_mode = WAL;" + rows;
  ASSERT_EQ(sqlite3_exec(db, all.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

// A store of schema version 3 (before the run sessions).
void make_version_3_store(const std::string& path) { make_old_store(path, 3); }

// Schema 6 kept a Kubernetes run's duration settings in seconds; opening it for writing turns
// them into microseconds and leaves every other setting, and other runs, as they were.
TEST(TraceStore, RunParametersInSecondsFromAnOlderStoreAreMigratedToMicroseconds) {
  TempDir dir;
  const std::string path = dir.file("v6.db");
  const std::string k8s =
      R"({"cluster":"kubernetes","active_deadline_s":90,"api_patience_s":600,"unschedulable_after_s":0.25,)"
      R"("lease_duration_s":60,"heartbeat_s":1.5,"backoff_us":2000000,"workers":4,"namespace":"ns"})";
  const std::string local = R"({"cluster":"local","timeout_us":3000000,"command":"x_s"})";
  make_old_store(path, 6,
                 "INSERT INTO runs VALUES (1, 'k', 'real', 'units', 'uniform', 'job-per-item', '" + k8s + "', 0, 0);"
                 "INSERT INTO runs VALUES (2, 'l', 'real', 'units', 'uniform', 'fixed-pool', '" + local + "', 0, 0);"
                 "INSERT INTO runs VALUES (3, 's', 'simulated', 'units', 'uniform', 'fixed-pool', 'not json', 0, 0);");
  EXPECT_EQ(TraceStore::open_for_reading(path).run(1).parameters, k8s);  // readers read it as it is
  TraceStore store = TraceStore::open(path);
  EXPECT_EQ(store.schema_version(), TraceStore::current_schema_version());
  const nlohmann::json migrated = nlohmann::json::parse(store.run(1).parameters);
  const nlohmann::json expected = nlohmann::json::parse(
      R"({"cluster":"kubernetes","active_deadline_us":90000000,"api_patience_us":600000000,)"
      R"("unschedulable_after_us":250000,"lease_duration_us":60000000,"heartbeat_us":1500000,)"
      R"("backoff_us":2000000,"workers":4,"namespace":"ns"})");
  EXPECT_EQ(migrated, expected);
  EXPECT_TRUE(migrated["heartbeat_us"].is_number_integer());
  EXPECT_EQ(nlohmann::json::parse(store.run(2).parameters), nlohmann::json::parse(local));
  EXPECT_EQ(store.run(3).parameters, "not json");
}

TEST(TraceStore, OpeningForReadingNeverMigratesNorWritesAndAWriterMigrates) {
  TempDir dir;
  const std::string path = dir.file("v3.db");
  make_version_3_store(path);
  const std::string before = read_bytes(path);
  {
    TraceStore reader = TraceStore::open_for_reading(path);
    EXPECT_EQ(reader.schema_version(), 3);
    EXPECT_EQ(reader.count_rows("runs"), 0);
    EXPECT_THROW(reader.add_run(sample_run(), sample_items(), {}), Error);  // read-only connection
  }
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(TraceStore::open(path).schema_version(), TraceStore::current_schema_version());
  EXPECT_EQ(TraceStore::open_for_reading(path).schema_version(), TraceStore::current_schema_version());
}

TEST(TraceStore, OpeningForReadingRefusesAMissingStoreAndCreatesNothing) {
  TempDir dir;
  try {
    TraceStore::open_for_reading(dir.file("missing.db"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), dir.file("missing.db"));
    EXPECT_EQ(e.problem(), "no such trace store");
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST(TraceStore, AWriteBehindAnotherConnectionsLockIsStoreBusyAndReadsGoOn) {
  TempDir dir;
  const std::string path = dir.file("s.db");
  auto writer = TraceStore::open(path);
  writer.add_run(sample_run(), sample_items(), {});
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  writer.set_busy_timeout(10);
  EXPECT_THROW(writer.add_attempts(1, sample_attempts()), StoreBusy);
  EXPECT_EQ(TraceStore::open_for_reading(path).count_rows("runs"), 1);
  EXPECT_EQ(TraceStore::open(path).count_rows("runs"), 1);  // a writer's open of a current store writes nothing
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  writer.add_attempts(1, sample_attempts());
  EXPECT_EQ(writer.count_rows("attempts"), 3);
}

TEST(TraceStore, CountsRowsPerRun) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  store.add_run(sample_run_named("first"), sample_items(), {});
  auto id = store.add_run(sample_run(), sample_items(), sample_attempts());
  EXPECT_EQ(store.count_rows("items", id), 3);
  EXPECT_EQ(store.count_rows("item_deps", id), 3);
  EXPECT_EQ(store.count_rows("attempts", id), 3);
  EXPECT_EQ(store.count_rows("attempts"), 3);
  EXPECT_THROW(store.count_rows("runs", id), Error);
}

TEST(TraceStore, RejectsANewerSchemaAndLeavesTheFileUntouched) {
  TempDir dir;
  std::string path = dir.file("s.db");
  {
    auto store = TraceStore::open(path);
    store.add_run(sample_run(), sample_items(), sample_attempts());
    std::string bump = "PRAGMA user_version = " + std::to_string(TraceStore::current_schema_version() + 1);
    ASSERT_EQ(sqlite3_exec(store.handle(), bump.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  }
  expect_open_fails_untouched(path, "newer");
}

TEST(TraceStore, RejectsANonSqliteFileAndLeavesItUntouched) {
  TempDir dir;
  std::string path = dir.file("notes.txt");
  write_file(path, "end_ledger,ledger_count\n6463,16320\n");
  expect_open_fails_untouched(path, "not an SQLite database");
}

TEST(TraceStore, RejectsAnSqliteFileWithoutTheMillraceSchema) {
  TempDir dir;
  std::string path = dir.file("other.db");
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE t(x)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  expect_open_fails_untouched(path, "not a millrace trace store");
}

// A writer's store in a directory that does not exist is said to be that, not a read-only store.
TEST(TraceStore, AStoreInADirectoryThatDoesNotExistSaysSo) {
  TempDir dir;
  const std::string path = dir.file("no/such/dir/s.db");
  try {
    TraceStore::open(path);
    FAIL() << "opened a store in a directory that does not exist";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), path);
    EXPECT_EQ(e.problem(), "no such directory " + std::filesystem::path(path).parent_path().string() +
                               " to make the store in (create it first)");
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("no")));
}

TEST(TraceStore, RejectsACorruptStoreAndLeavesItUntouched) {
  TempDir dir;
  std::string path = dir.file("s.db");
  {
    auto store = TraceStore::open(path);
    std::vector<WorkItem> items;
    for (int i = 0; i < 2000; ++i) {
      WorkItem item;
      item.id = "item-" + std::to_string(i);
      item.range = Range{i, 1};
      items.push_back(item);
    }
    store.add_run(sample_run(), items, {});
  }
  std::string bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 8192u);
  for (std::size_t i = 4096; i < bytes.size(); i += 4096) {
    for (std::size_t j = 0; j < 64; ++j) bytes[i + j] = static_cast<char>(0xA5);
  }
  write_file(path, bytes);
  expect_open_fails_untouched(path, "corrupt");
}

TEST(TraceStore, TwoProcessesWritingTheSameStoreLoseNothing) {
  TempDir dir;
  std::string path = dir.file("s.db");
  TraceStore::open(path);
  constexpr int kRunsPerProcess = 40;
  std::vector<pid_t> children;
  for (int child = 0; child < 2; ++child) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int status = 0;
      try {
        auto store = TraceStore::open(path);
        for (int r = 0; r < kRunsPerProcess; ++r) {
          data::Run run = sample_run();
          run.name = "child" + std::to_string(child) + "-" + std::to_string(r);
          store.add_run(run, sample_items(), sample_attempts());
        }
      } catch (const std::exception&) {
        status = 1;
      }
      _exit(status);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  auto store = TraceStore::open(path);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(store.handle(), "PRAGMA integrity_check", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "ok");
  sqlite3_finalize(s);
  EXPECT_EQ(store.count_rows("runs"), 2 * kRunsPerProcess);
  EXPECT_EQ(store.count_rows("items"), 2 * kRunsPerProcess * 3);
  EXPECT_EQ(store.count_rows("attempts"), 2 * kRunsPerProcess * 3);
  for (const auto& run : store.runs()) EXPECT_EQ(store.attempts(run.id), by_start(sample_attempts()));
}

// Several processes opening one store that does not exist yet (runs started together, or a
// reader polling for a run's first records) all open it: none sees another's half-made schema
// or gives up on its switch to WAL.
TEST(TraceStore, ProcessesCreatingTheSameNewStoreAtOnceAllOpenIt) {
  TempDir dir;
  constexpr int kRounds = 25;
  constexpr int kProcesses = 6;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.file("new-" + std::to_string(round) + ".db");
    int start[2];
    ASSERT_EQ(pipe(start), 0);
    std::vector<pid_t> children;
    for (int child = 0; child < kProcesses; ++child) {
      pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(start[1]);
        char byte = 0;
        if (read(start[0], &byte, 1) != 0) _exit(2);  // released together when the parent closes it
        try {
          auto store = TraceStore::open(path);
          data::Run run = sample_run();
          run.name = "child" + std::to_string(child);
          store.add_run(run, sample_items(), sample_attempts());
        } catch (const std::exception& e) {
          write_file(path + ".error" + std::to_string(child), e.what());
          _exit(1);
        }
        _exit(0);
      }
      children.push_back(pid);
    }
    close(start[0]);
    close(start[1]);
    for (std::size_t child = 0; child < children.size(); ++child) {
      int status = 0;
      waitpid(children[child], &status, 0);
      const std::string error = path + ".error" + std::to_string(child);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "round " << round << ": " << (std::filesystem::exists(error) ? read_bytes(error) : "no message");
    }
    EXPECT_EQ(TraceStore::open(path).count_rows("runs"), kProcesses) << "round " << round;
  }
}

TEST(TraceStore, ExportsARunAsCsvWithOneRowPerAttemptInPlanOrder) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  auto id = store.add_run(sample_run(), sample_items(), sample_attempts());
  std::ostringstream out;
  store.export_csv(id, out);
  EXPECT_EQ(out.str(),
            "item,type,first,count,payload,priority,submit_s,depends_on,attempt,worker,start_s,end_s,duration_s,"
            "outcome,exit_code,failure_reason,work_ms,submitted_s,unschedulable_s,scheduled_s,node,units\n"
            "a,range,0,100,,2,0.0,,1,w1,0.0,4.0,4.0,failed,137,OOMKilled,,,,,,ledgers\n"
            "a,range,0,100,,2,0.0,,2,w2,4.0,9.0,5.0,succeeded,0,,2500.123,0.0,,,,ledgers\n"
            "b,range,100,50,,1,1.0,a,1,w1,4.0,6.000001,2.000001,succeeded,0,,0.017,1.0,2.0,3.0,node-7,ledgers\n"
            "\"job,1\",job,,,\"{\"\"processors\"\":\"\"4\"\"}\",0,3e-06,a b,,,,,,,,,,,,,,ledgers\n");
}

TEST(TraceStore, ExportsARunAsJsonWithItsRunAndRows) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  auto id = store.add_run(sample_run(), sample_items(), sample_attempts());
  std::ostringstream out;
  store.export_json(id, out);
  auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["run"]["name"], "catch-up");
  EXPECT_EQ(doc["run"]["units"], "ledgers");
  EXPECT_EQ(doc["run"]["parameters"]["workers"], 2);
  EXPECT_EQ(doc["run"]["ended_s"], 9.0);
  ASSERT_EQ(doc["rows"].size(), 4u);
  EXPECT_EQ(doc["rows"][1]["worker"], "w2");
  EXPECT_EQ(doc["rows"][1]["work_ms"], 2500.123);
  EXPECT_EQ(doc["rows"][2]["duration_s"], 2.000001);
  EXPECT_TRUE(doc["rows"][3]["attempt"].is_null());
  EXPECT_TRUE(doc["rows"][3]["first"].is_null());
  EXPECT_EQ(doc["rows"][3]["payload"], R"({"processors":"4"})");
}

// `run --name $'n\xff\xfe'` was accepted, and export --format json and fit then failed with a
// raw "[json.exception.type_error.316]": a name that is not UTF-8 is refused where it enters the
// store, and nothing is written.
TEST(TraceStore, ANameThatIsNotUtf8IsRefusedAndNothingIsWritten) {
  TempDir dir;
  auto store = TraceStore::open(dir.file("s.db"));
  try {
    store.add_run(sample_run_named("n\xff\xfe"), sample_items(), sample_attempts());
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.input(), dir.file("s.db"));
    EXPECT_EQ(e.problem(), "run name 'n\uFFFD\uFFFD' is not UTF-8 (byte 0xFF at column 2): it is kept as text and "
                           "written to JSON; give it in UTF-8");
  }
  EXPECT_EQ(store.count_rows("runs"), 0);
  EXPECT_THROW(store.check_new_run_name("x\xff"), Error);  // what import and run ask before anything is read
  CostProfile profile{"p\xc3", "units", "", {{{0, 10}, 1.0}}};
  EXPECT_THROW(store.put_profile(profile), Error);
}

// A name stored by an older millrace (or another program) that is not UTF-8: the JSON export
// names the field instead of failing with the library's raw error.
TEST(TraceStore, AStoredNameThatIsNotUtf8FailsTheJsonExportNamingTheField) {
  TempDir dir;
  const std::string path = dir.file("s.db");
  std::int64_t id = 0;
  {
    auto store = TraceStore::open(path);
    id = store.add_run(sample_run(), sample_items(), sample_attempts());
  }
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "UPDATE runs SET name = CAST(X'6EFFFE' AS TEXT)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto store = TraceStore::open_for_reading(path);
  std::ostringstream out;
  try {
    store.export_json(id, out);
    FAIL() << "exported";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "run " + std::to_string(id) +
                                         ": cannot be written as JSON: field run.name is not UTF-8 (byte 0xFF at "
                                         "column 2)");
  }
  EXPECT_EQ(out.str(), "");
}

// An empty file read as a store said "no such table: runs".
TEST(TraceStore, AnEmptyFileOrAnEmptyDatabaseIsNoStoreToAReader) {
  TempDir dir;
  write_file(dir.file("empty.db"), "");
  try {
    TraceStore::open_for_reading(dir.file("empty.db"));
    FAIL() << "opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.problem(), "an empty file, no millrace store (`millrace import` or `millrace run` makes one)");
  }
  EXPECT_EQ(read_bytes(dir.file("empty.db")), "");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(dir.file("bare.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x); DROP TABLE t", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  ASSERT_GT(std::filesystem::file_size(dir.file("bare.db")), 0u);
  try {
    TraceStore::open_for_reading(dir.file("bare.db"));
    FAIL() << "opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.problem(), "no millrace store (an SQLite database without tables; `millrace import` or `millrace "
                           "run` makes one)");
  }
}

}  // namespace
}  // namespace millrace::data
