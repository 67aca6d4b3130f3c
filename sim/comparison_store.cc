#include "sim/comparison_store.h"

#include <chrono>

#include "data/sqlite_db.h"

namespace millrace::sim {

std::int64_t record_comparison(data::TraceStore& store, const ComparisonHeader& header,
                               const Comparison& comparison) {
  sqlite3* db = store.handle();
  const std::string& input = store.path();
  data::Transaction transaction(db, input);
  const auto now = std::chrono::duration_cast<std::chrono::microseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  data::Statement insert(db, input,
                         "INSERT INTO comparisons (kind, created_us, model, span_first, span_count, parameters) "
                         "VALUES (?, ?, ?, ?, ?, ?) RETURNING id");
  insert.bind(1, header.kind)
      .bind(2, static_cast<std::int64_t>(now.count()))
      .bind(3, header.model)
      .bind(4, header.span.first)
      .bind(5, header.span.count)
      .bind(6, header.parameters.dump());
  insert.step();
  const std::int64_t id = insert.int64(0);
  insert.reset();
  data::Statement row(db, input,
                      "INSERT INTO comparison_rows (comparison_id, position, partitioner, workers, queue_order, "
                      "ranges, replicas, longest_range_us, lower_bound_us, makespan_mean_us, makespan_min_us, "
                      "makespan_max_us, makespan_stddev_us, ratio_to_lower_bound, utilisation, node_hours, "
                      "tail_below_tenth_us, failed_attempts_mean, failed_runs, deadline_met) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  data::Statement spread(db, input,
                         "INSERT INTO comparison_spread (comparison_id, position, contiguous_bound_us, "
                         "makespan_p10_us, makespan_p50_us, makespan_p90_us) VALUES (?, ?, ?, ?, ?, ?)");
  std::int64_t position = 0;
  for (const ComparisonRow& r : comparison.rows) {
    row.bind(1, id)
        .bind(2, position)
        .bind(3, r.partitioner)
        .bind(4, r.workers)
        .bind(5, r.order)
        .bind(6, static_cast<std::int64_t>(r.ranges))
        .bind(7, r.replicas)
        .bind(8, r.longest_range)
        .bind(9, r.lower_bound)
        .bind(10, r.makespan_mean)
        .bind(11, r.makespan_min)
        .bind(12, r.makespan_max)
        .bind(13, r.makespan_stddev)
        .bind(14, r.ratio_to_lower_bound)
        .bind(15, r.utilisation)
        .bind(16, r.node_hours)
        .bind(17, r.tail_below_tenth)
        .bind(18, r.failed_attempts)
        .bind(19, r.failed_runs);
    if (r.deadline_met) {
      row.bind(20, *r.deadline_met);
    } else {
      row.bind(20, std::optional<std::int64_t>());
    }
    row.run();
    spread.bind(1, id)
        .bind(2, position++)
        .bind(3, r.contiguous_bound)
        .bind(4, r.makespan_p10)
        .bind(5, r.makespan_p50)
        .bind(6, r.makespan_p90);
    spread.run();
  }
  transaction.commit();
  return id;
}

}  // namespace millrace::sim
