#!/usr/bin/env bash
# Installs the Debian packages the notebooks and `millrace report` need (Jupyter's headless
# executor, pandas, matplotlib, the Python kernel), and only those missing. No pip: these are
# Debian's own builds, run by Debian's /usr/bin/python3. Run as root on Debian 12 (bookworm).
set -euo pipefail
exec bash "$(dirname "$0")/install-deps.sh" \
  python3 python3-pandas python3-matplotlib \
  jupyter-nbconvert python3-nbconvert python3-nbclient python3-ipykernel
