#!/usr/bin/env bash
# Downloads the jars listed in jars.lock from Maven Central into the cache, checks each sha1, and
# prints the directory that holds them. Keyed by the lock file's hash: a second run returns at
# once, a changed lock fetches a new set. MAVEN_MIRROR overrides Maven Central.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log_name='alluxio jars'
# shellcheck source=../lib.sh  # log, cache_root
. "$here/../lib.sh"
mirror=${MAVEN_MIRROR:-https://repo.maven.apache.org/maven2}
cache=$cache_root/alluxio
key=$(sha256sum "$here/jars.lock" | cut -c1-10)
lib="$cache/jars-$key"
if [ -f "$lib/.complete" ]; then echo "$lib"; exit 0; fi
log "downloading $(wc -l < "$here/jars.lock") jars from $mirror into $lib (first run only)"
mkdir -p "$lib"
start=$SECONDS
# fetch_jar SHA1 PATH DIR MIRROR: one jar, its sha1 checked; a failure names the jar and exits 255,
# which stops xargs.
fetch_jar() {
  local sum=$1 path=$2 file=$3/${2##*/} mirror=$4
  if [ -f "$file" ] && echo "$sum  $file" | sha1sum -c --quiet - >/dev/null 2>&1; then return 0; fi
  curl -fsS --retry 3 --retry-all-errors -o "$file.part" "$mirror/$path" || { echo "download failed: $mirror/$path" >&2; exit 255; }
  echo "$sum  $file.part" | sha1sum -c --quiet - >/dev/null 2>&1 || { echo "sha1 mismatch: $path (want $sum)" >&2; exit 255; }
  mv "$file.part" "$file"
}
export -f fetch_jar
# One curl per jar, eight at a time.
# shellcheck disable=SC2016  # expanded by the bash that xargs starts
if ! xargs -P 8 -L 1 bash -c 'fetch_jar "$@"' fetch_jar \
  < <(awk -v lib="$lib" -v mirror="$mirror" '{print $1, $2, lib, mirror}' "$here/jars.lock"); then
  log "failed after $((SECONDS - start)) s"
  exit 1
fi
touch "$lib/.complete"
log "$(du -sh "$lib" | cut -f1) in $((SECONDS - start)) s"
echo "$lib"
