"""The simulated cluster (FLUIDOPS_NODES=kwok) comes up once for tests/cluster; test_teardown.py
takes it down last. Every playbook run is read for warnings after the test that made it
(tests/run_warnings.py, autouse). site.yml, its phases, faults, check mode and the runbooks run on
the real nodes (tests/nodes)."""

import os
import subprocess

import pytest
from kubernetes import config

import cluster_script
from cluster_script import CLUSTER, NODES, REPO, wait_until  # noqa: F401  pylint: disable=unused-import  # the tests' imports
from playbook import PARTS
from run_warnings import no_unlisted_warnings  # noqa: F401  pylint: disable=unused-import

CACHE = PARTS  # the local cluster's parts and state
# Its state directory, as tools/localcluster/instance.sh names it.
RUN = os.environ.get("FLUIDOPS_CLUSTER_DIR", os.path.join(CACHE, "run"))
# These tests are written for the simulated kubelets (tests/nodes has the real nodes'), whatever
# FLUIDOPS_NODES the caller's environment holds, and for the simulated cluster's inventory, which
# every playbook run takes unless it names another (ANSIBLE_INVENTORY over ansible.cfg's).
SIMULATED = dict(os.environ, FLUIDOPS_NODES="kwok")
INVENTORY = os.path.join(REPO, "inventory", "local-simulated")
# The deployment's settings in it, as an operator edits them.
SETTINGS = os.path.join("group_vars", "all", "deployment.yml")
os.environ["ANSIBLE_INVENTORY"] = INVENTORY


def cluster(*args):
    return cluster_script.cluster(*args, env=SIMULATED)


def pinned(name):
    with open(os.path.join(REPO, "tools", "localcluster", "versions.env"), encoding="utf-8") as handle:
        for line in handle:
            if line.startswith(name + "="):
                return line.split(":-", 1)[1].split("}", 1)[0]
    raise KeyError(name)


def started_pid(component):
    """The pid cluster.sh keeps of a process it started (RUN/pids/COMPONENT); for a controller,
    that of the keeper that starts it again."""
    with open(os.path.join(RUN, "pids", component), encoding="ascii") as handle:
        return int(handle.read())


def left_up():
    """Whether a local cluster is already there, whole or in part (make demo leaves one up):
    its state directory or one of its node hosts."""
    return os.path.isdir(RUN) or any(
        subprocess.run(["podman", "container", "exists", node], capture_output=True, check=False).returncode == 0 for node in NODES)


@pytest.fixture(scope="session")
def kubeconfig(request):
    # The tests expect a cluster nothing has run on yet, and take it down at the end. One left up
    # (make demo, or a run that was killed) is started afresh, and the run says so.
    if left_up():
        plugins = request.config.pluginmanager
        # Said on the terminal as it happens: pytest captures a fixture's output otherwise.
        with plugins.get_plugin("capturemanager").global_and_fixture_disabled():
            plugins.get_plugin("terminalreporter").write_line(
                "tests/cluster: the local cluster was up (make demo leaves it up): taking it down to start a fresh "
                "one; make demo starts it again")
        cluster("down")
    cluster_script.up(env=SIMULATED)
    path = cluster("kubeconfig").stdout.strip()
    yield path
    # test_teardown.py takes it down and checks that; this covers a run that stopped early.
    subprocess.run([CLUSTER, "down"], capture_output=True, check=False)


@pytest.fixture(scope="session")
def api(kubeconfig):
    return config.new_client_from_config(config_file=kubeconfig)
