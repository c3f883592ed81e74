#!/usr/bin/env bash
# Downloads the jars listed in jars.lock from Maven Central into the cache, checks each sha1, and
# prints the directory that holds them. Keyed by the lock file's hash: a second run returns at
# once, a changed lock fetches a new set. MAVEN_MIRROR overrides Maven Central.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mirror=${MAVEN_MIRROR:-https://repo.maven.apache.org/maven2}
cache=${FLUIDOPS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fluidops}/alluxio
key=$(sha256sum "$here/jars.lock" | cut -c1-10)
lib="$cache/jars-$key"
if [ -f "$lib/.complete" ]; then echo "$lib"; exit 0; fi

log() { printf '[alluxio jars] %s\n' "$*" >&2; }
log "downloading $(wc -l < "$here/jars.lock") jars from $mirror into $lib (first run only)"
mkdir -p "$lib"
start=$SECONDS
# One curl per jar, eight at a time; each checks its own sha1 and names the jar that failed.
# shellcheck disable=SC2016  # single quotes on purpose: the inner sh expands $1..$4, the fields xargs passes
if ! xargs -P 8 -L 1 sh -c '
  sum=$1 path=$2 file=$3/$(basename "$2")
  if [ -f "$file" ] && echo "$sum  $file" | sha1sum -c --quiet - >/dev/null 2>&1; then exit 0; fi
  curl -fsS --retry 3 --retry-all-errors -o "$file.part" "$4/$path" || { echo "download failed: $4/$path" >&2; exit 255; }
  echo "$sum  $file.part" | sha1sum -c --quiet - >/dev/null 2>&1 || { echo "sha1 mismatch: $path (want $sum)" >&2; exit 255; }
  mv "$file.part" "$file"' sh < <(awk -v lib="$lib" -v mirror="$mirror" '{print $1, $2, lib, mirror}' "$here/jars.lock"); then
  log "failed after $((SECONDS - start)) s"
  exit 1
fi
touch "$lib/.complete"
log "$(du -sh "$lib" | cut -f1) in $((SECONDS - start)) s"
echo "$lib"
