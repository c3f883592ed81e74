"""What must change nothing changes nothing: check mode on every playbook, and a run with a GPU
host that cannot be reached (the failure policy: any_errors_fatal from preflight on). The cluster's
objects and the node hosts are compared with what they were. Real apiserver, Helm, Fluid
controllers and hosts; simulated kubelets."""

import hashlib
import json
import os
import shutil
import subprocess

import yaml
from kubernetes import dynamic

from conftest import NODES, POOL
from playbook import REPO, run_playbook

# Every kind the playbooks create, change or delete.
KINDS = [("v1", "Namespace"), ("v1", "Secret"), ("v1", "ConfigMap"), ("v1", "PersistentVolume"), ("v1", "PersistentVolumeClaim"),
         ("apps/v1", "Deployment"), ("apps/v1", "DaemonSet"), ("apps/v1", "StatefulSet"), ("batch/v1", "Job"),
         ("data.fluid.io/v1alpha1", "Dataset"), ("data.fluid.io/v1alpha1", "AlluxioRuntime"),
         ("data.fluid.io/v1alpha1", "DataLoad"), ("kubeflow.org/v2beta1", "MPIJob")]
# What the node role would change on a host (fstab, mounts, FUSE, limits, sysctls, packages).
HOST_STATE = ("cat /etc/fstab; findmnt -rn -o TARGET,FSTYPE,OPTIONS | sort; cat /etc/fuse.conf 2>/dev/null; "
              "ls -la /etc/security/limits.d /etc/sysctl.d /var/lib/docker 2>&1; dpkg-query -W -f='${Package} ${Status}\\n' fuse3 libfuse2")


def digest(value):
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def cluster_state(api):
    """Per object, what a write would change: its uid (re-created), its generation where it has one
    (spec written), its labels and annotations, and a Secret's or ConfigMap's data; the nodes'
    labels, taints and annotations. Status, which controllers keep writing, is left out."""
    client = dynamic.DynamicClient(api)
    state = {}
    for api_version, kind in KINDS:
        for obj in client.resources.get(api_version=api_version, kind=kind).get().to_dict()["items"]:
            meta = obj["metadata"]
            written = meta.get("generation") if "generation" in meta else digest(obj.get("data") or obj.get("spec"))
            state[(kind, meta.get("namespace"), meta["name"])] = (meta["uid"], written, meta.get("labels"), meta.get("annotations"))
    for node in client.resources.get(api_version="v1", kind="Node").get().to_dict()["items"]:
        meta = node["metadata"]
        state[("Node", None, meta["name"])] = (meta.get("labels"), (node.get("spec") or {}).get("taints"),
                                               {k: v for k, v in (meta.get("annotations") or {}).items() if k.startswith("fluidops.io/")})
    return state


def host_state(name):
    return subprocess.run(["podman", "exec", name, "sh", "-c", HOST_STATE], capture_output=True, text=True, check=True).stdout


def test_check_mode_on_every_playbook_changes_nothing(api, site_run, tmp_path):
    hosts = NODES  # the local inventory's gpu_nodes
    before, hosts_before = cluster_state(api), {name: host_state(name) for name in hosts}
    # Every playbook a user runs against a cluster, in one go, asking for changes: other node
    # labels, a fresh dataset for the benchmark, the teardown of everything.
    run = run_playbook(
        "site.yml", "playbooks/status.yml", "playbooks/benchmark.yml", "playbooks/teardown.yml",
        extra_vars=dict(POOL, node_labels_extra={"fluidops.io/pool": "inference"}, benchmark_report_dir=str(tmp_path / "reports"),
                        cache_status_json_path=str(tmp_path / "status.json")), check=True)
    assert run.returncode == 0, run.output[-4000:]
    assert sum(run.changed_per_host().values()) > 0  # it reports what it would do
    after = cluster_state(api)
    assert {key: value for key, value in after.items() if before.get(key) != value} == {}
    assert set(before) - set(after) == set()
    assert {name: host_state(name) for name in hosts} == hosts_before
    assert not (tmp_path / "reports").exists() and not (tmp_path / "status.json").exists()


def test_an_unreachable_gpu_host_stops_the_run_before_any_host_or_the_cluster_changes(api, site_run, tmp_path):
    # The local inventory plus a GPU host whose container does not exist.
    inventory = tmp_path / "inventory"
    shutil.copytree(os.path.join(REPO, "inventory", "local"), inventory)
    hosts = yaml.safe_load((inventory / "hosts.yml").read_text())
    hosts["all"]["children"]["gpu_nodes"]["hosts"]["gpu-node-gone"] = None
    (inventory / "hosts.yml").write_text(yaml.safe_dump(hosts))
    before, hosts_before = cluster_state(api), {name: host_state(name) for name in NODES}
    run = run_playbook("site.yml", inventory=str(inventory), extra_vars=dict(
        POOL, node_labels_extra={"fluidops.io/pool": "inference"}))
    assert run.returncode != 0
    assert "gpu-node-gone" in run.tasks("unreachable"), run.output[-3000:]
    # The policy: preflight's node play has any_errors_fatal, so no later play starts.
    assert not {"Prepare the GPU nodes", "Label the GPU nodes in Kubernetes"} & set(run.plays()), run.plays()
    assert cluster_state(api) == before
    assert {name: host_state(name) for name in NODES} == hosts_before
