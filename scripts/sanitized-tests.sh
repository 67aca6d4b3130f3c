#!/usr/bin/env bash
# Builds the project and its tests with AddressSanitizer and UndefinedBehaviorSanitizer (gcc,
# -fno-sanitize-recover: any undefined behaviour fails the test) in its own build folder, and
# runs them there.
#   scripts/sanitized-tests.sh                    the whole suite (ctest); before a release
#   scripts/sanitized-tests.sh --subset           the input-parsing suites only (CI, bootstrap.sh test)
#   scripts/sanitized-tests.sh -- CTEST_ARGS...   the whole suite, e.g. -- -R 'Lease|Import'
# The subset is what CI can afford after the fuzz stage: the importers, the ranges-file and
# profile parsers, the redaction layer and the kept fuzz inputs (their figures and why the whole
# suite is not in CI: fuzz/README.md).
# Environment: MILLRACE_SANITIZE_BUILD_DIR (default build-asan); extra CMake options in
# MILLRACE_SANITIZE_CMAKE_ARGS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MILLRACE_SANITIZE_BUILD_DIR:-$root/build-asan}
subset=(data_tests data_stellar_queue_tests partitioner_tests redaction_tests fuzz_regression_tests)
mode=all
extra=${MILLRACE_SANITIZE_CMAKE_ARGS:-}
if [ "${1:-}" = --subset ]; then
  mode=subset
  extra="-DMILLRACE_REAL_APISERVER_TESTS=OFF $extra"  # its fixture is not in the subset
  shift
fi
if [ "${1:-}" = -- ]; then shift; fi
# shellcheck disable=SC2086  # word splitting of the extra options is wanted
cmake -S "$root" -B "$build" -DMILLRACE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DMILLRACE_BUILD_BENCH=OFF $extra >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ "$mode" = subset ]; then
  cmake --build "$build" -j"$(nproc)" --target "${subset[@]}"
  for t in "${subset[@]}"; do
    echo "sanitized: $t" >&2
    (cd "$build/tests" && "./$t" --gtest_brief=1)
  done
else
  cmake --build "$build" -j"$(nproc)"
  cd "$build"
  ctest --output-on-failure -j"$(nproc)" "$@"
fi
