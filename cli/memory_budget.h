// Requests too big for this machine's memory are refused before anything is allocated, with the
// estimate, instead of growing until the kernel kills the process (`partition --range-count
// 1000000000` reached 24 GB) or ending in a bare std::bad_alloc. A command estimates what a
// request needs (count x bytes per element, the bytes measured on that command's peak memory)
// and compares it with what the machine can give: MemAvailable of /proc/meminfo, or the cap in
// the environment variable MILLRACE_MEMORY_LIMIT (bytes, or with a K, M or G suffix) when that
// is lower.
#pragma once

#include <cstdint>
#include <string>

namespace millrace::cli {

struct MemoryLimit {
  double bytes = 0;
  std::string source;  // "MemAvailable in /proc/meminfo" or "MILLRACE_MEMORY_LIMIT"
};

// Peak memory per worker slot of a simulated cluster (its slot and name, the scheduler's view of
// it), shared by `simulate`, `compare` and `plan`: 104 bytes, measured with /usr/bin/time -f %M
// between 10^5 and 10^6 slots (`simulate --workers`).
inline constexpr double kBytesPerSimulatedSlot = 105;

// The memory a command may plan to use now.
MemoryLimit available_memory();

// "24.0 GB", "512.0 MB".
std::string bytes_text(double bytes);

// Throws data::Error naming `input` (the option and its value) when `count` elements of
// `bytes_each` bytes, for `what`, need more than available_memory().
void require_memory(double count, double bytes_each, const std::string& input, const std::string& what);

}  // namespace millrace::cli
