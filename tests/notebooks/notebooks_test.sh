#!/usr/bin/env bash
# Executes every notebook headless against the fixture store (make_store.sh) and checks that each
# wrote its figures: PNG files exist and are non-empty, and the executed notebook has image outputs.
#   notebooks_test.sh SOURCE_DIR WORK
# The compare and plan notebooks are checked for figures only when the store has those results;
# otherwise they must run and say that there are none.
set -euo pipefail
src=${1:?source dir}; work=${2:?work dir}
out=$work/notebooks; figures=$work/figures
rm -rf "$out" "$figures"; mkdir -p "$out" "$figures"
export MILLRACE_STORE=$work/store.db MILLRACE_MODEL=$work/model.json MILLRACE_FIGURES=$figures
export PYDEVD_DISABLE_FILE_VALIDATION=1 MPLBACKEND=module://matplotlib_inline.backend_inline
command -v jupyter-nbconvert >/dev/null || { echo "jupyter-nbconvert missing: run scripts/install-notebook-deps.sh" >&2; exit 1; }

declare -A expect=(
  [01_recorded_run]="run_durations run_gantt run_tail"
  [02_cost_model]="model_coefficients model_fit"
  [03_compare]="compare"
  [04_plan]="plan"
  [05_real_vs_simulated]="real_vs_simulated"
)

failed=0; passed=0
for name in 01_recorded_run 02_cost_model 03_compare 04_plan 05_real_vs_simulated; do
  if ! jupyter-nbconvert --to notebook --execute "$src/notebooks/$name.ipynb" --output-dir "$out" \
      >"$out/$name.log" 2>&1; then
    echo "FAIL $name: execution failed"; tail -20 "$out/$name.log"; failed=$((failed + 1)); continue
  fi
  ok=1
  for figure in ${expect[$name]}; do
    [ -s "$figures/$figure.png" ] || { echo "FAIL $name: $figures/$figure.png missing or empty"; ok=0; }
  done
  images=$(/usr/bin/python3 -c '
import json, sys
cells = json.load(open(sys.argv[1]))["cells"]
print(sum("image/png" in o.get("data", {}) for c in cells for o in c.get("outputs", [])))' "$out/$name.ipynb")
  wanted=$(wc -w <<<"${expect[$name]}")
  if [ "$images" -lt "$wanted" ]; then
    echo "FAIL $name: $images image outputs, expected $wanted"; ok=0
  fi
  if [ "$wanted" -eq 0 ] && ! grep -q "has no .* results" "$out/$name.ipynb"; then
    echo "FAIL $name: no results, but the notebook does not say so"; ok=0
  fi
  if [ "$ok" = 1 ]; then
    passed=$((passed + 1)); echo "ok $name: $images image outputs, figures: ${expect[$name]:-none (no results in the store)}"
  else
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
