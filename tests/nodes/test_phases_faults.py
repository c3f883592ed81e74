"""Faults injected on the local cluster's real nodes: the real API server stopped in the middle of
a run, then started again; a Helm upgrade the API server refuses half way; the connections to the
API server cut while a warm-up watches its DataLoad, whose loader pod runs. Real apiserver, etcd,
kubelets, controllers, Helm and Alluxio."""

import json
import os
import signal
import subprocess

import yaml
from kubernetes import client

from conftest import CACHE, POOL, RUN, cluster, started_pid, wait_until
from localcluster.apiproxy import ApiProxy
from playbook import folded, run_playbook, start_playbook


def stop_apiserver():
    pid = started_pid("apiserver")
    os.kill(pid, signal.SIGKILL)  # a crash: no graceful shutdown, which waits for the watches to end
    wait_until(lambda: not alive(pid), 60)


def alive(pid):
    """Whether the process runs (a zombie, left for a parent that does not reap it, does not)."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def pool(api, name="gpu-node-1"):
    return client.CoreV1Api(api).read_node(name).metadata.labels.get("fluidops.io/pool")


def test_the_api_server_stopped_mid_run_fails_naming_it_and_a_rerun_converges(api, kubeconfig, site_run):  # pylint: disable=unused-argument
    wanted = dict(POOL, node_labels_extra={"fluidops.io/pool": "outage"})
    running = start_playbook("playbooks/preflight.yml", "playbooks/node_labels.yml", "playbooks/engine.yml", extra_vars=wanted)
    try:
        # The moment the run turns to the cluster: the hosts are checked, nothing is written yet.
        assert running.wait_for_play("Label the GPU nodes in Kubernetes"), running.output()[-3000:]
        stop_apiserver()
    finally:
        run = running.finish()
        cluster("up")  # starts what is not running: the apiserver, and any controller that gave up
    returncode, output = run
    assert returncode != 0
    text = folded(output)
    # The failure says what could not be reached: the API server's address.
    with open(kubeconfig, encoding="utf-8") as handle:
        port = yaml.safe_load(handle)["clusters"][0]["cluster"]["server"].rsplit(":", 1)[1]
    assert "127.0.0.1" in text and (port in text or "Connection refused" in text), output[-3000:]
    # The run stopped there, with its recap: the engine's play never started.
    assert "Deploy the cache engine" not in run.plays() and run.recap() is not None, run.plays()
    returncode, output = run_playbook("playbooks/node_labels.yml", "playbooks/engine.yml", extra_vars=wanted)
    assert returncode == 0, output[-3000:]
    assert pool(api) == "outage"
    # The nodes as test_phases.py leaves them, without the pool's label.
    returncode, output = run_playbook("playbooks/node_labels.yml", extra_vars={"node_labels_remove_dropped": True})
    assert returncode == 0 and pool(api) is None, output[-3000:]


def release(name="fluid", namespace="fluid-system"):
    """(revision, status) of a Helm release, as Helm lists it."""
    listed = subprocess.run([os.path.join(CACHE, "helm"), "list", "-n", namespace, "-o", "json", "--kubeconfig",
                             os.path.join(RUN, "kubeconfig")], capture_output=True, text=True, check=True).stdout
    found = {item["name"]: item for item in json.loads(listed)}[name]
    return int(found["revision"]), found["status"]


def test_a_release_that_fails_is_rolled_back_with_the_charts_error_and_a_rerun_succeeds(api, site_run):
    revision, status = release()
    assert status == "deployed"
    # A value the chart passes on and the API server refuses: the upgrade fails half way.
    returncode, output = run_playbook("playbooks/engine.yml", extra_vars={"fluid_values": {"dataset": {"replicas": -1}}})
    assert returncode != 0
    text = folded(output)
    assert "and Helm rolled it back" in text, output[-3000:]
    assert "spec.replicas: Invalid value: -1" in text, output[-3000:]
    # The failed revision, then the rollback to the one before: deployed again, as it was.
    now, status = release()
    assert status == "deployed" and now == revision + 2
    apps = client.AppsV1Api(api)
    assert apps.read_namespaced_deployment("dataset-controller", "fluid-system").spec.replicas == 1
    returncode, output = run_playbook("playbooks/engine.yml")
    assert returncode == 0, output[-3000:]
    assert release()[1] == "deployed"


def delete_dataload(api, name):
    """Deletes the DataLoad and waits until Fluid has cleaned up after it: its finalizer uninstalls
    the loader's Helm release (the Job, the script's ConfigMap, the release's record). The next
    tests compare the cluster's objects before and after a run."""
    objects, core, batch = client.CustomObjectsApi(api), client.CoreV1Api(api), client.BatchV1Api(api)
    try:
        objects.delete_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "dataloads", name)
    except client.exceptions.ApiException as error:
        if error.status != 404:
            raise

    def cleaned_up():
        release = name + "-loader"
        left = [item.metadata.name for item in core.list_namespaced_config_map("default").items + batch.list_namespaced_job("default").items
                if item.metadata.name.startswith((release, "sh.helm.release.v1." + release + "."))]
        loads = objects.list_namespaced_custom_object("data.fluid.io", "v1alpha1", "default", "dataloads")["items"]
        return not left and name not in [load["metadata"]["name"] for load in loads]
    wait_until(cleaned_up, 240)


def test_a_watch_cut_mid_wait_is_followed_again_and_the_warmup_completes(api, kubeconfig, site_run, tmp_path):
    through_proxy = tmp_path / "kubeconfig"
    proxy = ApiProxy.in_front_of(kubeconfig, os.path.join(RUN, "pki"), str(through_proxy))
    play = tmp_path / "play.yml"
    # One slice (progress_interval >= wait_timeout): one module, one wait, so the cut falls inside it.
    play.write_text(yaml.safe_dump([{"name": "Warm the cache over a network that drops", "hosts": "localhost", "gather_facts": False,
                                     "tasks": [{"fluidops.accel.fluid_dataload": {
                                         "name": "imagenet-cut", "dataset": "imagenet", "kubeconfig": str(through_proxy),
                                         "wait_timeout": 300, "progress_interval": 300}}]}]))
    running = start_playbook(str(play), verbosity=1)
    try:
        # The loader pod (Fluid's Job, four alluxio CLI runs) takes seconds: the module is watching.
        wait_until(proxy.watching, seconds=120)
        proxy.refusing = True
        assert proxy.cut() >= 1
        # Every connection is gone and new ones are refused: what the proxy records from here came later.
        cut_at = len(proxy.requests)
        wait_until(lambda: proxy.refused >= 1, seconds=120)  # the module tried to list again, and could not
    except BaseException:
        running.cancel()  # the run goes no further than the failed step
        raise
    finally:
        proxy.refusing = False
        run = running.finish()  # the proxy serves the module until the run ends
        proxy.close()
        delete_dataload(api, "imagenet-cut")
    assert run.returncode == 0, run.output[-3000:]
    # After the cut it read the DataLoads again: a list, then a watch unless the load had ended by then
    # (the loader may finish while connections are refused: the test does not race it).
    assert ("GET", "/apis/data.fluid.io/v1alpha1/namespaces/default/dataloads") in proxy.requests[cut_at:], proxy.requests[cut_at:]
    # The task's result (the play's one task on localhost).
    [result] = run.results(host="localhost")
    assert result["res"]["reconnects"] >= 1 and result["res"]["phase"] == "Complete", result["res"]
