#include "data/sqlite_db.h"

#include <sqlite3.h>

#include <cerrno>

#include "data/error.h"

namespace millrace::data {

namespace {

bool is_busy(int rc) { return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED; }

bool is_full(int rc, sqlite3* db) {
  if ((rc & 0xff) == SQLITE_FULL) return true;
  const int system_error = db != nullptr && (rc & 0xff) == SQLITE_IOERR ? sqlite3_system_errno(db) : 0;
  return system_error == ENOSPC || system_error == EDQUOT;
}

// The error of a failed call: StoreBusy, StoreFull or Error, `text` saying what failed.
[[noreturn]] void throw_failure(int rc, sqlite3* db, const std::string& input, const std::string& text) {
  if (is_busy(rc)) throw StoreBusy(input, text);
  if (is_full(rc, db)) {
    throw StoreFull(input, "disk is full (" + text + "); free space where the store is and run the command again");
  }
  throw Error(input, text);
}

}  // namespace

void check_sqlite(int rc, sqlite3* db, const std::string& input, std::string_view what) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  throw_failure(rc, db, input, std::string(what) + ": " + message);
}

void exec_sql(sqlite3* db, const std::string& input, const char* sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message != nullptr ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw_failure(rc, db, input, text);
  }
}

Statement::Statement(sqlite3* db, const std::string& input, std::string_view sql) : db_(db), input_(input) {
  check_sqlite(sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr), db, input,
               "cannot prepare statement");
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
  check_sqlite(sqlite3_bind_int64(stmt_, index, value), db_, input_, "cannot bind");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  check_sqlite(sqlite3_bind_double(stmt_, index, value), db_, input_, "cannot bind");
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  check_sqlite(sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT),
               db_, input_, "cannot bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::int64_t>& value) {
  if (value) return bind(index, *value);
  check_sqlite(sqlite3_bind_null(stmt_, index), db_, input_, "cannot bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  check_sqlite(rc, db_, input_, "query failed");
  return rc == SQLITE_ROW;
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::text(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return text != nullptr ? std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
                         : std::string();
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::optional<std::int64_t> Statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

Transaction::Transaction(sqlite3* db, const std::string& input) : db_(db), input_(input) {
  exec_sql(db, input, "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  exec_sql(db_, input_, "COMMIT");
  open_ = false;
}

}  // namespace millrace::data
