// Reading a trace store in end-to-end tests the way an outside reader would: its own read-only
// SQLite connection, one query, the first column of each row as text.
#pragma once

#include <sqlite3.h>

#include <string>
#include <vector>

namespace millrace::cli_test {

inline std::vector<std::string> query_store(const std::string& store, const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> rows;
  if (sqlite3_open_v2(store.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK) {
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char* text = sqlite3_column_text(stmt, 0);
        rows.emplace_back(text == nullptr ? "" : reinterpret_cast<const char*>(text));
      }
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return rows;
}

// A query whose answer is one integer (-1 when it has none).
inline long long query_count(const std::string& store, const std::string& sql) {
  std::vector<std::string> rows = query_store(store, sql);
  return rows.size() == 1 && !rows[0].empty() ? std::stoll(rows[0]) : -1;
}

}  // namespace millrace::cli_test
