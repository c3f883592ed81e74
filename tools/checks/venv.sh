#!/usr/bin/env bash
# Makes the venv of one of the checks' requirement files (tools/checks/NAME.txt, every version
# pinned) in the cache, keyed by the file's hash, and reuses it afterwards, as tools/bootstrap.sh
# does for the main venv. Prints the venv's directory.
#   tools/checks/venv.sh core-oldest|galaxy
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache_dir=${FLUIDOPS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fluidops}
python=${FLUIDOPS_PYTHON:-python3.11}
requirements="$here/$1.txt"
[ -f "$requirements" ] || { echo "venv.sh: no $requirements" >&2; exit 2; }
venv="$cache_dir/venv-$1-$(sha256sum < "$requirements" | cut -c1-12)"
if [ ! -f "$venv/.complete" ]; then
  echo "[checks] creating the venv $venv (first run only; about a minute)" >&2
  rm -rf "$venv"
  mkdir -p "$cache_dir"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements" >&2
  touch "$venv/.complete"
fi
echo "$venv"
