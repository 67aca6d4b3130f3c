#include "data/importers/csv_importer.h"

#include "data/importers/csv_table.h"
#include "data/importers/timing_records.h"

namespace millrace::data::importers {

Trace read_timing_csv(const std::string& path) {
  auto input = TextInput::read(path);
  auto table = read_csv_table(input);
  std::vector<TimingRecord> records;
  for (const auto& row : table.rows) {
    TimingRecord record{input.where(row.line), {}};
    for (std::size_t c = 0; c < table.header.size(); ++c) {
      if (!row.fields[c].empty()) record.fields[table.header[c]] = row.fields[c];
    }
    records.push_back(std::move(record));
  }
  Trace trace = trace_from_timing_records(records);
  trace.run.source = RunSource::kImported;
  return trace;
}

}  // namespace millrace::data::importers
