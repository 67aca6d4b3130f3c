#include "data/importers/ethereum_importer.h"

#include <filesystem>

#include "data/checked_numbers.h"
#include "data/error.h"
#include "data/importers/csv_table.h"
#include "data/importers/fields.h"

namespace millrace::data::importers {

namespace {

struct Day {
  std::string where;
  std::int64_t timestamp = 0;
  double value = 0;
};

std::vector<Day> read_series(const std::string& path) {
  TextInput input(path);
  CsvReader csv(input);
  csv.require_columns({"Date(UTC)", "UnixTimeStamp", "Value"});
  std::vector<Day> days;
  CsvRow row;
  while (csv.next_row(row)) {
    Day d;
    d.where = input.where(row.line);
    d.timestamp = parse_int(row.fields[*csv.column("UnixTimeStamp")], d.where, "UnixTimeStamp");
    d.value = parse_real(row.fields[*csv.column("Value")], d.where, "Value");
    if (d.value < 0) throw Error(d.where, "negative Value");
    days.push_back(d);
  }
  return days;
}

}  // namespace

EthereumSeries ethereum_series_from_string(const std::string& text) {
  if (text == "size") return EthereumSeries::kBlockSize;
  if (text == "gas") return EthereumSeries::kGasUsed;
  throw Error("--series " + text, "unknown ethereum series (known: size, gas)");
}

CostProfile read_ethereum_profile(const std::string& path, EthereumSeries series) {
  std::filesystem::path dir = std::filesystem::is_directory(path) ? std::filesystem::path(path)
                                                                   : std::filesystem::path(path).parent_path();
  bool size = series == EthereumSeries::kBlockSize;
  std::string blocks_file = (dir / "export-BlockCountRewards.csv").string();
  std::string series_file = (dir / (size ? "export-BlockSize.csv" : "export-GasUsed.csv")).string();
  auto blocks = read_series(blocks_file);
  auto values = read_series(series_file);
  if (values.size() != blocks.size()) {
    throw Error(series_file, std::to_string(values.size()) + " days, but " + blocks_file + " has " +
                                 std::to_string(blocks.size()));
  }
  CostProfile profile;
  profile.name = size ? "ethereum-block-size" : "ethereum-gas";
  profile.units = "blocks";
  profile.source = series_file + (size ? " (average block size x 1 us/byte)" : " (gas per block x 0.01 us/gas)");
  std::int64_t next_block = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (values[i].timestamp != blocks[i].timestamp) throw Error(values[i].where, "day does not match " + blocks[i].where);
    const auto count = whole_number(blocks[i].value);
    if (!count) throw Error(blocks[i].where, "blocks per day is not a whole number within +-2^53");
    if (*count == 0) continue;
    double density = size ? values[i].value * kMicrosPerByte : values[i].value / static_cast<double>(*count) * kMicrosPerGas;
    const Range bin = first_count_range(next_block, *count, blocks[i].where, "blocks per day");
    profile.bins.push_back(ProfileBin{bin, density});
    next_block = bin.end();
  }
  if (profile.bins.empty()) throw Error(blocks_file, "no blocks");
  return profile;
}

}  // namespace millrace::data::importers
