"""Last: down takes the real nodes away whole (containers, their containerd volumes, the registry
and every other process, the state), keeping their logs."""

import os
import subprocess

from conftest import NODES, PARTS, cluster


def test_down_leaves_no_node_volume_process_or_state(kubeconfig):  # pylint: disable=unused-argument
    cluster("down")
    for node in NODES:
        assert subprocess.run(["podman", "container", "exists", node], check=False).returncode == 1, node
        assert subprocess.run(["podman", "volume", "exists", node + "-containerd"], check=False).returncode == 1, node
    assert not os.path.exists(os.path.join(PARTS, "run"))
    mine = subprocess.run(["pgrep", "-f", os.path.join(PARTS, "registry")], capture_output=True, text=True, check=False)
    assert mine.stdout == "", "a registry still runs: %s" % mine.stdout
    kept = os.path.join(PARTS, "last-logs", "components", "nodes", "gpu-node-1", "kubelet.log")
    assert os.path.getsize(kept) > 0
