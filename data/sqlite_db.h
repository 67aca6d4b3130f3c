// Thin RAII wrappers over the SQLite C API used by the trace store: prepared statements with
// typed binds and columns, and a transaction that rolls back unless committed. Every SQLite
// failure becomes an Error naming the database file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace millrace::data {

// Throws Error(input, what + SQLite's message) when `rc` is not SQLITE_OK/ROW/DONE; StoreBusy
// when another connection holds the lock (after the busy timeout); StoreFull, "disk is full",
// when the store's disk or quota is full.
void check_sqlite(int rc, sqlite3* db, const std::string& input, std::string_view what);

// Runs SQL text (possibly several statements) that returns no rows; throws like check_sqlite.
void exec_sql(sqlite3* db, const std::string& input, const char* sql);

class Statement {
 public:
  Statement(sqlite3* db, const std::string& input, std::string_view sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  // Binds are 1-based like SQLite's; each returns *this for chaining.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::optional<std::int64_t>& value);

  bool step();       // true when a row is available, false when done
  void run();        // steps a statement that returns no rows, then resets it for reuse
  void reset();

  // Columns are 0-based like SQLite's.
  std::int64_t int64(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;
  std::optional<std::int64_t> optional_int64(int column) const;

 private:
  sqlite3* db_;
  const std::string& input_;
  sqlite3_stmt* stmt_ = nullptr;
};

// BEGIN IMMEDIATE on construction (takes the write lock up front, so concurrent writers wait
// on busy_timeout instead of failing mid-transaction); ROLLBACK on destruction unless commit().
class Transaction {
 public:
  Transaction(sqlite3* db, const std::string& input);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  sqlite3* db_;
  const std::string& input_;
  bool open_ = true;
};

}  // namespace millrace::data
