"""The standalone path of seed 004 (fluidops_engine=alluxio) against the local cluster: the real
Alluxio chart 0.6.54 (from Alluxio's source module) installed by real Helm, checked by the real
apiserver; the pods run on simulated kubelets (kwok), so no Alluxio process starts."""

import json
import os
import subprocess

from kubernetes import client

from conftest import CACHE
from playbook import run_playbook

STANDALONE = {"fluidops_engine": "alluxio"}


def test_the_chart_is_installed_on_the_gpu_nodes_with_the_profiles_tuning(api, kubeconfig):
    returncode, output = run_playbook("playbooks/engine.yml", extra_vars=STANDALONE)
    assert returncode == 0, output[-3000:]
    releases = json.loads(subprocess.run(
        [os.path.join(CACHE, "helm"), "list", "-n", "alluxio", "-o", "json", "--kubeconfig", kubeconfig],
        check=True, capture_output=True, text=True).stdout)
    assert [(r["name"], r["chart"], r["status"]) for r in releases] == [("alluxio", "alluxio-0.6.54", "deployed")]

    apps = client.AppsV1Api(api)
    assert apps.read_namespaced_stateful_set("alluxio-master", "alluxio").status.ready_replicas == 1
    for name in ("alluxio-worker", "alluxio-fuse"):
        status = apps.read_namespaced_daemon_set(name, "alluxio").status
        assert status.desired_number_scheduled == status.number_ready == 4, name  # the four GPU nodes

    fuse = apps.read_namespaced_daemon_set("alluxio-fuse", "alluxio").spec.template.spec
    container = fuse.containers[0]
    assert "--fuse-opts=allow_other,kernel_cache,ro,max_read=131072,attr_timeout=7200,entry_timeout=7200,nonempty" in container.args
    assert {e.name: e.value for e in container.env if e.value is not None}["MAX_IDLE_THREADS"] == "32"
    assert fuse.node_selector == {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"}

    worker = apps.read_namespaced_daemon_set("alluxio-worker", "alluxio").spec.template.spec
    assert "/ram/alluxio" in [v.host_path.path for v in worker.volumes if v.host_path]
    mounts = {m.mount_path for m in worker.containers[0].volume_mounts}
    assert "/secrets/alluxio-oss" in mounts

    config = client.CoreV1Api(api).read_namespaced_config_map("alluxio-config", "alluxio").data
    assert "-Dalluxio.user.client.cache.store.type=MEM" in config["ALLUXIO_JAVA_OPTS"]
    assert "-Dalluxio.master.mount.table.root.ufs=oss://imagenet/data/" in config["ALLUXIO_JAVA_OPTS"]
    assert "-Dalluxio.site.conf.dir=/secrets/alluxio-oss/" in config["ALLUXIO_JAVA_OPTS"]
    assert "-Xmx16G" in config["ALLUXIO_FUSE_JAVA_OPTS"]
    assert "dummy" not in json.dumps(config)  # the keys stay in the Secret

    secret = client.CoreV1Api(api).read_namespaced_secret("alluxio-oss", "alluxio")
    assert set(secret.data) == {"alluxio-site.properties"}


def test_a_second_standalone_run_changes_nothing(api):
    run = run_playbook("playbooks/engine.yml", extra_vars=STANDALONE)
    assert run.returncode == 0, run.output[-3000:]
    assert run.changed_per_host()["localhost"] == 0, run.tasks("changed")


def test_the_seed_store_type_memory_stops_before_the_release_changes(api, kubeconfig):
    def revision():
        return json.loads(subprocess.run(
            [os.path.join(CACHE, "helm"), "list", "-n", "alluxio", "-o", "json", "--kubeconfig", kubeconfig],
            check=True, capture_output=True, text=True).stdout)[0]["revision"]

    before = revision()
    returncode, output = run_playbook("playbooks/engine.yml", extra_vars=dict(
        STANDALONE, alluxio_properties={"alluxio.user.client.cache.store.type": "MEMORY"}))
    assert returncode != 0
    assert "store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; use MEM" in " ".join(output.split())
    assert revision() == before


def test_cluster_info_says_why_it_cannot_reach_a_simulated_master(api, tmp_path):
    # kwok's pods run no Alluxio: the API server's proxy has no master to reach, and the module says so.
    path = tmp_path / "play.yml"
    path.write_text(json.dumps([{"hosts": "localhost", "gather_facts": False, "tasks": [
        {"fluidops.accel.alluxio_cluster_info": {"kubeconfig": "{{ fluidops_kubeconfig }}"}}]}]))
    returncode, output = run_playbook(str(path))
    assert returncode != 0
    assert "Cannot read Alluxio release alluxio in alluxio (rest): the API server answered" in " ".join(output.split())
