#!/usr/bin/env bash
# Resolves pom.xml with Maven and writes jars.lock: one "<sha1> <path under maven2/>" line per
# jar, sorted. Run it after changing pom.xml (for example ALLUXIO_VERSION there), then commit
# both. fetch.sh reads only the lock file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
repo=${MAVEN_LOCAL_REPO:-$HOME/.m2/repository}
mvn -q -B -Dmaven.repo.local="$repo" -f "$here/pom.xml" dependency:list -DincludeScope=runtime -DoutputAbsoluteArtifactFilename=true \
  -DoutputFile="$work/list.txt"
# Lines look like "   group:artifact:jar[:classifier]:version:scope:/abs/path.jar". Alluxio logs
# through slf4j-reload4j (log4j 1 properties, as its conf/log4j.properties); the master's
# log4j-slf4j-impl would be a second slf4j binding, so it is left out.
grep -oE '/[^ ]+\.jar$' "$work/list.txt" | grep -v '/log4j-slf4j-impl/' | sort -u | while read -r jar; do
  printf '%s %s\n' "$(sha1sum "$jar" | cut -d' ' -f1)" "${jar#"$repo"/}"
done | sort -k2 > "$here/jars.lock.part"
mv "$here/jars.lock.part" "$here/jars.lock"
echo "$(wc -l < "$here/jars.lock") jars locked in $here/jars.lock" >&2
