#include "sim/comparison_store.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "data/error.h"
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
  const ExperimentSource& experiment = header.experiment;
  if (!experiment.file.empty()) {
    data::Statement keep(db, input,
                         "INSERT INTO comparison_experiments (comparison_id, file, text, sha256, overrides) "
                         "VALUES (?, ?, ?, ?, ?)");
    keep.bind(1, id).bind(2, experiment.file).bind(3, experiment.text).bind(4, experiment.sha256);
    keep.bind(5, nlohmann::json(experiment.overrides).dump());
    keep.run();
  }
  data::Statement row(db, input,
                      "INSERT INTO comparison_rows (comparison_id, position, partitioner, workers, queue_order, "
                      "ranges, replicas, longest_range_us, lower_bound_us, makespan_mean_us, makespan_min_us, "
                      "makespan_max_us, makespan_stddev_us, ratio_to_lower_bound, utilisation, node_hours, "
                      "tail_below_tenth_us, failed_attempts_mean, failed_runs, deadline_met) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  data::Statement spread(db, input,
                         "INSERT INTO comparison_spread (comparison_id, position, contiguous_bound_us, "
                         "makespan_p10_us, makespan_p50_us, makespan_p90_us) VALUES (?, ?, ?, ?, ?, ?)");
  data::Statement cost(db, input,
                       "INSERT INTO comparison_costs (comparison_id, position, currency, mean_millionths, "
                       "p10_millionths, p50_millionths, p90_millionths) VALUES (?, ?, ?, ?, ?, ?, ?)");
  data::Statement pool_cost(db, input,
                            "INSERT INTO comparison_pool_costs (comparison_id, position, pool_index, pool, "
                            "mean_millionths) VALUES (?, ?, ?, ?, ?)");
  std::int64_t position = 0;
  for (const ComparisonRow& r : comparison.rows) {
    if (r.cost) {
      const CostBand& band = *r.cost;
      cost.bind(1, id).bind(2, position).bind(3, band.currency).bind(4, band.mean.millionths);
      cost.bind(5, band.p10.millionths).bind(6, band.p50.millionths).bind(7, band.p90.millionths);
      cost.run();
      for (std::size_t p = 0; p < band.pools.size(); ++p) {
        pool_cost.bind(1, id).bind(2, position).bind(3, static_cast<std::int64_t>(p)).bind(4, band.pools[p].name);
        pool_cost.bind(5, band.pools[p].mean.millionths);
        pool_cost.run();
      }
    }
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

namespace {

// The whole numbers of `value` (an array; a number alone is one), summed when `value` is an
// array of arrays (a mix's nodes per pool): what a node plan stored of its rows and answer.
std::vector<int> node_totals(const nlohmann::json& value) {
  if (value.is_number_integer()) return {value.get<int>()};
  std::vector<int> out;
  if (!value.is_array()) return out;
  for (const nlohmann::json& entry : value) {
    if (entry.is_number_integer()) {
      out.push_back(entry.get<int>());
    } else if (entry.is_array()) {
      int sum = 0;
      for (const nlohmann::json& nodes : entry) sum += nodes.is_number_integer() ? nodes.get<int>() : 0;
      out.push_back(sum);
    }
  }
  return out;
}

// A node plan's pools, counts and answer from its parameters: "pool", "nodes_by_row" and
// "answer_nodes" of one pool's search; "pools", "mix_by_row" and "answer_mix" of a mix's.
void read_node_plan(const nlohmann::json& parameters, StoredComparison& c) {
  const bool mix = parameters.contains("pools") && parameters["pools"].is_array();
  if (mix) {
    for (const nlohmann::json& pool : parameters["pools"]) {
      if (pool.is_string()) c.pools.push_back(pool.get<std::string>());
    }
  } else if (parameters.contains("pool") && parameters["pool"].is_string()) {
    c.pools.push_back(parameters["pool"].get<std::string>());
  }
  if (c.pools.empty()) return;
  const std::string rows = mix ? "mix_by_row" : "nodes_by_row";
  if (parameters.contains(rows)) {
    const std::vector<int> totals = node_totals(parameters[rows]);
    const std::set<int> counts(totals.begin(), totals.end());
    c.node_counts.assign(counts.begin(), counts.end());
  }
  const std::string answer = mix ? "answer_mix" : "answer_nodes";
  if (parameters.contains(answer)) {
    c.answer_nodes = node_totals(parameters[answer]);  // a number, or a mix's nodes per pool
    if (c.answer_nodes.size() != c.pools.size()) c.answer_nodes.clear();
  }
}

}  // namespace

std::vector<StoredComparison> stored_comparisons(const data::TraceStore& store) {
  data::Statement select(store.handle(), store.path(),
                         "SELECT c.id, c.kind, c.created_us, "
                         "(SELECT count(*) FROM comparison_rows r WHERE r.comparison_id = c.id), e.sha256, c.model, "
                         "c.parameters "
                         "FROM comparisons c LEFT JOIN comparison_experiments e ON e.comparison_id = c.id "
                         "ORDER BY c.id");
  std::vector<StoredComparison> comparisons;
  while (select.step()) {
    StoredComparison& c = comparisons.emplace_back();
    c.id = select.int64(0);
    c.kind = select.text(1);
    c.created = select.int64(2);
    c.rows = select.int64(3);
    c.experiment_sha256 = select.text(4);
    c.model = select.text(5);
    const nlohmann::json parameters = nlohmann::json::parse(select.text(6), nullptr, false);
    if (parameters.is_object()) {
      if (parameters.contains("run") && parameters["run"].is_string()) c.run = parameters["run"].get<std::string>();
      if (parameters.contains("deadline_us") && parameters["deadline_us"].is_number_integer()) {
        c.deadline = parameters["deadline_us"].get<data::Micros>();
      }
      if (parameters.contains("answer_workers") && parameters["answer_workers"].is_number_integer()) {
        c.answer_workers = parameters["answer_workers"].get<int>();
      }
      read_node_plan(parameters, c);
    }
  }
  const auto add_new = [](std::vector<std::string>& seen, const std::string& value) {
    if (std::find(seen.begin(), seen.end(), value) == seen.end()) seen.push_back(value);
  };
  for (StoredComparison& c : comparisons) {
    data::Statement rows(store.handle(), store.path(),
                         "SELECT partitioner, workers, queue_order FROM comparison_rows WHERE comparison_id = ? "
                         "ORDER BY position");
    rows.bind(1, c.id);
    std::set<int> workers;
    while (rows.step()) {
      add_new(c.candidates, rows.text(0));
      workers.insert(static_cast<int>(rows.int64(1)));
      add_new(c.orders, rows.text(2));
    }
    c.workers.assign(workers.begin(), workers.end());
  }
  return comparisons;
}

std::optional<ExperimentSource> stored_experiment(const data::TraceStore& store, std::int64_t id) {
  data::Statement select(store.handle(), store.path(),
                         "SELECT e.file, e.text, e.sha256, e.overrides FROM comparisons c "
                         "LEFT JOIN comparison_experiments e ON e.comparison_id = c.id WHERE c.id = ?");
  select.bind(1, id);
  if (!select.step()) throw data::Error(store.path(), "no comparison " + std::to_string(id) + " (see `millrace runs`)");
  if (select.is_null(0)) return std::nullopt;
  return ExperimentSource{select.text(0), select.text(1), select.text(2),
                          nlohmann::json::parse(select.text(3)).get<std::vector<std::string>>()};
}

ComparisonHeader stored_header(const data::TraceStore& store, std::int64_t id) {
  data::Statement select(store.handle(), store.path(),
                         "SELECT kind, model, span_first, span_count, parameters FROM comparisons WHERE id = ?");
  select.bind(1, id);
  if (!select.step()) throw data::Error(store.path(), "no comparison " + std::to_string(id) + " (see `millrace runs`)");
  ComparisonHeader header;
  header.kind = select.text(0);
  header.model = select.text(1);
  header.span = {select.int64(2), select.int64(3)};
  header.parameters = nlohmann::json::parse(select.text(4), nullptr, false);
  if (!header.parameters.is_object()) {
    throw data::Error(store.path(), "comparison " + std::to_string(id) + ": its parameters are not a JSON object");
  }
  return header;
}

namespace {

constexpr int kCostsSchema = 14;  // migration 14 adds comparison_costs and comparison_pool_costs

// Comparison `id`'s rows at `position` (all of them when it is unset), in order: what was chosen
// and predicted, and what it cost when priced.
std::vector<ComparisonRow> read_rows(const data::TraceStore& store, std::int64_t id,
                                     std::optional<std::int64_t> position) {
  const std::string at = position ? " AND position = ?" : "";  // one row, or all of them
  data::Statement select(store.handle(), store.path(),
                         "SELECT r.partitioner, r.workers, r.queue_order, r.ranges, r.replicas, r.makespan_mean_us, "
                         "s.makespan_p10_us, s.makespan_p50_us, s.makespan_p90_us, r.deadline_met FROM comparison_rows r "
                         "LEFT JOIN comparison_spread s ON s.comparison_id = r.comparison_id AND s.position = "
                         "r.position WHERE r.comparison_id = ?" + (position ? " AND r.position = ?" : std::string()) +
                             " ORDER BY r.position");
  select.bind(1, id);
  if (position) select.bind(2, *position);
  std::vector<ComparisonRow> rows;
  while (select.step()) {
    ComparisonRow& row = rows.emplace_back();
    row.partitioner = select.text(0);
    row.workers = static_cast<int>(select.int64(1));
    row.order = select.text(2);
    row.ranges = static_cast<std::size_t>(select.int64(3));
    row.replicas = static_cast<int>(select.int64(4));
    row.makespan_mean = select.int64(5);
    if (!select.is_null(6)) {  // rows stored before their spread (migration 4) have none
      row.makespan_p10 = select.int64(6);
      row.makespan_p50 = select.int64(7);
      row.makespan_p90 = select.int64(8);
    }
    if (!select.is_null(9)) row.deadline_met = select.real(9);
  }
  if (store.schema_version() < kCostsSchema) return rows;  // a store read as it is may predate costs
  const std::int64_t first = position.value_or(0);
  data::Statement costs(store.handle(), store.path(),
                        "SELECT position, currency, mean_millionths, p10_millionths, p50_millionths, p90_millionths "
                        "FROM comparison_costs WHERE comparison_id = ?" + at);
  costs.bind(1, id);
  if (position) costs.bind(2, *position);
  while (costs.step()) {
    const auto at_row = static_cast<std::size_t>(costs.int64(0) - first);
    if (at_row >= rows.size()) continue;
    rows[at_row].cost = CostBand{{costs.int64(2)}, {costs.int64(3)}, {costs.int64(4)}, {costs.int64(5)}, costs.text(1), {}};
  }
  data::Statement pools(store.handle(), store.path(),
                        "SELECT position, pool, mean_millionths FROM comparison_pool_costs WHERE comparison_id = ?" + at +
                            " ORDER BY position, pool_index");
  pools.bind(1, id);
  if (position) pools.bind(2, *position);
  while (pools.step()) {
    const auto at_row = static_cast<std::size_t>(pools.int64(0) - first);
    if (at_row < rows.size() && rows[at_row].cost) rows[at_row].cost->pools.push_back({pools.text(1), {pools.int64(2)}});
  }
  return rows;
}

}  // namespace

ComparisonRow stored_row(const data::TraceStore& store, std::int64_t id, std::int64_t position) {
  stored_header(store, id);  // names a missing comparison
  std::vector<ComparisonRow> rows = read_rows(store, id, position);
  if (rows.empty()) {
    data::Statement count(store.handle(), store.path(), "SELECT count(*) FROM comparison_rows WHERE comparison_id = ?");
    count.bind(1, id);
    count.step();
    throw data::Error("comparison " + std::to_string(id) + " row " + std::to_string(position + 1),
                      "no such row: it has " + std::to_string(count.int64(0)) + " rows, numbered from 1");
  }
  return std::move(rows.front());
}

std::vector<ComparisonRow> stored_rows(const data::TraceStore& store, std::int64_t id) {
  stored_header(store, id);  // names a missing comparison
  return read_rows(store, id, std::nullopt);
}

}  // namespace millrace::sim
