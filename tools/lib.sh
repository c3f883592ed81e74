# The helpers the tools' shell scripts share, sourced by each after it sets log_name, the name its
# messages carry (default: the script's file name):
#   log_name='localcluster nodes'
#   # shellcheck source=../lib.sh
#   . "$here/../lib.sh"
# Scripts that run inside a container or an image (node/start.sh, images/*, alluxio/bin) cannot
# reach this file and keep their own.
# shellcheck shell=bash disable=SC2034  # the variables are the sourcing script's
log_name=${log_name:-$(basename "$0")}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The caches of every tool, outside the repository.
cache_root=${FLUIDOPS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fluidops}
# Where the tools' Python programs find the collection and each other: they run as modules
# (python -m localcluster.simulator) with this PYTHONPATH, as the Makefile runs them.
tools_pythonpath=$repo/.collections:$repo/tools

log() { printf '[%s] %s\n' "$log_name" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The SECONDS are caps, not waits, and generous: make test starts clusters beside other targets on
# two cores, where a JVM or the apiserver can take minutes to come up. Progress every
# wait_for_every seconds (default 5); on timeout it says so and fails, the caller shows what it has.
wait_for() {  # wait_for WHAT SECONDS COMMAND...
  local what=$1 limit=$2 every=${wait_for_every:-5} waited=0; shift 2
  until "$@" >/dev/null 2>&1; do
    if ((waited >= limit)); then
      log "$what: not ready after $limit s"
      return 1
    fi
    ((waited > 0 && waited % every == 0)) && log "  waiting for $what ($waited s)"
    sleep 1; waited=$((waited + 1))
  done
}

show_tail() {  # show_tail FILE LINES: a log's last lines, on stderr
  log "last lines of $1:"
  tail -n "$2" "$1" >&2 || true
}

# module_dir MODULE@VERSION [SUM]: the directory of the Go module, downloaded once. SUM, the h1: hash
# of its zip as go.sum holds it (pinned in versions.env), is for a module the checksum database does
# not answer for: the download is checked against the pin instead.
module_dir() {
  local found
  # go mod download -json reports a failure in the JSON: said on stderr.
  found=$(if [ -n "${2:-}" ]; then GONOSUMDB=${1%@*} go mod download -json "$1"; else go mod download -json "$1"; fi \
    | python3 -c 'import json, sys; d = json.load(sys.stdin); sys.exit(d["Error"]) if "Error" in d else print(d["Sum"], d["Dir"])') \
    || die "could not download the Go module $1"
  [ -z "${2:-}" ] || [ "${found%% *}" = "$2" ] || die "$1: the module's hash is ${found%% *}, versions.env pins $2"
  echo "${found#* }"
}

ip_of() {  # ip_of CONTAINER: its address on the podman network
  podman container inspect -f '{{.NetworkSettings.IPAddress}}' "$1"
}
