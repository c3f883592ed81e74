"""Runs last in tests/cluster: `cluster.sh down` leaves no process, host container, state or mount."""

import os
import subprocess

from conftest import CACHE, NODES, cluster


def test_cluster_down_leaves_nothing_behind(kubeconfig):
    cluster("down")
    leftovers = subprocess.run(["pgrep", "-af", CACHE], capture_output=True, text=True, check=False).stdout
    assert leftovers == ""
    # The real Alluxio's JVMs ran in the hosts (as processes of this machine, under /opt/alluxio).
    alluxio = subprocess.run(["pgrep", "-af", r"alluxio\.(master|worker|fuse)\.Alluxio"], capture_output=True, text=True, check=False).stdout
    assert alluxio == ""
    for name in NODES:
        assert subprocess.run(["podman", "container", "exists", name], check=False).returncode == 1
    run_dir = os.path.dirname(kubeconfig)
    assert not os.path.exists(run_dir)
    with open("/proc/mounts", encoding="utf-8") as mounts:
        assert [line for line in mounts if CACHE in line or "alluxio" in line] == []
