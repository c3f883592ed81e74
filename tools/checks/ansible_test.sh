#!/usr/bin/env bash
# Runs ansible-test on the collection, from VENV (a venv with the ansible-core to test), on a copy
# of the collection at ansible_collections/fluidops/accel, where ansible-test needs it: in the
# cache, never in the repository.
#   tools/checks/ansible_test.sh VENV sanity|units [ANSIBLE-TEST ARGS...]
# The copy holds the files git knows, tracked or new and not ignored, less .collections (a link
# back to the repository); one per run, removed at its end, so that two runs can go at once (two
# checkouts share the cache: one run's copy would otherwise vanish under the other). kubernetes.core,
# which the modules import, is linked beside it from the main venv's `ansible` package (or
# FLUIDOPS_DEPS_COLLECTIONS, an ansible_collections directory).
# ansible-test keeps the venvs of its sanity tests (each test's pinned linters, installed from PyPI
# on the first run of an ansible-core version, then reused offline) in ~/.ansible/test/venv: its
# HOME here is a directory of the cache, so they stay with the other caches.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
venv=$1 command=$2; shift 2
cache=${FLUIDOPS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fluidops}
deps=${FLUIDOPS_DEPS_COLLECTIONS:-$(echo "$(cat "$cache/.venv-path")"/lib/python3*/site-packages/ansible_collections)}
[ -d "$deps/kubernetes/core" ] || { echo "ansible_test.sh: no kubernetes.core in $deps (make deps first)" >&2; exit 2; }

core=$("$venv/bin/python" -c 'from ansible.release import __version__; print(__version__)')
home="$cache/ansible-test/$core/home"
mkdir -p "$home"
root=$(mktemp -d "$cache/ansible-test/$core/$command.XXXXXX")
trap 'rm -rf "$root"' EXIT
tree="$root/ansible_collections/fluidops/accel"
mkdir -p "$tree"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
  # A tracked file deleted in the work tree is not copied.
  [ "$file" != .collections/ansible_collections/fluidops/accel ] && [ -e "$file" ] && printf '%s\0' "$file"
done | tar --null -T - -cf -) | tar -xf - -C "$tree"
ln -sfn "$deps/kubernetes" "$root/ansible_collections/kubernetes"
# The pip bootstrap script ansible-test would download, under the name of the pip version it pins.
pip_version=$(sed -n "s/^ *pip='\([0-9.]*\)',\{0,1\}$/\1/p" "$("$venv/bin/python" -c 'import ansible_test, os; print(os.path.dirname(ansible_test.__file__))')/_internal/python_requirements.py")
[ -n "$pip_version" ] || { echo "ansible_test.sh: the pip version ansible-test pins was not found" >&2; exit 2; }
mkdir -p "$home/.ansible/test/cache"
cp "$repo/tools/checks/get_pip.py" "$home/.ansible/test/cache/get_pip_${pip_version//./_}.py"

cd "$tree"
# Make's ANSIBLE_CONFIG and ANSIBLE_HOME point into the repository: ansible-test sets its own.
env -u ANSIBLE_CONFIG -u ANSIBLE_HOME HOME="$home" PATH="$venv/bin:$PATH" \
  "$venv/bin/ansible-test" "$command" "$@" --python 3.11 --color no
