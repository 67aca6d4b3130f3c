// A trace store as an older millrace left it, for the migration tests: a store of today's schema
// is made at a path, turned back into an older version's by SQL the test gives (dropping what
// later migrations added and setting user_version), closed, and opened again, which migrates it
// forward. kUndoMigration11 is the SQL that takes back the attempt phases of migration 11,
// kUndoMigration12 the node arrivals and unschedulable times of migration 12 (with migration 13's
// departures in them), and kUndoMigration14 the comparison costs (undo the later ones first).
#pragma once

#include <sqlite3.h>

#include <stdexcept>
#include <string>

#include "data/trace_store.h"

namespace millrace::test_support {

inline constexpr const char* kUndoMigration11 =
    "ALTER TABLE attempts DROP COLUMN submitted_us; ALTER TABLE attempts DROP COLUMN placed_us; "
    "ALTER TABLE attempts DROP COLUMN node; ";

inline constexpr const char* kUndoMigration12 =
    "DROP TABLE node_arrivals; ALTER TABLE attempts DROP COLUMN unschedulable_us; "
    "ALTER TABLE runs DROP COLUMN node_arrivals_unrecorded; ";

inline constexpr const char* kUndoMigration14 = "DROP TABLE comparison_pool_costs; DROP TABLE comparison_costs; ";

// `older` runs on a fresh store at `path`, where `prepare` (given the store) may first add rows.
template <typename Prepare>
data::TraceStore reopened_as_older(const std::string& path, const std::string& older, Prepare prepare) {
  {
    data::TraceStore store = data::TraceStore::open(path);
    prepare(store);
    char* error = nullptr;
    if (sqlite3_exec(store.handle(), older.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error != nullptr ? error : "unknown error";
      sqlite3_free(error);
      throw std::runtime_error("turning " + path + " into an older store: " + message);
    }
  }
  return data::TraceStore::open(path);
}

inline data::TraceStore reopened_as_older(const std::string& path, const std::string& older) {
  return reopened_as_older(path, older, [](data::TraceStore&) {});
}

}  // namespace millrace::test_support
