"""Run the project's playbooks as a user would, and read the PLAY RECAP."""

import json
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PARTS = os.path.join(os.environ.get("FLUIDOPS_CACHE_DIR", os.path.expanduser("~/.cache/fluidops")), "localcluster")
# Preflight renders the pinned charts (fluid_check_chart, alluxio_check_chart) and no chart
# repository answers here: the archives and helm tools/localcluster/build.sh leaves, as
# inventory/local names them.
LOCAL_CHARTS = {"fluid_chart_ref": os.path.join(PARTS, "fluid", "fluid-1.0.8.tgz"), "fluid_helm_binary": os.path.join(PARTS, "helm"),
                "alluxio_chart_ref": os.path.join(PARTS, "alluxio", "alluxio-0.6.54.tgz"),
                "alluxio_helm_binary": os.path.join(PARTS, "helm")}
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
