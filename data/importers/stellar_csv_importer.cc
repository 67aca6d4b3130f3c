#include "data/importers/stellar_csv_importer.h"

#include "data/error.h"
#include "data/importers/csv_table.h"
#include "data/importers/fields.h"
#include "data/importers/stellar_trace.h"

namespace millrace::data::importers {

Trace read_stellar_csv(const std::string& path) {
  auto input = TextInput::read(path);
  auto table = read_csv_table(input);
  require_columns(input, table, {"end_ledger", "ledger_count", "first_ledger", "worker_id", "tx_apply_ms", "total_s"});
  auto at = [&](const CsvRow& row, const char* name) -> const std::string& { return row.fields[*table.column(name)]; };
  std::vector<StellarEntry> entries;
  for (const auto& row : table.rows) {
    StellarEntry e;
    e.where = input.where(row.line);
    std::int64_t end = parse_int(at(row, "end_ledger"), e.where, "end_ledger");
    std::int64_t count = parse_int(at(row, "ledger_count"), e.where, "ledger_count");
    check_count(count, e.where, "ledger_count");
    e.range = Range{end - count + 1, count};
    if (parse_int(at(row, "first_ledger"), e.where, "first_ledger") != e.range.first) {
      throw Error(e.where, "first_ledger is not end_ledger - ledger_count + 1");
    }
    e.worker = at(row, "worker_id");
    if (e.worker.empty()) throw Error(e.where, "empty worker_id");
    e.tx_apply = parse_millis(at(row, "tx_apply_ms"), e.where, "tx_apply_ms");
    e.total = parse_seconds(at(row, "total_s"), e.where, "total_s (duration)");
    entries.push_back(std::move(e));
  }
  return stellar_trace(std::move(entries));
}

}  // namespace millrace::data::importers
