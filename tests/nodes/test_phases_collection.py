"""The collection as users install it, against the local cluster's real nodes: the tarball
ansible-galaxy builds, installed into an empty collections path, each playbook run by its
collection name (`ansible-playbook fluidops.accel.<name>`) from a directory outside the repository,
with an empty ansible.cfg and the local inventory given by its absolute path (its group_vars find
the local cluster's kubeconfig, registry, helm and charts from FLUIDOPS_CACHE_DIR or HOME, not from
the repository). On the cluster site.yml converged, site (which imports every phase's playbook),
status and teardown run in check mode, in one run, asking for changes, and neither the cluster's
objects nor the node hosts change. That a second site run for real changes nothing is the deploy
runbook's test (test_phases.py): the same playbooks, run in place. The benchmark is not among them:
it makes the dataset again and runs three jobs (test_runbooks.py runs it).

test_phases.py leaves the nodes without the pool's label: the installed node_labels puts it back
first, as site_run made it, and removes it again at the end. teardown runs in check mode: for real
it would remove what the later tests use. render, which touches no cluster, is the render tests'
(installed too, test_render.py)."""

import os

import pytest
import yaml

from collection import Installed
from conftest import INVENTORY, NODES, POOL, host
from state import cluster_state, host_state

# site.yml's phases, in its order, each a playbook of its own that site imports.
PHASES = ["preflight", "nodes", "node_labels", "engine", "datasets", "warmup", "train"]
# What site_run asked for.
WANTED = POOL


@pytest.fixture(scope="module")
def installed(tmp_path_factory, site_run):
    """The installed collection on the converged cluster, the pool's label on the nodes."""
    collection = Installed(tmp_path_factory.mktemp("collection"))
    assert collection.locations() == [os.path.join(collection.collections, "ansible_collections")]
    returncode, output = collection.playbook("node_labels", inventory=INVENTORY, extra_vars=POOL)
    assert returncode == 0, output[-3000:]
    yield collection
    # The nodes as test_phases.py leaves them.
    returncode, output = collection.playbook("node_labels", inventory=INVENTORY, extra_vars={"node_labels_remove_dropped": True})
    assert returncode == 0, output[-3000:]


def run_installed(installed, *names, **options):
    """The playbook by its collection name at -v, which names the roles' paths: (return code, output),
    checked to come from the installed copy, not the repository."""
    run = installed.playbook(*names, inventory=INVENTORY, verbosity=1, **options)
    installed.check_roles_installed(run.output)
    return run


def test_the_playbooks_by_their_collection_names_run_in_check_mode_and_change_nothing(installed, api, tmp_path):
    # One run: the whole deployment, then the status and the teardown, asking for changes: other
    # node labels, the teardown of everything. Check mode reports them and makes none.
    before, hosts_before = cluster_state(api), {name: host_state(host(name)) for name in NODES}
    run = run_installed(installed, "site", "status", "teardown", check=True, extra_vars=dict(
        WANTED, node_labels_extra={"fluidops.io/pool": "inference"}, cache_status_json_path=str(tmp_path / "status.json")))
    assert run.returncode == 0, run.output[-3000:]
    # Each playbook ran (its first play of its own, as the installed playbook names it).
    for name in PHASES + ["status", "teardown"]:
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
    assert {name: host_state(host(name)) for name in NODES} == hosts_before
    assert not (tmp_path / "status.json").exists()
    assert [result["status"] for result in run.results(task="Read the cache state of the datasets")] == ["ok"]
