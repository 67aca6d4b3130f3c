// The libFuzzer harness of every fuzz_NAME executable: runs the entry point NAME
// (MILLRACE_FUZZ_TARGET, set at build time) on each input. A data::Error is a clean refusal;
// anything else thrown (a ContractViolation, a library's own exception) aborts with its
// message, so libFuzzer reports a crash and keeps the input. Sanitizer reports abort by themselves.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "data/error.h"
#include "fuzz/entry_points.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace millrace::fuzz;
  static const InputFolder folder;
  static const EntryPoint entry = entry_point(MILLRACE_FUZZ_TARGET);
  try {
    entry(std::string_view(reinterpret_cast<const char*>(data), size), folder);
  } catch (const millrace::data::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "millrace fuzz: %s: %s\n", MILLRACE_FUZZ_TARGET, e.what());
    std::abort();
  }
  return 0;
}
