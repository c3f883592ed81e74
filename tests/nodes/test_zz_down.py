"""Last: the operators' playbooks were among the runs checked for warnings; down takes the real
nodes away whole (containers, their containerd volumes, the registry and every other process, the
state), keeping their logs."""

import os
import re
import subprocess

from cluster_script import container_ids, processes_of
from conftest import NODES, PARTS, RUN, SUFFIX, cluster, host
from run_warnings import ALLOWED, CHECKED, checked_playbooks, warnings_in


def test_site_status_benchmark_and_teardown_ran_with_no_warning_outside_the_allow_list():
    # As tests/cluster/test_teardown.py's: run alone, without the tests before it, it fails.
    ran = checked_playbooks()
    assert [name for name in ("site.yml", "status.yml", "benchmark.yml", "teardown.yml") if not ran.get(name)] == [], ran
    assert [(run.playbooks, left) for run, left in CHECKED if left] == []
    # Every allow-list entry still matches a warning some run printed: one no run prints goes.
    printed = [line for run, _unused in CHECKED for line in warnings_in(run.output)]
    unused = [allowed.pattern for allowed in ALLOWED if not any(re.match(allowed.pattern, line) for line in printed)]
    assert unused == [], "allow-list entries no run needed (remove them from tests/run_warnings.py): %s" % unused


def test_down_leaves_no_node_volume_process_or_state(kubeconfig):  # pylint: disable=unused-argument
    hosts = container_ids([host(node) for node in NODES])
    assert len(hosts) == len(NODES)
    before = processes_of(RUN, hosts)
    with open(os.path.join(RUN, "pids", "registry"), encoding="ascii") as handle:
        assert int(handle.read()) in before
    # The kubelets, containerd and the pods' processes run in the hosts' cgroups.
    assert any("/opt/fluidops/bin/kube kubelet" in line for line in before.values())
    cluster("down")
    for node in NODES:
        assert subprocess.run(["podman", "container", "exists", host(node)], check=False).returncode == 1, node
        assert subprocess.run(["podman", "volume", "exists", host(node) + "-containerd"], check=False).returncode == 1, node
    assert not os.path.exists(RUN)
    assert processes_of(RUN, hosts) == {}
    kept = os.path.join(PARTS, "last-logs" + SUFFIX, "components", "nodes", "gpu-node-1", "kubelet.log")
    assert os.path.getsize(kept) > 0
