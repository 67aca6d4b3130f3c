#!/usr/bin/env bash
# Builds the whole project and its tests with AddressSanitizer and UndefinedBehaviorSanitizer
# (gcc, -fno-sanitize-recover: any undefined behaviour fails the test) in its own build folder,
# and runs ctest there. Not part of CI (its cost, build and ctest on 2 cores, is in
# fuzz/README.md); run it before a release or after touching memory-sensitive code.
#   scripts/sanitized-tests.sh [CTEST_ARGS...]     e.g. -R 'Lease|Import'
# Environment: MILLRACE_SANITIZE_BUILD_DIR (default build-asan); extra CMake options in
# MILLRACE_SANITIZE_CMAKE_ARGS (e.g. -DMILLRACE_REAL_APISERVER_TESTS=OFF).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MILLRACE_SANITIZE_BUILD_DIR:-$root/build-asan}
# shellcheck disable=SC2086  # word splitting of the extra options is wanted
cmake -S "$root" -B "$build" -DMILLRACE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DMILLRACE_BUILD_BENCH=OFF ${MILLRACE_SANITIZE_CMAKE_ARGS:-} >/dev/null
cmake --build "$build" -j"$(nproc)"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build"
ctest --output-on-failure -j"$(nproc)" "$@"
