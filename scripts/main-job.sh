#!/usr/bin/env bash
# The main job on the bundled data (embedded default, no cluster): see README.md.
set -euo pipefail
millrace=${1:?usage: main-job.sh PATH_TO_MILLRACE}
"$millrace" --help
