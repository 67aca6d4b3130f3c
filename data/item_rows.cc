#include "data/item_rows.h"

#include <optional>

namespace millrace::data {

ItemRowWriter::ItemRowWriter(sqlite3* db, const std::string& path)
    : item_(db, path,
            "INSERT INTO items (run_id, position, id, range_first, range_count, type, payload, priority, "
            "submit_at_us, predicted_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
      dep_(db, path, "INSERT INTO item_deps (run_id, item_id, position, depends_on) VALUES (?, ?, ?, ?)"),
      request_(db, path, "INSERT INTO item_requests (run_id, item_id, resource, milli) VALUES (?, ?, ?, ?)") {}

void ItemRowWriter::insert(std::int64_t run_id, std::int64_t position, const WorkItem& item) {
  std::optional<std::int64_t> first, count;
  if (item.range) {
    first = item.range->first;
    count = item.range->count;
  }
  item_.bind(1, run_id).bind(2, position).bind(3, item.id).bind(4, first).bind(5, count);
  item_.bind(6, item.type).bind(7, item.payload).bind(8, item.priority).bind(9, item.submit_at);
  item_.bind(10, item.predicted);
  item_.run();
  for (std::size_t d = 0; d < item.depends_on.size(); ++d) {
    dep_.bind(1, run_id).bind(2, item.id).bind(3, static_cast<std::int64_t>(d)).bind(4, item.depends_on[d]);
    dep_.run();
  }
  for (const auto& [resource, milli] : item.requests) {
    request_.bind(1, run_id).bind(2, item.id).bind(3, resource).bind(4, milli);
    request_.run();
  }
}

}  // namespace millrace::data
