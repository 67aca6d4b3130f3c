#include "data/importers/ethereum_importer.h"

#include <filesystem>

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
  auto input = TextInput::read(path);
  auto table = read_csv_table(input);
  require_columns(input, table, {"Date(UTC)", "UnixTimeStamp", "Value"});
  std::vector<Day> days;
  for (const auto& row : table.rows) {
    Day d;
    d.where = input.where(row.line);
    d.timestamp = parse_int(row.fields[*table.column("UnixTimeStamp")], d.where, "UnixTimeStamp");
    d.value = parse_real(row.fields[*table.column("Value")], d.where, "Value");
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
    double count = blocks[i].value;
    if (count != static_cast<double>(static_cast<std::int64_t>(count))) {
      throw Error(blocks[i].where, "blocks per day is not a whole number");
    }
    if (count == 0) continue;
    double density = size ? values[i].value * kMicrosPerByte : values[i].value / count * kMicrosPerGas;
    profile.bins.push_back(ProfileBin{Range{next_block, static_cast<std::int64_t>(count)}, density});
    next_block += static_cast<std::int64_t>(count);
  }
  if (profile.bins.empty()) throw Error(blocks_file, "no blocks");
  return profile;
}

}  // namespace millrace::data::importers
