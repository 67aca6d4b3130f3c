// Writing a planned item into the trace store: its row in `items`, its dependencies in
// `item_deps` and its resource requests in `item_requests`, with statements prepared once. The
// store's add_run and the staged import (importers/staged_import.h) both write items through it.
#pragma once

#include <cstdint>
#include <string>

#include "data/records.h"
#include "data/sqlite_db.h"

namespace millrace::data {

class ItemRowWriter {
 public:
  ItemRowWriter(sqlite3* db, const std::string& path);
  // Throws Error (naming the store) when a row is refused, e.g. an item id used twice.
  void insert(std::int64_t run_id, std::int64_t position, const WorkItem& item);

 private:
  Statement item_;
  Statement dep_;
  Statement request_;
};

}  // namespace millrace::data
