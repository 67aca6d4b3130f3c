#!/usr/bin/env bash
# Installs the Debian packages the notebooks and `millrace report` need (Jupyter's headless
# executor, pandas, matplotlib, the Python kernel), and only those missing. No pip: these are
# Debian's own builds, run by Debian's /usr/bin/python3. Run as root on Debian 12 (bookworm).
set -euo pipefail

packages=(
  python3 python3-pandas python3-matplotlib
  jupyter-nbconvert python3-nbconvert python3-nbclient python3-ipykernel
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-notebook-deps: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
fi
