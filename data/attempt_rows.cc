#include "data/attempt_rows.h"

namespace millrace::data {

AttemptRowWriter::AttemptRowWriter(sqlite3* db, const std::string& path)
    : attempt_(db, path,
               "INSERT INTO attempts (run_id, item_id, number, worker, start_us, end_us, outcome, exit_code, "
               "failure_reason, work_time_us, submitted_us, placed_us, node, unschedulable_us) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)") {}

void AttemptRowWriter::insert(std::int64_t run_id, const Attempt& a) {
  attempt_.bind(1, run_id).bind(2, a.item_id).bind(3, a.number).bind(4, a.worker).bind(5, a.start).bind(6, a.end);
  attempt_.bind(7, to_string(a.outcome)).bind(8, a.exit_code).bind(9, a.failure_reason).bind(10, a.work_time);
  attempt_.bind(11, a.submitted).bind(12, a.placed).bind(13, a.node).bind(14, a.unschedulable);
  attempt_.run();
}

}  // namespace millrace::data
