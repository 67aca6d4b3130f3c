// Writing an attempt into the trace store: its row in `attempts`, phases included, with the
// statement prepared once. The store's add_run/add_attempts and the staged import
// (importers/staged_import.h) both write attempts through it.
#pragma once

#include <cstdint>
#include <string>

#include "data/records.h"
#include "data/sqlite_db.h"

namespace millrace::data {

class AttemptRowWriter {
 public:
  AttemptRowWriter(sqlite3* db, const std::string& path);
  // Throws Error (naming the store) when the row is refused, e.g. an attempt number used twice.
  void insert(std::int64_t run_id, const Attempt& attempt);

 private:
  Statement attempt_;
};

}  // namespace millrace::data
