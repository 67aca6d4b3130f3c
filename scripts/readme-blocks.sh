#!/usr/bin/env bash
# Runs every ```sh block of the README in order, in one shell, as a new user pasting them would:
# in a scratch directory holding the checkout's data/, examples/ and deploy/ and the built
# millrace at build/cli/millrace, so nothing is written into the checkout.
#
#   readme-blocks.sh README.md BUILT_MILLRACE [--list]
#
# A block whose first line is a comment "# README test: skipped (WHY)" is not run, and one whose
# first line is "# README test: needs CMD" is run only where CMD is on PATH; each says so in the
# output ("skip README.md:LINE: WHY"). A failing block stops the run naming its README line.
set -euo pipefail

readme=$(realpath "$1")
millrace=$(realpath "$2")
list_only=${3:-}
source_dir=$(dirname "$readme")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/millrace-readme.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
script="$scratch/readme-blocks.bash"

# Writes the blocks into one bash script: each block starts by announcing its README line.
awk -v readme="$(basename "$readme")" '
  function flush() {
    if (skip != "") {
      printf "echo %c== skip %s:%d: %s%c\n", 39, readme, line, skip, 39
    } else if (need != "") {
      printf "if command -v %s >/dev/null; then\n", need
      printf "block_line=%d; echo \"== %s:%d (at $SECONDS s)\"\n%s", line, readme, line, body
      printf "else echo %c== skip %s:%d: %s is not installed%c; fi\n", 39, readme, line, need, 39
    } else {
      printf "block_line=%d; echo \"== %s:%d (at $SECONDS s)\"\n%s", line, readme, line, body
    }
  }
  /^```sh/ { inside = 1; line = NR; body = ""; skip = ""; need = ""; first = 1; next }
  inside && /^```/ { inside = 0; flush(); next }
  inside {
    if (first && match($0, /^# README test: skipped \(.*\)$/)) skip = substr($0, 25, length($0) - 25)
    if (first && match($0, /^# README test: needs [^ ]+$/)) need = substr($0, 22)
    first = 0
    body = body $0 "\n"
  }
' "$readme" > "$script.blocks"

if [ "$list_only" = --list ]; then
  cat "$script.blocks"
  exit 0
fi

mkdir -p "$scratch/build/cli"
ln -s "$millrace" "$scratch/build/cli/millrace"
for dir in data examples deploy; do ln -s "$source_dir/$dir" "$scratch/$dir"; done

{
  echo 'set -euo pipefail'
  echo "trap 'echo \"README block at line \$block_line failed\" >&2' ERR"
  cat "$script.blocks"
} > "$script"

cd "$scratch"
bash "$script"
echo "== every README block ran"
