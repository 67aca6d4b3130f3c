#!/usr/bin/env bash
# Installs the Debian packages `millrace report` needs to draw its figures (python3 with pandas and
# matplotlib, run as Debian's /usr/bin/python3), and only those missing; the main job ends with
# that report, so `bootstrap.sh main` runs this. Extra packages given as arguments are installed
# the same way (install-notebook-deps.sh adds Jupyter's). Run as root on Debian 12 (bookworm).
set -euo pipefail
exec bash "$(dirname "$0")/install-deps.sh" python3 python3-pandas python3-matplotlib "$@"
