"""Run the project's playbooks as a user would, and read the PLAY RECAP."""

import json
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECAP_LINE = re.compile(r"(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)")


def _command(playbooks, inventory=None, extra_vars=None, check=False, extra_files=(), verbosity=0, env=None):
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
    return command, env


def run_playbook(*playbooks, **options):
    """Returns (return code, output). Options: ``inventory``, ``extra_vars``, ``check``,
    ``extra_files`` (vars files given with -e @file), ``verbosity`` (the number of -v) and ``env``
    (the environment; default this one's)."""
    command, env = _command(playbooks, **options)
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=REPO, check=False)
    return result.returncode, result.stdout + result.stderr


def start_playbook(*playbooks, **options):
    """The run as a Popen whose stdout (stderr joined) can be read line by line while it runs."""
    command, env = _command(playbooks, **options)
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=REPO, bufsize=1)


def read_until(process, marker):
    """The output read so far, up to and including the first line holding ``marker``; all of it
    when the run ends first."""
    lines = []
    for line in process.stdout:
        lines.append(line)
        if marker in line:
            break
    return "".join(lines)


def changed_per_host(output):
    """{host: changed count} from the PLAY RECAP."""
    return {match.group(1): int(match.group(3)) for match in RECAP_LINE.finditer(output)}


def folded(output):
    return " ".join(output.split())
