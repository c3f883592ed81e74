"""The runbooks' runnable blocks (tests/runbooks.py reads them) run with bash, as the on-call
engineer would paste them, from the repository's top directory, with the index's variables set
to the local cluster's values and kubectl and helm on PATH as the local cluster's own. The real
nodes' tests run them (tests/nodes)."""

import os
import subprocess
import sys

from playbook import PARTS, REPO
from run_warnings import playbooks_in, record
from runbooks import missing, runnable_blocks

BLOCKS = runnable_blocks()
RAN = {}  # block id -> the states ("healthy", "symptom", "other") it was run in


def environment(kubeconfig, tools, **variables):
    """The environment of the runbooks' commands: ``variables`` (the index's: INVENTORY, NS,
    DATASET...), the venv's ansible, and kubectl and helm as the local cluster's binaries, which
    are put in the directory ``tools``."""
    for name in ("kubectl", "helm"):
        os.symlink(os.path.join(PARTS, name), os.path.join(tools, name))
    path = os.pathsep.join([str(tools), os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    return dict(os.environ, PATH=path, KUBECONFIG=kubeconfig, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"),
                ANSIBLE_NOCOLOR="1", **variables)


def run(env, *ids, state="healthy", fails=False):
    """Runs the runnable block ``ids`` (several ids only for one and the same command, which runs
    once) and returns its output. It must exit non-zero exactly when ``fails``. In ``state``
    "healthy" the output must hold the block's expect lines, in "symptom" its symptom lines; in
    "other" (a run that restores a state, say) neither is checked."""
    blocks = [BLOCKS[block_id] for block_id in ids]
    assert len({block.text for block in blocks}) == 1, "not one and the same command: %s" % ", ".join(ids)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", blocks[0].text], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=3600, check=False)
    output = done.stdout + done.stderr
    playbooks = playbooks_in(blocks[0].text)
    if playbooks:
        record(playbooks, output)
    shown = "%s exited %d:\n%s" % (blocks[0].where, done.returncode, output[-4000:])
    assert (done.returncode != 0) == fails, shown
    for block in blocks:
        wanted = {"healthy": block.expect, "symptom": block.symptom}.get(state, ())
        assert missing(output, wanted) == [], "%s lacks %s\n%s" % (block.where, missing(output, wanted), shown)
        RAN.setdefault(block.id, []).append(state)
    return output


def not_run():
    """The runnable blocks of the runbooks that this process ran in no test."""
    return sorted(block.where for block in BLOCKS.values() if block.id not in RAN)
