#!/usr/bin/env bash
# Installs the Debian packages the notebooks need beyond `millrace report`'s (install-report-deps.sh):
# Jupyter's headless executor and the Python kernel, and only those missing. No pip: these are
# Debian's own builds, run by Debian's /usr/bin/python3. Run as root on Debian 12 (bookworm).
set -euo pipefail
exec bash "$(dirname "$0")/install-report-deps.sh" \
  jupyter-nbconvert python3-nbconvert python3-nbclient python3-ipykernel
