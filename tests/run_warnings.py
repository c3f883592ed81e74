"""The warnings a playbook run prints, and the allow-list of those the project accepts.

ansible-core prints a warning as one line starting ``[WARNING]:`` and a deprecation as one starting
``[DEPRECATION WARNING]:`` (ansible/utils/display.py, 2.19: ``Display._warning`` and
``Display._deprecated``; the text is no longer wrapped), each ahead of a ``[WARNING]`` saying how
to turn deprecations off. The project's own modules warn through ``module.warn``; a warning from a
dependency is allowed only when no release of it that can be installed here fixes it, and the
entry says why, with the upstream reference.

Every run a test makes through tests/playbook.py, and every runbook block that runs
ansible-playbook, is recorded here (``record``); the cluster and integration tests check each run after the test
that made it (tests/cluster/conftest.py, tests/nodes/conftest.py); tests/nodes/test_zz_down.py checks
that the playbooks operators run were among the runs checked, and that every entry of the allow-list
is still printed by one.
"""

import collections
import os
import re

import pytest

Allowed = collections.namedtuple("Allowed", "pattern reason")

ALLOWED = (
    Allowed(r"\[DEPRECATION WARNING\]: Passing `warnings` to `exit_json` or `fail_json` is deprecated\.",
            "ansible.posix.mount 2.1.0 (the gpu_node role's cache mounts) passes warnings to exit_json. Fixed "
            "upstream by ansible-collections/ansible.posix pull requests 670 (main) and 730 (stable-2), in releases "
            "after 2.1.0; the newest ansible package on PyPI (12.3.0, the newest for Python 3.11) ships 2.1.0, and "
            "no other registry reached here has ansible.posix."),
)

# ansible-core's line ahead of every deprecation (Display._deprecated): allowed where the run
# printed a deprecation, since that deprecation is checked itself.
DEPRECATIONS_OFF = "[WARNING]: Deprecation warnings can be disabled by setting `deprecation_warnings=False` in ansible.cfg."

WARNING = re.compile(r"^\[(?:DEPRECATION )?WARNING\]: .*$", re.MULTILINE)

Run = collections.namedtuple("Run", "playbooks output")
RUNS = []  # every run recorded, in order
CHECKED = []  # the runs a test has checked, (Run, the warnings left once the allow-list and the test's expected ones are out)


def warnings_in(output):
    """Each warning and deprecation the output prints, as its line, in order (repeats kept)."""
    return [line.rstrip() for line in WARNING.findall(output.replace("\r\n", "\n"))]


def unlisted(output, expected=()):
    """The warnings of the output that neither the allow-list nor ``expected`` (patterns matched at
    the start of a warning's line, for a test that makes a warning on purpose) accounts for."""
    found = warnings_in(output)
    patterns = [allowed.pattern for allowed in ALLOWED] + list(expected)
    deprecated = any(line.startswith("[DEPRECATION WARNING]") for line in found)
    return [line for line in found
            if not (line == DEPRECATIONS_OFF and deprecated) and not any(re.match(pattern, line) for pattern in patterns)]


def playbooks_in(command):
    """The playbooks an ansible-playbook command line runs (a runbook block), by file name."""
    names = []
    # One command per line, a backslash at the end of a line going on to the next.
    for words in re.findall(r"ansible-playbook((?:[ \t]+[^\s|;&]+)+)", command.replace("\\\n", " ")):
        names += [os.path.basename(word) for word in words.split() if word.endswith(".yml") and not word.startswith(("@", "-"))]
    return names


def record(playbooks, output):
    """Keeps a finished run for the check after the test that made it."""
    RUNS.append(Run(tuple(_file_name(str(playbook)) for playbook in playbooks), output))


def _file_name(playbook):
    """site.yml for playbooks/site.yml and for the installed collection's fluidops.accel.site."""
    name = os.path.basename(playbook)
    return name if name.endswith((".yml", ".yaml")) else name.rsplit(".", 1)[-1] + ".yml"


def check_recorded(expected=()):
    """Checks every run recorded since the last check: the problems, one line per unlisted warning
    naming the run's playbooks."""
    problems = []
    while RUNS:
        run = RUNS.pop(0)
        left = unlisted(run.output, expected)
        CHECKED.append((run, left))
        problems += ["%s: %s" % (" ".join(run.playbooks), line) for line in left]
    return problems


def checked_playbooks():
    """{playbook file name: runs checked that ran it}."""
    counts = collections.Counter()
    for run, _unused in CHECKED:
        counts.update(set(run.playbooks))
    return dict(counts)


@pytest.fixture(autouse=True)
def no_unlisted_warnings(request):
    """After each test: the runs recorded since the last check print no warning outside the
    allow-list, other than those the test's ``expected_warnings`` mark names (patterns)."""
    yield
    expected = [pattern for mark in request.node.iter_markers("expected_warnings") for pattern in mark.args]
    problems = check_recorded(expected)
    assert not problems, "warnings outside the allow-list (tests/run_warnings.py):\n" + "\n".join(problems)
