"""module_utils/alluxio/property_table.py is what tools/alluxio/property_table.sh writes from
Alluxio's jars now, and Alluxio itself reads the names and values of tests/alluxio_values.py as
the unit tests say alluxio/properties.py does.

Both run Alluxio 2.9.3's classes (the jars of tools/alluxio/jars.lock, fetched into the cache on
the first run) with the JDK that tools/bootstrap.sh installs; neither touches a cluster.
"""

import difflib
import os
import subprocess

import pytest

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio.properties import value_text
from ansible_collections.fluidops.accel.tests.alluxio_values import NAMES, REFERENCES, REFUSED, VALUES
from playbook import REPO

GENERATOR = os.path.join(REPO, "tools", "alluxio", "property_table.sh")
SHIPPED = os.path.join(REPO, "plugins", "module_utils", "alluxio", "property_table.py")


def test_the_shipped_table_is_what_the_generator_writes(tmp_path):
    written = tmp_path / "alluxio_property_table.py"
    result = subprocess.run([GENERATOR, str(written)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    with open(SHIPPED, encoding="utf-8") as handle:
        shipped = handle.read()
    fresh = written.read_text(encoding="utf-8")
    diff = list(difflib.unified_diff(shipped.splitlines(), fresh.splitlines(), "shipped", "generated now", lineterm="", n=0))
    assert not diff, "the table is stale: run tools/alluxio/property_table.sh and commit it\n" + "\n".join(diff[:40])


@pytest.fixture(scope="module")
def alluxio_reads():
    """{(name, text): (known, type, "ok" or "error", what Alluxio read)} for every case, in one JVM."""
    cases = [(name, value_text(value)) for name, value, _unused in VALUES + REFERENCES] + [(name, "1") for name, _unused in NAMES]
    assert all("\t" not in name + text and "\n" not in name + text for name, text in cases)
    probe = "".join("%s\t%s\n" % case for case in cases)
    result = subprocess.run([GENERATOR, "--probe"], input=probe, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(cases), result.stdout + result.stderr
    reads = {}
    for (name, text), line in zip(cases, lines):
        fields = line.split("\t", 4)
        assert fields[0] == name, line
        reads[(name, text)] = (fields[1] == "true", fields[2], fields[3], fields[4])
    return reads


def read_as(kind, printed):
    """What Java printed for a value, as tests/alluxio_values.py writes it."""
    if kind == "BOOLEAN":
        return printed == "true"
    if kind in ("INTEGER", "LONG", "DATASIZE", "DURATION"):
        return int(printed)
    if kind == "DOUBLE":
        return float(printed)
    return printed


@pytest.mark.parametrize("name, value, expected", VALUES + REFERENCES)
def test_alluxio_reads_the_value_as_the_cases_say(alluxio_reads, name, value, expected):
    known, kind, outcome, printed = alluxio_reads[(name, value_text(value))]
    assert known
    if expected is REFUSED and kind == "BOOLEAN":
        assert (outcome, printed) == ("ok", "false"), "a refused boolean is one Alluxio silently reads as false"
    elif expected is REFUSED:
        assert outcome == "error", "Alluxio read %r" % printed
    else:
        assert outcome == "ok", "Alluxio failed with " + printed
        assert read_as(kind, printed) == expected


@pytest.mark.parametrize("name, expected", NAMES)
def test_alluxio_knows_the_names_the_cases_say(alluxio_reads, name, expected):
    known, kind, _unused, _unused = alluxio_reads[(name, "1")]
    assert (kind if known else None) == expected
