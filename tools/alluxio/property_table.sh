#!/usr/bin/env bash
# Writes plugins/module_utils/alluxio/property_table.py, the property names and types that
# module_utils/alluxio/properties.py checks against, from Alluxio's own alluxio.conf.PropertyKey:
# PropertyTable.java runs on the jars of jars.lock (fetch.sh). Run it after changing the Alluxio
# version there, then commit the module; tests/render/test_alluxio_property_table.py fails while
# the committed module differs from what this writes. Needs a JDK (java runs the .java file).
# Usage: property_table.sh [OUT]    write the module to OUT (default: the collection's)
#        property_table.sh --probe  how Alluxio reads each "name<TAB>value" line of stdin
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
lib=$("$here/fetch.sh")
run=(java -cp "$lib/*" "$here/PropertyTable.java")

if [ "${1:-}" = --probe ]; then
  exec "${run[@]}" --probe
fi
out=${1:-$repo/plugins/module_utils/alluxio/property_table.py}
part=$(mktemp "$out.XXXXXX")
trap 'rm -f "$part"' EXIT
"${run[@]}" > "$part"
chmod 644 "$part"
mv "$part" "$out"
echo "wrote $out" >&2
