"""The collection as users install it, against the local cluster: the tarball ansible-galaxy builds,
installed into an empty collections path, each playbook run by its collection name
(`ansible-playbook fluidops.accel.<name>`) from a directory outside the repository, with an empty
ansible.cfg and the local inventory given by its absolute path (its group_vars find the local
cluster's kubeconfig, helm and charts from FLUIDOPS_CACHE_DIR or HOME, not from the repository).
On the cluster site.yml converged, site changes nothing; every playbook runs in check mode, in one
run, asking for changes, and neither the cluster's objects nor the node hosts change.

Its name puts it after test_phases.py (pytest takes the files in name order; as
test_collection.py it would deploy ahead of test_localcluster.py's own Helm install of Fluid).
test_phases.py leaves the nodes without the pool's label and taint: the installed node_labels puts
them back first, as site_run made them, and removes them again at the end. benchmark and teardown
run in check mode: for real they would make the dataset again and remove what the later tests
use. render, which touches no cluster, is the render tests' (installed too, test_render.py).
Real apiserver, Helm, hosts, Fluid controllers and mpi-operator; simulated kubelets."""

import os

import pytest
import yaml

from collection import Installed
from conftest import INVENTORY, NODES, POOL
from state import cluster_state, host_state

# site.yml's phases, in its order; each changes nothing on the converged cluster.
DEPLOYMENT = ["preflight", "nodes", "node_labels", "engine", "datasets", "warmup", "train"]
# What site_run asked for.
WANTED = dict(POOL, training_progress_interval=2)


@pytest.fixture(scope="module")
def installed(tmp_path_factory, site_run):
    """The installed collection on the converged cluster, the pool's label and taint on the nodes."""
    collection = Installed(tmp_path_factory.mktemp("collection"))
    assert collection.locations() == [os.path.join(collection.collections, "ansible_collections")]
    returncode, output = collection.playbook("node_labels", inventory=INVENTORY, extra_vars=POOL)
    assert returncode == 0, output[-3000:]
    yield collection
    # The nodes as test_phases.py leaves them: the later tests' pods tolerate no taint of the test's own.
    returncode, output = collection.playbook("node_labels", inventory=INVENTORY, extra_vars={"node_labels_remove_dropped": True})
    assert returncode == 0, output[-3000:]


def run_installed(installed, *names, **options):
    """The playbook by its collection name at -v, which names the roles' paths: (return code, output),
    checked to come from the installed copy, not the repository."""
    run = installed.playbook(*names, inventory=INVENTORY, verbosity=1, **options)
    installed.check_roles_installed(run.output)
    return run


def nothing_changed(run):
    changed = run.changed_per_host()
    assert changed and set(changed.values()) == {0}, run.tasks("changed")  # {host: [the tasks that changed]}


def test_the_whole_deployment_by_its_collection_name_changes_nothing(installed):
    # The second run of site.yml's phases on the converged cluster, nodes included.
    run = run_installed(installed, "site", extra_vars=WANTED)
    assert run.returncode == 0, run.output[-3000:]
    assert "Train" in run.plays()
    nothing_changed(run)


def test_each_playbook_by_its_collection_name_runs_in_check_mode_and_changes_nothing(installed, api, tmp_path):
    # One run, the phases one after the other as an operator would run them, then the status, the
    # benchmark and the teardown, asking for changes: other node labels, a fresh dataset for the
    # benchmark, the teardown of everything. Check mode reports them and makes none.
    before, hosts_before = cluster_state(api), {name: host_state(name) for name in NODES}
    run = run_installed(installed, *DEPLOYMENT, "status", "benchmark", "teardown", check=True, extra_vars=dict(
        WANTED, node_labels_extra={"fluidops.io/pool": "inference"}, benchmark_report_dir=str(tmp_path / "reports"),
        cache_status_json_path=str(tmp_path / "status.json")))
    assert run.returncode == 0, run.output[-3000:]
    # Each playbook ran (its first play of its own, as the installed playbook names it).
    for name in DEPLOYMENT + ["status", "benchmark", "teardown"]:
        with open(os.path.join(installed.path, "playbooks", name + ".yml"), encoding="utf-8") as handle:
            first = next(play["name"] for play in yaml.safe_load(handle) if "hosts" in play)
        assert first in run.plays(), name
    # It reports what it would do: the other pool label on every node, among others.
    (labels,) = run.results(task="Label and taint the nodes")
    assert labels["status"] == "changed" and labels["res"]["patched"] == NODES, labels
    assert {patch["metadata"]["labels"]["fluidops.io/pool"] for patch in labels["res"]["patches"].values()} == {"inference"}
    after = cluster_state(api)
    assert {key: value for key, value in after.items() if before.get(key) != value} == {}
    assert set(before) - set(after) == set()
    assert {name: host_state(name) for name in NODES} == hosts_before
    assert not (tmp_path / "reports").exists() and not (tmp_path / "status.json").exists()
    assert [result["status"] for result in run.results(task="Read the cache state of the datasets")] == ["ok"]
