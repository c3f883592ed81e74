#!/usr/bin/env bash
# Installs what the bundle and its tests need on a Debian/Ubuntu machine and reuses what is
# already there: Debian packages (only the missing ones), then a Python virtual environment
# keyed by the hash of requirements.txt + constraints.txt, kept outside the repository.
# Prints the venv directory on stdout as its last line.
set -euo pipefail
log_name=bootstrap
# shellcheck source=lib.sh  # log, repo, cache_root
. "$(dirname "$0")/lib.sh"
python=${FLUIDOPS_PYTHON:-python3}
# openjdk-17-jdk-headless and curl: tools/alluxio fetches Alluxio's jars from Maven Central and runs them;
# the JDK's compiler runs tools/alluxio/PropertyTable.java, a source file, on them.
# The shell scripts are checked with shellcheck (make lint); Ansible reaches the local node hosts over SSH.
system_packages=(podman runc debootstrap uidmap slirp4netns openjdk-17-jdk-headless curl shellcheck openssh-client)

# Debian's own python3 needs python3-venv for `python3 -m venv`; other Pythons carry ensurepip.
"$python" -c 'import ensurepip' 2>/dev/null || system_packages+=(python3-venv)

missing=()
for pkg in "${system_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if ((${#missing[@]})); then
  log "installing Debian packages: ${missing[*]}"
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

key=$(cat "$repo/requirements.txt" "$repo/constraints.txt" | sha256sum | cut -c1-12)
venv="$cache_root/venv-$key"
if [ ! -x "$venv/bin/ansible-playbook" ] || [ ! -f "$venv/.complete" ]; then
  log "creating Python venv $venv (first run only; about 2 minutes)"
  rm -rf "$venv"
  mkdir -p "$cache_root"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check \
    -r "$repo/requirements.txt" -c "$repo/constraints.txt" >&2
  touch "$venv/.complete"
fi

# The collections come from the `ansible` package; check them against requirements.yml.
"$venv/bin/python" "$repo/tools/check_collections.py" "$repo/requirements.yml" >&2
echo "$venv"
