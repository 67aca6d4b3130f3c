// Turns the Etherscan daily chart exports (data/sets/ethereum-daily-2015-2018) into a per-block
// cost profile, units = blocks. Input: a directory holding export-BlockCountRewards.csv (blocks
// per day) and the series file, each with the header "Date(UTC)","UnixTimeStamp","Value" and
// one row per day, days aligned across files. Block numbers are the cumulated blocks per day
// from 0, so day d covers [sum of earlier days, + blocks of day d) as one profile bin; days
// with no blocks add no bin. The bin's work density (micros per block) is:
//   size  export-BlockSize.csv (average block size, bytes) x 1 us per byte
//         (a 20 kB block costs 20 ms to replay)
//   gas   export-GasUsed.csv (gas used per day) / blocks that day x 0.01 us per gas
//         (100 Mgas/s: a full 8 M-gas block costs 80 ms)
// The scales are nominal replay speeds, not measurements: they set the profile's absolute
// level; its shape along the chain is the recorded one.
#pragma once

#include <string>

#include "data/cost_profile.h"

namespace millrace::data::importers {

enum class EthereumSeries { kBlockSize, kGasUsed };

inline constexpr double kMicrosPerByte = 1.0;
inline constexpr double kMicrosPerGas = 0.01;

// `path` is the directory or any file in it.
CostProfile read_ethereum_profile(const std::string& path, EthereumSeries series);

EthereumSeries ethereum_series_from_string(const std::string& text);  // "size" or "gas"

}  // namespace millrace::data::importers
