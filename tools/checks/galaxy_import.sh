#!/usr/bin/env bash
# Galaxy's own import checks on the collection as it is published, and the changelog as
# antsibull-changelog keeps it. From the venv of tools/checks/galaxy.txt:
#   1. antsibull-changelog lint: the fragments waiting for the next release are well formed;
#   2. CHANGELOG.md is what antsibull-changelog generate writes from changelogs/changelog.yaml;
#   3. ansible-galaxy collection build, then galaxy-importer on the tarball: no error and no
#      warning (its ansible-test run is off: it runs in a container; make lint and make
#      core-oldest run ansible-test here);
#   4. the importer's ansible-lint run, as it runs it (galaxy_importer/loaders/collection.py,
#      _lint_collection: its arguments, the tarball unpacked in a collections path), here and not
#      by the importer, which gives it 180 s and fails on a machine busy with the other suites.
# Everything it writes goes to a temporary directory. Prints what failed, exits non-zero.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
venv=$("$repo/tools/checks/venv.sh" galaxy)
work=$(mktemp -d "${TMPDIR:-/tmp}/fluidops-galaxy.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# The venv's `ansible` package holds the collections galaxy.yml depends on: ansible-doc and
# ansible-lint find them there (no Galaxy server is asked).
export PATH="$venv/bin:$PATH" ANSIBLE_HOME="$work/ansible-home" ANSIBLE_LOCAL_TEMP="$work/ansible-tmp"
unset ANSIBLE_CONFIG

cd "$repo"
antsibull-changelog lint
mkdir -p "$work/changelog"
cp -r galaxy.yml changelogs CHANGELOG.md "$work/changelog/"
(cd "$work/changelog" && antsibull-changelog generate)
if ! diff -u CHANGELOG.md "$work/changelog/CHANGELOG.md"; then
  echo "CHANGELOG.md is not what antsibull-changelog generate writes from changelogs/changelog.yaml (the diff above): add a fragment to changelogs/fragments instead of editing it" >&2
  exit 1
fi
echo "changelog ok: fragments lint, CHANGELOG.md generated from changelogs/changelog.yaml"

ansible-galaxy collection build --output-path "$work" >/dev/null
tarball=$(ls "$work"/fluidops-accel-*.tar.gz)
# From the temporary directory: it writes importer_result.json where it runs.
(cd "$work" && GALAXY_IMPORTER_RUN_ANSIBLE_TEST=false GALAXY_IMPORTER_RUN_ANSIBLE_LINT=false GALAXY_IMPORTER_TMP_ROOT_DIR="$work" \
  python -m galaxy_importer.main --print-result "$tarball" > "$work/import.log" 2>&1) || {
    cat "$work/import.log"; echo "galaxy-importer failed on $(basename "$tarball")" >&2; exit 1; }
# Its log lines are LEVEL: message; a result's warnings are also in the JSON it prints.
if grep -E '^(WARNING|ERROR|CRITICAL)' "$work/import.log"; then
  echo "galaxy-importer reported the warnings or errors above on $(basename "$tarball")" >&2
  exit 1
fi
# It read every module's documentation (ansible-doc resolved its fragments).
python "$repo/tools/checks/galaxy_result.py" "$work/import.log"
# The importer's ansible-lint: each line on stdout is a violation, which it logs as a warning; on
# stderr, lines of CRITICAL or ERROR are errors.
unpacked=$work/lint/ansible_collections/fluidops/accel
mkdir -p "$unpacked" "$work/lint-tmp"
tar -xzf "$tarball" -C "$unpacked"
status=0
(cd "$unpacked" && env ANSIBLE_COLLECTIONS_PATH="$work/lint" ANSIBLE_LOCAL_TEMP="$work/lint-tmp" XDG_CACHE_HOME="$work/lint-tmp" \
  ansible-lint --profile production --exclude tests/integration/ --exclude tests/unit/ --format=pep8 --nocolor \
  -x yaml,var-naming,avoid-dot-notation,import-task-no-when,single-entry-point,use-loop --offline \
  > "$work/lint.out" 2> "$work/lint.err") || status=$?
if [ "$status" -ne 0 ] || [ -s "$work/lint.out" ] || grep -E '^(CRITICAL|ERROR)' "$work/lint.err"; then
  cat "$work/lint.out" "$work/lint.err"
  echo "ansible-lint, as galaxy-importer runs it, found the above in $(basename "$tarball") (exit $status)" >&2
  exit 1
fi
echo "galaxy-importer's ansible-lint ok: no violation, no error"
