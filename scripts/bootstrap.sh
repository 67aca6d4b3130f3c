#!/usr/bin/env bash
# One entry point for the README's two set-up commands:
#   bootstrap.sh main   install what is missing, build, run the main job on the bundled data; it ends
#                       with its report (HTML and PNGs) and prints where that is
#   bootstrap.sh test   install what is missing, build, run every test (ctest), then the fuzz targets,
#                       then the input-parsing suites under ASan+UBSan
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MILLRACE_BUILD_DIR:-$root/build}
mode=${1:-}
case "$mode" in
  main|test) ;;
  *) echo "usage: $0 main|test" >&2; exit 2 ;;
esac

bash "$root/scripts/install-deps.sh"
if [ "$mode" = test ]; then
  bash "$root/scripts/install-bench-deps.sh"
  bash "$root/scripts/install-notebook-deps.sh"  # the notebook tests execute them with Jupyter
else
  bash "$root/scripts/install-report-deps.sh"  # the main job's report draws with matplotlib
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)"

if [ "$mode" = test ]; then
  cd "$build"
  ctest --output-on-failure -j"$(nproc)"
  bash "$root/scripts/fuzz.sh"  # every fuzz target for a bounded time (fuzz/README.md)
  # ASan+UBSan on the input-parsing suites; the whole suite sanitized does not fit CI's time (fuzz/README.md)
  bash "$root/scripts/sanitized-tests.sh" --subset
else
  bash "$root/scripts/main-job.sh" "$build/cli/millrace"
fi
