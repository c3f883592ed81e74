"""Run the project's playbooks as a user would, and read the PLAY RECAP."""

import json
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECAP_LINE = re.compile(r"(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)")


def run_playbook(*playbooks, inventory=None, extra_vars=None, check=False, extra_files=(), verbosity=0, env=None):
    """Returns (return code, output with white space folded). ``extra_files``: vars files given
    with -e @file; ``verbosity``: the number of -v; ``env``: the environment (default this one's)."""
    command = ["ansible-playbook", *[os.path.join(REPO, p) for p in playbooks]]
    if inventory:
        command += ["-i", inventory]
    if extra_vars is not None:
        command += ["-e", json.dumps(extra_vars)]
    for path in extra_files:
        command += ["-e", "@" + path]
    if check:
        command.append("--check")
    if verbosity:
        command.append("-" + "v" * verbosity)
    env = dict(env if env is not None else os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, check=False)
    return result.returncode, result.stdout + result.stderr


def changed_per_host(output):
    """{host: changed count} from the PLAY RECAP."""
    return {match.group(1): int(match.group(3)) for match in RECAP_LINE.finditer(output)}


def folded(output):
    return " ".join(output.split())
