#include "data/importers/csv_importer.h"

#include <optional>

#include "data/error.h"
#include "data/importers/csv_table.h"
#include "data/importers/timing_records.h"
#include "data/text_excerpt.h"
#include "data/timing_table.h"

namespace millrace::data::importers {

Run read_timing_csv(const std::string& path, TraceSink& sink) {
  TextInput input(path);
  CsvReader csv(input);
  TimingRecordReader records(sink);
  const std::optional<std::size_t> units = csv.column(std::string(kUnitsColumn));
  Run run;
  run.source = RunSource::kImported;
  CsvRow row;
  for (bool first = true; csv.next_row(row); first = false) {
    TimingRecord record{input.where(row.line), {}};
    if (units) {  // the run's, the same on every row
      if (first) run.units = row.fields[*units];
      if (row.fields[*units] != run.units) {
        throw Error(record.where, "units " + excerpt(row.fields[*units]) + " differ from the first row's " +
                                      excerpt(run.units) + " (a run has one unit)");
      }
    }
    for (std::size_t c = 0; c < csv.header().size(); ++c) {
      if (c != units && !row.fields[c].empty()) record.fields[csv.header()[c]] = std::move(row.fields[c]);
    }
    records.add(record);
  }
  records.finish(path);
  return run;
}

Trace read_timing_csv(const std::string& path) { return read_whole(path, read_timing_csv); }

}  // namespace millrace::data::importers
