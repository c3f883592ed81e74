"""What must change nothing changes nothing: a run with a GPU host that cannot be reached (the
failure policy: any_errors_fatal from preflight on). The cluster's objects and the node hosts are
compared with what they were. Check mode on every playbook is test_phases_collection.py's, run by
the collection names. Real apiserver, Helm, Fluid controllers, hosts and kubelets."""

import shutil

import yaml

from conftest import INVENTORY, NODES, POOL, host
from playbook import run_playbook
from state import cluster_state, host_state


def test_an_unreachable_gpu_host_stops_the_run_before_any_host_or_the_cluster_changes(api, site_run, tmp_path):
    # The local inventory plus a GPU host whose container does not exist.
    inventory = tmp_path / "inventory"
    shutil.copytree(INVENTORY, inventory)
    hosts = yaml.safe_load((inventory / "hosts.yml").read_text())
    hosts["all"]["children"]["gpu_nodes"]["hosts"]["gpu-node-gone"] = None
    (inventory / "hosts.yml").write_text(yaml.safe_dump(hosts))
    before, hosts_before = cluster_state(api), {name: host_state(host(name)) for name in NODES}
    run = run_playbook("site.yml", inventory=str(inventory), extra_vars=dict(
        POOL, node_labels_extra={"fluidops.io/pool": "inference"}))
    assert run.returncode != 0
    assert "gpu-node-gone" in run.tasks("unreachable"), run.output[-3000:]
    # The policy: preflight's node play has any_errors_fatal, so no later play starts.
    assert not {"Prepare the GPU nodes", "Label the GPU nodes in Kubernetes"} & set(run.plays()), run.plays()
    assert cluster_state(api) == before
    assert {name: host_state(host(name)) for name in NODES} == hosts_before
