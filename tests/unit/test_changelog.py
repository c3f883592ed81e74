"""The changelog as collections keep it (antsibull-changelog): galaxy.yml's version is the newest
release of changelogs/changelog.yaml, or the next one by semantic versioning when fragments wait
for a release; each release's number follows from what it changed over the one before; CHANGELOG.md
has a section for every release. (make galaxy-import checks that CHANGELOG.md is what
antsibull-changelog writes from changelog.yaml, and lints the fragments.)"""

import os
import re

import pytest
import yaml

from playbook import REPO

CHANGELOGS = os.path.join(REPO, "changelogs")
# What a change of each category asks of the version (a collection's semantic versioning).
MAJOR = {"breaking_changes", "removed_features"}
MINOR = {"major_changes", "minor_changes", "deprecated_features"}
PATCH = {"bugfixes", "security_fixes", "known_issues", "trivial", "release_summary"}


def version(text):
    return tuple(int(part) for part in re.fullmatch(r"(\d+)\.(\d+)\.(\d+)", text).groups())


def bump(before, changes):
    """The version after ``before`` that ``changes`` ({category: entries}) ask for."""
    unknown = set(changes) - MAJOR - MINOR - PATCH - {"modules", "plugins", "objects", "fragments"}
    assert not unknown, "categories the test does not know: %s" % sorted(unknown)
    if set(changes) & MAJOR:
        return (before[0] + 1, 0, 0)
    if set(changes) & MINOR or changes.get("modules") or changes.get("plugins") or changes.get("objects"):
        return (before[0], before[1] + 1, 0)
    return (before[0], before[1], before[2] + 1)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


@pytest.fixture(scope="module")
def releases():
    """[(version, changes)] oldest first; changes merges the release's changes, modules and plugins."""
    found = []
    for text, release in load(os.path.join(CHANGELOGS, "changelog.yaml"))["releases"].items():
        changes = dict(release.get("changes") or {})
        changes.update({key: release[key] for key in ("modules", "plugins", "objects") if release.get(key)})
        found.append((version(text), changes))
    return sorted(found)


def pending():
    """The categories of the fragments waiting for the next release."""
    changes = {}
    for name in sorted(os.listdir(os.path.join(CHANGELOGS, "fragments"))):
        if name.endswith((".yml", ".yaml")):
            for category, entries in (load(os.path.join(CHANGELOGS, "fragments", name)) or {}).items():
                changes.setdefault(category, entries)
    return changes


def test_each_release_number_follows_from_what_it_changed(releases):
    assert releases and releases[0][0] == (1, 0, 0), "the first release is 1.0.0"
    for (before, _unused), (after, changes) in zip(releases, releases[1:]):
        assert after == bump(before, changes), "release %s after %s with %s" % (after, before, sorted(changes))


def test_galaxy_version_is_the_newest_release_or_the_next_one_the_fragments_ask_for(releases):
    galaxy = version(load(os.path.join(REPO, "galaxy.yml"))["version"])
    newest = releases[-1][0]
    waiting = pending()
    assert galaxy == (bump(newest, waiting) if waiting else newest), "galaxy.yml %s, newest release %s, fragments %s" % (
        galaxy, newest, sorted(waiting))


def test_the_changelog_has_a_section_for_every_release(releases):
    with open(os.path.join(REPO, "CHANGELOG.md"), encoding="utf-8") as handle:
        headings = re.findall(r"^## v(\S+)$", handle.read(), flags=re.M)
    assert sorted(version(text.replace("\\", "")) for text in headings) == [v for v, _unused in releases]


@pytest.mark.parametrize("before, changes, after", [
    ((1, 0, 0), {"bugfixes": ["x"]}, (1, 0, 1)),
    ((1, 0, 1), {"minor_changes": ["x"], "bugfixes": ["y"]}, (1, 1, 0)),
    ((1, 1, 0), {"plugins": {"filter": [{"name": "x"}]}}, (1, 2, 0)),
    ((1, 2, 3), {"removed_features": ["x"]}, (2, 0, 0)),
])
def test_the_bump_of_each_category(before, changes, after):
    assert bump(before, changes) == after
