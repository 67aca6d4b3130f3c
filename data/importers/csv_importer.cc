#include "data/importers/csv_importer.h"

#include "data/importers/csv_table.h"
#include "data/importers/timing_records.h"

namespace millrace::data::importers {

Run read_timing_csv(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  CsvReader csv(input);
  TimingRecordReader records(sink);
  CsvRow row;
  while (csv.next_row(row)) {
    TimingRecord record{input.where(row.line), {}};
    for (std::size_t c = 0; c < csv.header().size(); ++c) {
      if (!row.fields[c].empty()) record.fields[csv.header()[c]] = std::move(row.fields[c]);
    }
    records.add(record);
  }
  records.finish(path);
  Run run;
  run.source = RunSource::kImported;
  return run;
}

Trace read_timing_csv(const std::string& path) { return read_whole(path, read_timing_csv); }

}  // namespace millrace::data::importers
