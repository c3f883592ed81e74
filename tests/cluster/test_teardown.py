"""Runs last in tests/cluster: `cluster.sh down` leaves no process, host container, state or mount;
the runs of the tests before printed no warning outside the allow-list (tests/run_warnings.py;
tests/nodes/test_zz_down.py checks each entry is still needed)."""

import os
import subprocess

from cluster_script import container_ids, processes_of
from conftest import CACHE, NODES, cluster, started_pid
from run_warnings import CHECKED, checked_playbooks


def test_cluster_down_leaves_nothing_behind(kubeconfig):
    run_dir = os.path.dirname(kubeconfig)
    # Its components name its state.
    hosts = container_ids(NODES)
    assert len(hosts) == len(NODES)
    assert started_pid("apiserver") in processes_of(run_dir, hosts)
    cluster("down")
    assert processes_of(run_dir, hosts) == {}
    for name in NODES:
        assert subprocess.run(["podman", "container", "exists", name], check=False).returncode == 1
    assert not os.path.exists(run_dir)
    with open("/proc/mounts", encoding="utf-8") as mounts:
        assert [line for line in mounts if CACHE in line or "alluxio" in line] == []


def test_the_standalone_engine_ran_with_no_warning_outside_the_allow_list():
    # Each run is checked after the test that made it (run_warnings.no_unlisted_warnings): this
    # makes sure the standalone chart's engine.yml was among those runs. Run alone, without the
    # tests before it, it fails: it reads what they ran. (The operators' playbooks: tests/nodes.)
    ran = checked_playbooks()
    assert ran.get("engine.yml"), "not run by the tests before (tests/cluster, whole); ran %s" % ran
    assert [(run.playbooks, left) for run, left in CHECKED if left] == []
