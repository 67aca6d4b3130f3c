#include "data/importers/stellar_csv_importer.h"

#include "data/error.h"
#include "data/importers/csv_table.h"
#include "data/importers/fields.h"
#include "data/importers/stellar_trace.h"

namespace millrace::data::importers {

Run read_stellar_csv(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  CsvReader csv(input);
  csv.require_columns({"end_ledger", "ledger_count", "first_ledger", "worker_id", "tx_apply_ms", "total_s"});
  auto at = [&](const CsvRow& row, const char* name) -> const std::string& { return row.fields[*csv.column(name)]; };
  StellarRecording recording(path);
  CsvRow row;
  while (csv.next_row(row)) {
    StellarEntry e;
    e.where = input.where(row.line);
    std::int64_t end = parse_int(at(row, "end_ledger"), e.where, "end_ledger");
    std::int64_t count = parse_int(at(row, "ledger_count"), e.where, "ledger_count");
    e.range = end_count_range(end, count, e.where, "end_ledger/ledger_count");
    if (parse_int(at(row, "first_ledger"), e.where, "first_ledger") != e.range.first) {
      throw Error(e.where, "first_ledger is not end_ledger - ledger_count + 1");
    }
    e.worker = at(row, "worker_id");
    if (e.worker.empty()) throw Error(e.where, "empty worker_id");
    e.tx_apply = parse_millis(at(row, "tx_apply_ms"), e.where, "tx_apply_ms");
    e.total = parse_seconds(at(row, "total_s"), e.where, "total_s (duration)");
    recording.add(e);
  }
  return recording.write(sink);
}

Trace read_stellar_csv(const std::string& path) { return read_whole(path, read_stellar_csv); }

}  // namespace millrace::data::importers
