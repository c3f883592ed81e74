"""The modules' exact API calls, against a fake cluster: exit_json/fail_json raise, module args
are set as Ansible sets them, and the fake records what the module asked of the API."""

import contextlib
import copy
import json
import os
import re
import time

import kubernetes.client
import pytest
import urllib3
import yaml
from ansible.module_utils import basic
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import NotFoundError

from ansible_collections.fluidops.accel.plugins.module_utils.alluxio import cluster_info
from ansible_collections.fluidops.accel.plugins.module_utils.k8s import client as k8s_client
from ansible_collections.fluidops.accel.plugins.module_utils.k8s import crds, runner, waiter
from ansible_collections.fluidops.accel.plugins.module_utils.training import mpijob as training_mpijob
from ansible_collections.fluidops.accel.plugins.modules import (
    alluxio_cluster_info,
    benchmark_report,
    chart_crds,
    fluid_dataload,
    fluid_dataset_info,
    fluid_dataset_listing,
    gpu_node_labels,
    mpijob,
    render_files,
)

try:
    from ansible.module_utils.testing import patch_module_args
except ImportError:  # ansible-core before 2.19: the module arguments set as Ansible sets them

    @contextlib.contextmanager
    def patch_module_args(args):
        before = basic._ANSIBLE_ARGS
        basic._ANSIBLE_ARGS = json.dumps({"ANSIBLE_MODULE_ARGS": args}).encode("utf-8")
        try:
            yield
        finally:
            basic._ANSIBLE_ARGS = before

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "fluid")
LOGS = os.path.join(FIXTURES, "..", "logs")


class Exit(Exception):
    def __init__(self, result):
        super().__init__(result.get("msg"))
        self.result = result


class Failed(Exit):
    pass


# Keys a module's result must not carry: ansible-core 2.19 deprecates them (removed in 2.23) and
# prints a [DEPRECATION WARNING] for each run; a module warns through module.warn (module.deprecate).
REFUSED_RESULT_KEYS = ("warnings", "deprecations")


def refused_keys(results):
    """[(keys, msg)] of the results that carry REFUSED_RESULT_KEYS."""
    return [(sorted(key for key in REFUSED_RESULT_KEYS if key in result), result.get("msg")) for result in results
            if any(key in result for key in REFUSED_RESULT_KEYS)]


@pytest.fixture(autouse=True)
def raise_on_exit(monkeypatch):
    """exit_json and fail_json raise; after the test, no result any module returned in it carried
    warnings or deprecations (checked then, so that no except in a module can hide it)."""
    results = []

    def exit_json(self, **result):
        results.append(result)
        raise Exit(result)

    def fail_json(self, msg, **result):
        results.append(dict(result, msg=msg))
        raise Failed(dict(result, msg=msg))

    monkeypatch.setattr(basic.AnsibleModule, "exit_json", exit_json)
    monkeypatch.setattr(basic.AnsibleModule, "fail_json", fail_json)
    yield
    assert refused_keys(results) == []


def test_a_result_with_warnings_or_deprecations_is_found():
    results = [{"changed": False}, {"changed": True, "warnings": ["w"]}, {"msg": "m", "deprecations": [{"msg": "d"}]}]
    assert refused_keys(results) == [(["warnings"], None), (["deprecations"], "m")]


def test_benchmark_report_writes_its_files_and_warns_through_nothing_but_module_warn(tmp_path):
    runs = [{"label": "nfs", "duration_seconds": 8159, "throughput": {"images_per_sec_at_step": 3136.0}},
            {"label": "fluid (warm)", "duration_seconds": 5542, "throughput": {"images_per_sec_at_step": 20859.5}}]
    with patch_module_args({"dest": str(tmp_path), "runs": runs}), pytest.raises(Exit) as outcome:
        benchmark_report.main()
    assert outcome.value.result["changed"] and sorted(os.listdir(tmp_path)) == ["benchmark.json", "benchmark.md", "benchmark.png"]
    # The same runs again change nothing; new ones in check mode are only reported.
    with patch_module_args({"dest": str(tmp_path), "runs": runs}), pytest.raises(Exit) as outcome:
        benchmark_report.main()
    assert not outcome.value.result["changed"]
    before = (tmp_path / "benchmark.md").read_bytes()
    with patch_module_args({"dest": str(tmp_path), "runs": runs[:1], "_ansible_check_mode": True}), pytest.raises(Exit) as outcome:
        benchmark_report.main()
    assert outcome.value.result["changed"] and (tmp_path / "benchmark.md").read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["benchmark.json", "benchmark.md", "benchmark.png"]  # no temporary file left
    with patch_module_args({"dest": str(tmp_path), "runs": [{"duration_seconds": 1}]}), pytest.raises(Failed) as failed:
        benchmark_report.main()
    assert failed.value.result["msg"].startswith("runs must list at least one run, each with a label")


def run_render_files(args, check=False, diff=False):
    """render_files' result for ``args``; ``check`` and ``diff`` as ansible-playbook's --check, --diff."""
    options = dict(args, _ansible_check_mode=check, _ansible_diff=diff)
    with patch_module_args(options), pytest.raises(Exit) as outcome:
        render_files.main()
    return outcome.value.result


def test_render_files_writes_what_changed_and_nothing_in_check_mode(tmp_path):
    dest = tmp_path / "rendered"
    files = [{"name": "a.yaml", "content": "---\na: 1\n"}, {"name": "b.yaml", "content": "---\nb: 2\n"}]
    paths = [str(dest / "a.yaml"), str(dest / "b.yaml")]
    planned = run_render_files({"dest": str(dest), "files": files}, check=True, diff=True)
    assert (planned["changed"], planned["changed_files"], planned["files"]) == (True, paths, paths)
    assert [entry["after"] for entry in planned["diff"]] == ["---\na: 1\n", "---\nb: 2\n"] and not dest.exists()
    written = run_render_files({"dest": str(dest), "files": files})
    assert written["changed_files"] == paths
    assert {name: (dest / name).read_text() for name in os.listdir(dest)} == {"a.yaml": "---\na: 1\n", "b.yaml": "---\nb: 2\n"}
    assert {oct(os.stat(path).st_mode & 0o777) for path in paths} == {"0o644"}
    again = run_render_files({"dest": str(dest), "files": files}, diff=True)
    assert (again["changed"], again["changed_files"], again["diff"]) == (False, [], [])
    # One file's content and the other's mode differ: each is put right, and check mode only says so.
    os.chmod(paths[1], 0o600)
    edited = [files[0], dict(files[1], content="---\nb: 3\n")]
    (dest / "a.yaml").write_text("---\na: 0\n")
    planned = run_render_files({"dest": str(dest), "files": edited}, check=True)
    assert planned["changed_files"] == paths and (dest / "a.yaml").read_text() == "---\na: 0\n"
    assert oct(os.stat(paths[1]).st_mode & 0o777) == "0o600"
    fixed = run_render_files({"dest": str(dest), "files": edited})
    assert fixed["changed_files"] == paths and (dest / "b.yaml").read_text() == "---\nb: 3\n"
    assert {oct(os.stat(path).st_mode & 0o777) for path in paths} == {"0o644"}
    assert sorted(os.listdir(dest)) == ["a.yaml", "b.yaml"]  # no temporary file left


@pytest.mark.parametrize("name, message", [
    ("../a.yaml", "files: each name is a file name in dest"),
    ("sub/a.yaml", "files: each name is a file name in dest"),
    ("", "files: each name is a file name in dest"),
    ("same.yaml", "files: each name is given once; more than once: same.yaml"),
])
def test_render_files_refuses_a_name_outside_dest_or_given_twice(tmp_path, name, message):
    files = [{"name": name, "content": "x"}, {"name": "same.yaml", "content": "y"}]
    with patch_module_args({"dest": str(tmp_path / "out"), "files": files}), pytest.raises(Failed) as failed:
        render_files.main()
    assert failed.value.result["msg"].startswith(message), failed.value.result["msg"]
    assert not (tmp_path / "out").exists()


class Instance(dict):
    def to_dict(self):
        return copy.deepcopy(dict(self))


class Resource(object):
    def __init__(self, kind):
        self.kind = kind

    def path(self, namespace=None):
        return "/%s/%s" % (namespace, self.kind) if namespace else "/" + self.kind


class FakeCluster(object):
    """Objects by (kind, namespace, name); watch events scripted per kind; pods' logs by name (an
    exception is raised); every request logged. It stands in for CoreV1Api too (fake_core_api)."""

    def __init__(self, objects=(), events=None, on_watch=None, logs=None):
        self.objects = {(o["kind"], o["metadata"].get("namespace"), o["metadata"]["name"]): copy.deepcopy(o) for o in objects}
        self.events = events or {}
        self.on_watch = on_watch
        self.logs = logs or {}
        self.requests = []
        self.watchers = []  # the watcher each watch was given
        self.client = self

    def resource(self, kind, api_version):
        return Resource(kind)

    def get(self, resource, name=None, namespace=None, label_selector=None, field_selector=None):
        self.requests.append(("GET", resource.kind, namespace, name or field_selector or label_selector))
        if name:
            key = (resource.kind, namespace, name)
            if key not in self.objects:
                raise NotFoundError(ApiException(status=404, reason="Not Found"))
            return Instance(self.objects[key])
        items = [o for (kind, ns, _unused), o in sorted(self.objects.items()) if kind == resource.kind and ns == namespace]
        return Instance({"items": items, "metadata": {"resourceVersion": "100"}})

    def create(self, resource, body, namespace=None):
        self.requests.append(("POST", resource.kind, namespace, body["metadata"]["name"]))
        stored = dict(copy.deepcopy(body), status={})
        self.objects[(resource.kind, namespace, body["metadata"]["name"])] = stored
        return Instance(stored)

    def patch(self, resource, body, name=None, namespace=None, content_type=None):
        # Only the JSON merge patch (RFC 7386) is modelled: the one kubectl patch --type=merge sends.
        assert content_type == "application/merge-patch+json", content_type
        self.requests.append(("PATCH", resource.kind, namespace, name))
        key = (resource.kind, namespace, name)
        self.objects[key] = merge_patch(self.objects[key], body)
        return Instance(self.objects[key])

    def request(self, method, path, header_params=None):
        # Only the metadata-only list (PartialObjectMetadataList) is modelled.
        assert method == "get" and "as=PartialObjectMetadataList" in header_params["Accept"], (method, header_params)
        namespace, kind = ([None] + path.strip("/").split("/"))[-2:]
        self.requests.append(("GET metadata", kind, namespace, None))
        return Instance({"items": [{"metadata": copy.deepcopy(o["metadata"])} for (k, ns, _name), o in sorted(self.objects.items())
                                   if k == kind and ns == namespace]})

    def server_side_apply(self, resource, body, namespace=None, field_manager=None, force_conflicts=None):
        # The API server's bookkeeping: generation starts at 1 and moves when the spec does.
        self.requests.append(("APPLY", resource.kind, namespace, body["metadata"]["name"]))
        key = (resource.kind, namespace, body["metadata"]["name"])
        old = self.objects.get(key)
        stored = copy.deepcopy(body)
        annotations = dict((old or {}).get("metadata", {}).get("annotations") or {}, **body["metadata"].get("annotations", {}))
        generation = 1 if old is None else old["metadata"]["generation"] + (old.get("spec") != body.get("spec"))
        stored["metadata"].update(annotations=annotations, generation=generation)
        self.objects[key] = stored
        return Instance(stored)

    def delete(self, resource, name=None, namespace=None, body=None):
        self.requests.append(("DELETE", resource.kind, namespace, name) + ((body["propagationPolicy"],) if body else ()))
        self.objects.pop((resource.kind, namespace, name))

    def watch(self, resource, namespace=None, resource_version=None, timeout=None, watcher=None):
        self.requests.append(("WATCH", resource.kind, namespace, resource_version))
        self.watchers.append((timeout, watcher))
        for event_type, change in self.events.get(resource.kind, []):
            obj = self.objects[(resource.kind, namespace, change["name"])]
            obj.setdefault("status", {}).update(change["status"])
            if self.on_watch:
                self.on_watch(self, obj)
            yield {"type": event_type, "raw_object": copy.deepcopy(obj)}

    def read_namespaced_pod_log(self, name, namespace, container=None, tail_lines=None):
        self.requests.append(("LOG", "Pod", namespace, name))
        if isinstance(self.logs[name], Exception):
            raise self.logs[name]
        return self.logs[name]


def merge_patch(target, patch):
    """RFC 7386: a mapping merges key by key, null removes the key, anything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    merged = copy.deepcopy(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


@pytest.fixture
def fake_core_api(monkeypatch):
    """KubeClient.pod_log builds a CoreV1Api on the dynamic client's ApiClient: the fake cluster is both."""
    monkeypatch.setattr(kubernetes.client, "CoreV1Api", lambda api_client: api_client)


def fixture(name):
    with open(os.path.join(FIXTURES, name + ".yaml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def run(module, args, cluster, monkeypatch, check=False):
    monkeypatch.setattr(runner, "get_api_client", lambda *a, **k: cluster)
    if check:
        args = dict(args, _ansible_check_mode=True)
    with patch_module_args(args):
        with pytest.raises(Exit) as outcome:
            module.main()
    return outcome.value


WARMUP = {"name": "imagenet-warmup", "dataset": "imagenet", "targets": [{"path": "/train"}, {"path": "/validation"}],
          "cached_percentage": 95, "wait_timeout": 30}
DATALOAD_BODY = {"apiVersion": "data.fluid.io/v1alpha1", "kind": "DataLoad",
                 "metadata": {"name": "imagenet-warmup", "namespace": "default"},
                 "spec": {"dataset": {"name": "imagenet", "namespace": "default"}, "loadMetadata": False, "policy": "Once",
                          "target": [{"path": "/train", "replicas": 1}, {"path": "/validation", "replicas": 1}]}}


def fill_cache(cluster, dataload):
    """As Fluid does while a DataLoad runs: the dataset's cache rises, to 100% at Complete."""
    dataset = cluster.objects[("Dataset", "default", "imagenet")]
    dataset["status"]["cacheStates"].update(cached="143.67GiB" if dataload["status"]["phase"] == "Complete" else "71.84GiB",
                                            cachedPercentage="100.0%" if dataload["status"]["phase"] == "Complete" else "50.0%")


def test_warmup_creates_the_dataload_watches_it_and_measures_the_load(monkeypatch):
    cluster = FakeCluster([fixture("dataset-bound-full")], on_watch=fill_cache, events={"DataLoad": [
        ("MODIFIED", {"name": "imagenet-warmup", "status": {"phase": "Executing"}}),
        ("MODIFIED", {"name": "imagenet-warmup", "status": {"phase": "Complete", "duration": "10s", "conditions": [
            {"type": "Complete", "status": "True", "reason": "DataLoadJobComplete", "message": "done"}]}})]})
    cluster.objects[("Dataset", "default", "imagenet")]["status"]["cacheStates"].update(cached="0.00B", cachedPercentage="0.0%")
    result = run(fluid_dataload, WARMUP, cluster, monkeypatch).result
    assert cluster.requests == [("GET", "DataLoad", "default", "imagenet-warmup"), ("GET", "Dataset", "default", "imagenet"),
                                ("POST", "DataLoad", "default", "imagenet-warmup"), ("GET", "DataLoad", "default", None),
                                ("WATCH", "DataLoad", "default", "100"), ("GET", "Dataset", "default", "imagenet")]
    created = cluster.objects[("DataLoad", "default", "imagenet-warmup")]
    assert {k: created[k] for k in DATALOAD_BODY} == DATALOAD_BODY
    assert result["changed"] and result["phase"] == "Complete" and result["duration"] == "10s"
    assert result["cached_percentage"] == 100.0 and result["bytes_loaded"] == int(143.67 * 1024 ** 3)
    assert result["api_calls"] == 6


def test_an_existing_complete_dataload_is_left_alone(monkeypatch):
    done = dict(copy.deepcopy(DATALOAD_BODY), status={"phase": "Complete", "duration": "10s"})
    cluster = FakeCluster([fixture("dataset-bound-full"), done])
    result = run(fluid_dataload, WARMUP, cluster, monkeypatch).result
    assert not result["changed"] and result["phase"] == "Complete"
    assert [r[0] for r in cluster.requests] == ["GET", "GET", "GET"]


def test_an_existing_dataload_with_another_spec_is_not_changed(monkeypatch):
    other = copy.deepcopy(DATALOAD_BODY)
    other["spec"]["target"] = [{"path": "/train", "replicas": 2}]
    cluster = FakeCluster([fixture("dataset-bound-full"), other])
    outcome = run(fluid_dataload, WARMUP, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert "DataLoad default/imagenet-warmup exists with another spec (target is [{'path': '/train', 'replicas': 2}]" in outcome.result["msg"]
    assert "POST" not in [r[0] for r in cluster.requests]


def test_check_mode_creates_nothing_and_never_waits(monkeypatch):
    cluster = FakeCluster([fixture("dataset-bound-empty")])
    result = run(fluid_dataload, WARMUP, cluster, monkeypatch, check=True).result
    assert result["changed"] and result["dataload"] == DATALOAD_BODY
    assert [r[0] for r in cluster.requests] == ["GET", "GET"]


def test_a_failed_dataload_fails_with_its_conditions(monkeypatch):
    cluster = FakeCluster([fixture("dataset-bound-empty")], events={"DataLoad": [
        ("MODIFIED", {"name": "imagenet-warmup", "status": {"phase": "Failed", "conditions": [
            # Fluid v1.0.8 copies the loader Job's condition (pkg/ddc/base/operation_status_handler).
            {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded",
             "message": "Job has reached the specified backoff limit"}]}})]})
    outcome = run(fluid_dataload, dict(WARMUP, targets=[{"path": "/tain"}]), cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"] == ("DataLoad default/imagenet-warmup Failed: BackoffLimitExceeded: "
                                     "Job has reached the specified backoff limit")


def test_the_loader_pod_tolerates_the_gpu_nodes_taints(monkeypatch):
    cluster = FakeCluster([fixture("dataset-bound-full")])
    taints = [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}, {"key": "gpu", "effect": "NoExecute"}]
    run(fluid_dataload, dict(WARMUP, tolerations=taints, wait=False), cluster, monkeypatch)
    assert cluster.objects[("DataLoad", "default", "imagenet-warmup")]["spec"]["tolerations"] == [
        {"operator": "Equal", "key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"},
        {"operator": "Exists", "key": "gpu", "effect": "NoExecute"}]


def completed(at):
    """A DataLoad's status as Fluid v1.0.8 writes it when its loader Job succeeds."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    return {"phase": "Complete", "duration": "20s", "conditions": [
        {"type": "Complete", "status": "True", "reason": "CompletionsReached", "message": "Reached expected number of succeeded pods",
         "lastProbeTime": stamp, "lastTransitionTime": stamp}]}


def partly_cached(percentage):
    dataset = fixture("dataset-bound-empty")
    dataset["status"]["cacheStates"].update(cachedPercentage="%.1f%%" % percentage)
    return dataset


def test_complete_below_the_threshold_long_after_it_completed_fails_at_once(monkeypatch):
    cluster = FakeCluster([partly_cached(0.0)], events={"DataLoad": [
        ("MODIFIED", {"name": "imagenet-warmup", "status": completed(time.time() - 600)})]})
    outcome = run(fluid_dataload, WARMUP, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    seconds = re.search(r"is Complete but dataset imagenet is 0.0% cached ([0-9]+) s after it completed, below the 95.0% asked for",
                        outcome.result["msg"])
    assert seconds and 600 <= int(seconds.group(1)) < 660, outcome.result["msg"]
    assert ("WATCH", "Dataset", "default", "100") not in cluster.requests
    # 648 GiB of cache for 144 GiB of data: the blocks went after the load.
    assert outcome.result["msg"].endswith("(cache capacity 648.00GiB, UFS 143.67GiB): the cache holds the data but lost blocks "
                                          "after the load completed: delete the DataLoad imagenet-warmup and warm up again")


def test_complete_below_the_threshold_with_a_cache_smaller_than_the_data_asks_for_more_cache(monkeypatch):
    dataset = partly_cached(40.0)
    dataset["status"]["cacheStates"].update(cacheCapacity="64.00GiB")
    cluster = FakeCluster([dataset], events={"DataLoad": [
        ("MODIFIED", {"name": "imagenet-warmup", "status": completed(time.time() - 600)})]})
    outcome = run(fluid_dataload, WARMUP, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"].endswith("(cache capacity 64.00GiB, UFS 143.67GiB): raise the tier quotas or the replicas, "
                                          "or lower cached_percentage")


# The dataset's figure at Complete is not yet the load's:
# - below it: Fluid's runtime controller copies the cache states into the dataset when it reconciles
#   (pkg/ddc/base/syncs.go, every 90 s by pkg/utils/crtl_utils.go), so the dataset can still show the
#   train split alone (32 of 36 MiB);
# - above 100 %: Alluxio counts the room a worker holds for blocks still being written as used (the
#   local cluster's warm-up read 144.4 % mid-load, 100.0 % once the blocks were committed).
@pytest.mark.parametrize("read_at_complete", [88.9, 144.4], ids=["before-fluid-refreshed-it", "above-100-percent"])
def test_a_figure_read_at_complete_is_followed_until_it_settles(monkeypatch, read_at_complete):
    cluster = FakeCluster([partly_cached(read_at_complete)], events={
        "DataLoad": [("MODIFIED", {"name": "imagenet-warmup", "status": completed(time.time())})],
        "Dataset": [("MODIFIED", {"name": "imagenet", "status": fixture("dataset-bound-full")["status"]})]})
    result = run(fluid_dataload, WARMUP, cluster, monkeypatch).result
    assert result["phase"] == "Complete" and result["cached_percentage"] == 100.0 and not result["timed_out"]
    assert cluster.requests[-2:] == [("GET", "Dataset", "default", None), ("WATCH", "Dataset", "default", "100")]


def test_the_refresh_window_closes_below_the_threshold_and_fails(monkeypatch):
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(lambda: next(clock)))
    cluster = FakeCluster([partly_cached(88.9)], events={"DataLoad": [
        ("MODIFIED", {"name": "imagenet-warmup", "status": completed(time.time())})]})
    outcome = run(fluid_dataload, dict(WARMUP, wait_timeout=600, cache_refresh_timeout=60), cluster, monkeypatch)
    assert isinstance(outcome, Failed) and not outcome.result["timed_out"]
    assert "is 88.9% cached" in outcome.result["msg"] and "below the 95.0% asked for" in outcome.result["msg"]
    assert ("WATCH", "Dataset", "default", "100") in cluster.requests


def test_a_slice_that_ends_inside_the_refresh_window_hands_on_to_the_next(monkeypatch):
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(lambda: next(clock)))
    cluster = FakeCluster([partly_cached(88.9)], events={"DataLoad": [
        ("MODIFIED", {"name": "imagenet-warmup", "status": completed(time.time())})]})
    result = run(fluid_dataload, dict(WARMUP, wait_timeout=30, fail_on_timeout=False), cluster, monkeypatch).result
    assert result["phase"] == "Complete" and result["timed_out"] and result["cached_percentage"] == 88.9


def test_a_negative_refresh_window_is_refused_before_any_call(monkeypatch):
    cluster = FakeCluster([partly_cached(0.0)])
    outcome = run(fluid_dataload, dict(WARMUP, cache_refresh_timeout=-5), cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"] == "cache_refresh_timeout=-5 must be 0 or more seconds" and cluster.requests == []


def test_an_unknown_dataset_is_named_with_those_that_exist(monkeypatch):
    cluster = FakeCluster([fixture("dataset-bound-empty")])
    outcome = run(fluid_dataload, dict(WARMUP, dataset="imagenette"), cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"].startswith("Dataset imagenette not found in namespace default (datasets there: imagenet)")


def test_dataset_info_waits_on_a_watch_until_bound(monkeypatch):
    cluster = FakeCluster([fixture("dataset-notbound-fresh"), fixture("alluxioruntime-partial")], events={"Dataset": [
        ("MODIFIED", {"name": "imagenet", "status": fixture("dataset-bound-full")["status"]})]})
    result = run(fluid_dataset_info, {"name": ["imagenet"], "wait": True}, cluster, monkeypatch).result
    assert cluster.requests == [("GET", "Dataset", "default", None), ("WATCH", "Dataset", "default", "100"),
                                ("GET", "AlluxioRuntime", "default", "imagenet")]
    dataset, = result["datasets"]
    assert dataset["phase"] == "Bound" and dataset["cached_percentage"] == 100.0
    assert dataset["runtime"]["worker"]["phase"] == "PartialReady"


def test_dataset_info_timeout_says_why(monkeypatch):
    clock = iter(range(0, 1000, 10))
    cluster = FakeCluster([fixture("dataset-notbound-fresh")])
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(lambda: next(clock)))
    outcome = run(fluid_dataset_info, {"name": ["imagenet"], "wait": True, "wait_timeout": 25}, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"].startswith("Timed out after 25s waiting for phase Bound: imagenet: phase NotBound; "
                                            "no runtime named imagenet in default")
    assert outcome.result["reasons"]["imagenet"]["phase"] == "NotBound"


def _client_with_clock(clock):
    original = k8s_client.KubeClient.__init__

    def init(self, k8s_client):
        original(self, k8s_client, clock=clock)
    return init


def test_dataset_info_check_mode_never_waits(monkeypatch):
    cluster = FakeCluster([fixture("dataset-notbound-fresh")])
    result = run(fluid_dataset_info, {"wait": True}, cluster, monkeypatch, check=True).result
    assert result["waited"] == 0.0 and result["datasets"][0]["phase"] == "NotBound"
    assert "WATCH" not in [r[0] for r in cluster.requests]


def test_dataset_info_unknown_name(monkeypatch):
    cluster = FakeCluster([fixture("dataset-bound-empty")])
    outcome = run(fluid_dataset_info, {"name": ["imagenet", "coco"]}, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"] == "Dataset coco not found in namespace default (datasets there: imagenet)"


def test_alluxio_cluster_info_reads_the_master_through_the_service_proxy(monkeypatch):
    calls = []

    class Core(object):
        def __init__(self, api_client):
            pass

        def connect_get_namespaced_service_proxy_with_path(self, name, namespace, path, _preload_content):
            calls.append((name, namespace, path))
            with open(os.path.join(FIXTURES, "..", "alluxio", "master-info.json"), "rb") as handle:
                return type("Response", (), {"data": handle.read()})

    class Api(object):
        client = type("Dynamic", (), {"client": None})

    monkeypatch.setattr(cluster_info, "CoreV1Api", Core)
    result = run(alluxio_cluster_info, {"namespace": "alluxio"}, Api(), monkeypatch).result
    assert calls == [("alluxio-master-0:19999", "alluxio", "api/v1/master/info")]
    assert result["live_workers"] == 4 and result["tiers"]["MEM"]["total"] == 400 * 1024 ** 3


def test_alluxio_cluster_info_refuses_master_url_with_fsadmin_before_any_call(monkeypatch):
    class Core(object):
        def __init__(self, api_client):
            raise AssertionError("no API call expected")

    class Api(object):
        client = type("Dynamic", (), {"client": None})

    monkeypatch.setattr(cluster_info, "CoreV1Api", Core)
    outcome = run(alluxio_cluster_info, {"source": "fsadmin", "master_url": "http://10.0.0.5:19999"}, Api(), monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"] == "master_url=http://10.0.0.5:19999 is only read with source=rest, not source=fsadmin"


def test_alluxio_cluster_info_names_the_master_url_it_cannot_read(monkeypatch):
    class Core(object):
        def __init__(self, api_client):
            pass

    class Api(object):
        client = type("Dynamic", (), {"client": None})

    def refuse(url, timeout):
        raise OSError("[Errno 111] Connection refused")

    monkeypatch.setattr(cluster_info, "CoreV1Api", Core)
    monkeypatch.setattr(cluster_info, "open_url", refuse)
    outcome = run(alluxio_cluster_info, {"master_url": "http://10.0.0.5:19999/"}, Api(), monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"] == ("Alluxio release alluxio in alluxio: cannot read http://10.0.0.5:19999/api/v1/master/info: "
                                     "[Errno 111] Connection refused")


@pytest.mark.parametrize("module, args, message", [
    (fluid_dataload, dict(WARMUP, cached_percentage=100.5), "cached_percentage=100.5 must be between 0 and 100"),
    (fluid_dataload, dict(WARMUP, wait_timeout=0, cache_refresh_timeout=-1),
     "wait_timeout=0 must be 1 or more seconds; cache_refresh_timeout=-1 must be 0 or more seconds"),
    (fluid_dataset_info, {"wait_cached_percentage": -1}, "wait_cached_percentage=-1.0 must be between 0 and 100"),
    (fluid_dataset_info, {"wait": True, "wait_timeout": -30}, "wait_timeout=-30 must be 1 or more seconds"),
    (mpijob, {"definition": {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "j"}}, "wait_timeout": 0},
     "wait_timeout=0 must be 1 or more seconds"),
    (alluxio_cluster_info, {"source": "fsadmin", "master_url": "http://10.0.0.5:19999"},
     "master_url=http://10.0.0.5:19999 is only read with source=rest, not source=fsadmin"),
])
def test_bad_input_is_refused_with_what_is_allowed_before_any_api_client(module, args, message, monkeypatch):
    def no_client(*args, **kwargs):
        raise AssertionError("no API client expected")

    monkeypatch.setattr(runner, "get_api_client", no_client)
    with patch_module_args(args):
        with pytest.raises(Failed) as outcome:
            module.main()
    assert outcome.value.result["msg"] == message


JOB = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "resnet50", "namespace": "default"},
       "spec": {"slotsPerWorker": 4, "mpiReplicaSpecs": {"Worker": {"replicas": 2}}}}
JOB_PODS = "training.kubeflow.org/job-name=resnet50"
LAUNCHER = {"kind": "Pod", "metadata": {"name": "resnet50-launcher-x7k2p", "namespace": "default",
                                        "labels": {"training.kubeflow.org/job-name": "resnet50",
                                                   "training.kubeflow.org/job-role": "launcher"},
                                        "creationTimestamp": "2026-11-21T03:40:00Z"},
            "spec": {"containers": [{"name": "launcher"}]}, "status": {"phase": "Running"}}


def job_conditions(*types):
    """A v2beta1 MPIJob's status as mpi-operator writes it, each condition true, in order."""
    return {"startTime": "2026-11-21T03:40:00Z", "completionTime": "2026-11-21T03:50:30Z" if "Succeeded" in types else None,
            "conditions": [{"type": t, "status": "True", "reason": "MPIJob" + t, "message": "MPIJob default/resnet50 is " + t.lower()}
                           for t in types]}


def existing_job(spec=None, **status):
    job = copy.deepcopy(JOB)
    job["spec"] = spec or job["spec"]
    job["metadata"]["annotations"] = {training_mpijob.HASH: training_mpijob.definition_hash(job)}
    return dict(job, status=status)


def launcher_log():
    with open(os.path.join(LOGS, "tagged-2x4-interleaved.log"), encoding="utf-8") as handle:
        return handle.read()


def test_mpijob_creates_the_job_watches_it_and_reads_the_launchers_log(monkeypatch, fake_core_api):
    cluster = FakeCluster([LAUNCHER], logs={LAUNCHER["metadata"]["name"]: launcher_log()}, events={"MPIJob": [
        ("MODIFIED", {"name": "resnet50", "status": job_conditions("Created", "Running")}),
        ("MODIFIED", {"name": "resnet50", "status": job_conditions("Created", "Running", "Succeeded")})]})
    result = run(mpijob, {"definition": JOB, "log_step": 100}, cluster, monkeypatch).result
    assert cluster.requests == [("GET", "MPIJob", "default", "resnet50"), ("POST", "MPIJob", "default", "resnet50"),
                                ("GET", "MPIJob", "default", None), ("WATCH", "MPIJob", "default", "100"),
                                ("GET", "Pod", "default", JOB_PODS), ("LOG", "Pod", "default", "resnet50-launcher-x7k2p")]
    created = cluster.objects[("MPIJob", "default", "resnet50")]
    assert created["spec"] == JOB["spec"] and created["metadata"]["annotations"] == {training_mpijob.HASH: training_mpijob.definition_hash(JOB)}
    assert result["changed"] and result["state"] == "Succeeded" and not result["timed_out"] and result["api_calls"] == 6
    assert result["duration_seconds"] == 630.0 and result["launcher"] == "resnet50-launcher-x7k2p"
    throughput = result["throughput"]
    assert (throughput["ranks"], throughput["step_read"], throughput["last_step"]) == (8, 100, 300)
    assert throughput["images_per_sec_at_step"] == round(640.1 + 652.3 + 650.0 + 649.5 + 651.2 + 647.8 + 653.0 + 648.9, 1)


def test_mpijob_from_the_same_definition_is_read_not_created_again(monkeypatch, fake_core_api):
    cluster = FakeCluster([existing_job(**job_conditions("Created", "Running", "Succeeded")), LAUNCHER],
                          logs={LAUNCHER["metadata"]["name"]: launcher_log()})
    result = run(mpijob, {"definition": JOB}, cluster, monkeypatch).result
    assert [r[0] for r in cluster.requests] == ["GET", "GET", "LOG"]
    assert not result["changed"] and result["state"] == "Succeeded"


def test_mpijob_from_another_definition_is_not_replaced(monkeypatch):
    cluster = FakeCluster([existing_job(spec={"slotsPerWorker": 8})])
    outcome = run(mpijob, {"definition": JOB}, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"] == ("MPIJob default/resnet50 exists from another definition (hash %s, not %s): a job is not "
                                     "replaced under a running training; delete it (state=absent) or give a new name" % (
                                         training_mpijob.definition_hash({"spec": {"slotsPerWorker": 8}}), training_mpijob.definition_hash(JOB)))
    assert cluster.requests == [("GET", "MPIJob", "default", "resnet50")]


def test_mpijob_failed_fails_with_its_condition_and_the_launchers_last_lines(monkeypatch, fake_core_api):
    log = "".join("line %d\n" % n for n in range(1, 13)) + "ResourceExhausted: OOM when allocating tensor"
    cluster = FakeCluster([LAUNCHER], logs={LAUNCHER["metadata"]["name"]: log}, events={"MPIJob": [
        ("MODIFIED", {"name": "resnet50", "status": job_conditions("Created", "Running", "Failed")})]})
    outcome = run(mpijob, {"definition": JOB}, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"] == ("MPIJob default/resnet50 Failed: MPIJobFailed: MPIJob default/resnet50 is failed; "
                                     "launcher resnet50-launcher-x7k2p's last lines:\n" + "\n".join(log.splitlines()[-10:]))
    assert outcome.result["state"] == "Failed" and outcome.result["throughput"]["steps_read"] == 0


def test_mpijob_timeout_names_the_wait_and_the_state(monkeypatch):
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(lambda: next(clock)))
    cluster = FakeCluster()
    outcome = run(mpijob, {"definition": JOB, "wait_timeout": 25}, cluster, monkeypatch)
    assert isinstance(outcome, Failed) and outcome.result["timed_out"]
    assert outcome.result["msg"] == "Timed out after 25s: MPIJob default/resnet50 is not started"
    assert [r[0] for r in cluster.requests] == ["GET", "POST", "GET", "WATCH", "WATCH", "GET"]


def worker_pod(index, phase, **status):
    return {"kind": "Pod", "metadata": {"name": "resnet50-worker-%d" % index, "namespace": "default",
                                        "labels": {"training.kubeflow.org/job-name": "resnet50",
                                                   "training.kubeflow.org/job-role": "worker"}},
            "spec": {"containers": [{"name": "worker"}]}, "status": dict(status, phase=phase)}


# containerd's words for a command the image does not have (runc, through the kubelet).
NO_SSHD = ('failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: '
           'unable to start container process: exec: "/usr/sbin/sshd": stat /usr/sbin/sshd: no such file or directory: unknown')


def test_mpijob_a_failed_worker_ends_the_wait_and_fails_naming_it_and_what_workers_need(monkeypatch, fake_core_api):
    # mpi-operator counts the failed worker in the job's status: that event ends the wait.
    failed = worker_pod(1, "Failed", containerStatuses=[{"name": "worker", "state": {"terminated": {
        "reason": "StartError", "exitCode": 128, "message": NO_SSHD}}}])
    job = dict(JOB, spec=dict(JOB["spec"], mpiReplicaSpecs={"Worker": {"replicas": 2, "template": {"spec": {"containers": [
        {"name": "worker", "command": ["/usr/sbin/sshd", "-De"]}]}}}}))
    cluster = FakeCluster([worker_pod(0, "Running"), failed], events={"MPIJob": [
        ("MODIFIED", {"name": "resnet50", "status": dict(job_conditions("Created"), replicaStatuses={"Worker": {"active": 1, "failed": 1}})})]})
    outcome = run(mpijob, {"definition": job}, cluster, monkeypatch)
    assert isinstance(outcome, Failed) and not outcome.result["timed_out"] and outcome.result["state"] == "Created"
    assert outcome.result["msg"] == (
        "MPIJob default/resnet50 cannot start: worker resnet50-worker-1 (worker: StartError, exit code 128: %s) failed. "
        "mpi-operator v2beta1 does not replace a failed worker, so the job would wait to the end of its timeout: delete it "
        "(state=absent) once the workers are fixed. The workers run /usr/sbin/sshd -De: the launcher's mpirun reaches them "
        "over SSH, so their image needs the SSH server there (an image made for Arena's older launcher, which started the "
        "ranks with kubectl exec, may have none: use Arena's launcher on a cluster that runs Arena's operator, or an image "
        "with OpenSSH)" % NO_SSHD)
    assert [r[0] for r in cluster.requests] == ["GET", "POST", "GET", "WATCH", "GET"]


def test_mpijob_an_evicted_worker_is_left_to_the_operator_which_fails_the_job(monkeypatch, fake_core_api):
    evicted = worker_pod(0, "Failed", reason="Evicted", message="The node was low on resource: memory.")
    cluster = FakeCluster([evicted], events={"MPIJob": [("MODIFIED", {"name": "resnet50", "status": dict(
        job_conditions("Created", "Failed"), replicaStatuses={"Worker": {"failed": 1}})})]})
    outcome = run(mpijob, {"definition": JOB}, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"].startswith("MPIJob default/resnet50 Failed: MPIJobFailed: MPIJob default/resnet50 is failed; ")


def test_mpijob_timeout_names_what_holds_the_pods_that_have_not_started(monkeypatch):
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(lambda: next(clock)))
    pulling = worker_pod(0, "Pending", containerStatuses=[{"name": "worker", "state": {"waiting": {
        "reason": "ImagePullBackOff", "message": 'Back-off pulling image "registry.local/training:1"'}}}])
    creating = worker_pod(1, "Pending", containerStatuses=[{"name": "worker", "state": {"waiting": {"reason": "ContainerCreating"}}}])
    unplaced = dict(worker_pod(2, "Pending", conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                                          "message": "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."}]))
    cluster = FakeCluster([pulling, creating, unplaced])
    outcome = run(mpijob, {"definition": JOB, "wait_timeout": 25}, cluster, monkeypatch)
    assert isinstance(outcome, Failed) and outcome.result["timed_out"]
    assert outcome.result["msg"] == (
        'Timed out after 25s: MPIJob default/resnet50 is not started; resnet50-worker-0 ImagePullBackOff: Back-off pulling image '
        '"registry.local/training:1"; resnet50-worker-2 Unschedulable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu.')
    assert outcome.result["waiting"] == outcome.result["msg"].split("; ", 1)[1].split("; ")


def test_mpijob_timeout_without_failing_returns_the_state_and_a_launcher_without_a_log_yet(monkeypatch, fake_core_api):
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(lambda: next(clock)))
    # The kubelet answers 400 while the launcher's container is still being created.
    cluster = FakeCluster([LAUNCHER], logs={LAUNCHER["metadata"]["name"]: ApiException(status=400, reason="Bad Request")})
    result = run(mpijob, {"definition": JOB, "wait_timeout": 5, "fail_on_timeout": False}, cluster, monkeypatch).result
    assert result["timed_out"] and result["state"] == "" and result["launcher"] == "resnet50-launcher-x7k2p"
    assert "throughput" not in result


def test_mpijob_check_mode_creates_nothing_and_never_waits(monkeypatch):
    cluster = FakeCluster()
    result = run(mpijob, {"definition": JOB}, cluster, monkeypatch, check=True).result
    assert result["changed"] and result["mpijob"]["metadata"]["annotations"] == {training_mpijob.HASH: training_mpijob.definition_hash(JOB)}
    assert cluster.requests == [("GET", "MPIJob", "default", "resnet50")]


def test_mpijob_absent_deletes_the_job(monkeypatch):
    cluster = FakeCluster([existing_job(**job_conditions("Created", "Running"))])
    result = run(mpijob, {"definition": JOB, "state": "absent"}, cluster, monkeypatch).result
    assert result["changed"] and result["state"] == "Running"
    assert cluster.requests == [("GET", "MPIJob", "default", "resnet50"), ("DELETE", "MPIJob", "default", "resnet50")]


def test_mpijob_refuses_a_definition_that_is_not_a_v2beta1_mpijob_before_any_call(monkeypatch):
    cluster = FakeCluster()
    outcome = run(mpijob, {"definition": dict(JOB, apiVersion="kubeflow.org/v1")}, cluster, monkeypatch)
    assert isinstance(outcome, Failed) and cluster.requests == []
    assert outcome.result["msg"] == ("definition must be a kubeflow.org/v2beta1 MPIJob with metadata.name "
                                     "(got apiVersion=kubeflow.org/v1, kind=MPIJob, name=resnet50)")


class DroppingCluster(FakeCluster):
    """A FakeCluster whose first ``drops`` watches break off mid-stream, and whose lists fail while
    ``down`` says the API server is down, as urllib3 reports both."""

    def __init__(self, *args, drops=1, down=0, silent=False, **kwargs):
        super(DroppingCluster, self).__init__(*args, **kwargs)
        self.drops, self.down, self.silent = drops, down, silent

    def get(self, resource, name=None, namespace=None, **kwargs):
        if self.down and name is None and any(r[0] == "WATCH" for r in self.requests):
            self.down -= 1
            self.requests.append(("GET", resource.kind, namespace, "refused"))
            raise urllib3.exceptions.ProtocolError("Connection aborted.", ConnectionRefusedError(111, "Connection refused"))
        return super(DroppingCluster, self).get(resource, name=name, namespace=namespace, **kwargs)

    def watch(self, resource, namespace=None, resource_version=None, timeout=None, watcher=None):
        if self.drops:
            self.drops -= 1
            self.requests.append(("WATCH", resource.kind, namespace, resource_version))
            self.watchers.append((timeout, watcher))
            if self.silent:  # no reset, no data: the watcher's read timeout ends it
                raise urllib3.exceptions.ReadTimeoutError(None, "/apis/data.fluid.io/v1alpha1/namespaces/default/datasets",
                                                          "Read timed out. (read timeout=%s)" % watcher.read_seconds)
            raise urllib3.exceptions.ProtocolError("Connection broken: IncompleteRead(0 bytes read)")
        return super(DroppingCluster, self).watch(resource, namespace, resource_version, timeout, watcher)


def _client_with_clock_and_pauses(clock, pauses):
    original = k8s_client.KubeClient.__init__

    def init(self, k8s_client):
        original(self, k8s_client, clock=clock, pause=pauses.append)
    return init


def test_a_dropped_watch_lists_again_and_the_wait_goes_on(monkeypatch):
    pauses = []
    clock = iter(range(0, 1000, 1))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock_and_pauses(lambda: next(clock), pauses))
    cluster = DroppingCluster([fixture("dataset-notbound-fresh"), fixture("alluxioruntime-partial")], drops=1, down=2, events={
        "Dataset": [("MODIFIED", {"name": "imagenet", "status": fixture("dataset-bound-full")["status"]})]})
    result = run(fluid_dataset_info, {"name": ["imagenet"], "wait": True, "wait_timeout": 60}, cluster, monkeypatch).result
    assert result["datasets"][0]["phase"] == "Bound"
    # The watch broke, two lists were refused (a pause after each), the third listed, a new watch followed.
    assert [r for r in cluster.requests if r[0] in ("GET", "WATCH")][:6] == [
        ("GET", "Dataset", "default", None), ("WATCH", "Dataset", "default", "100"), ("GET", "Dataset", "default", "refused"),
        ("GET", "Dataset", "default", "refused"), ("GET", "Dataset", "default", None), ("WATCH", "Dataset", "default", "100")]
    assert pauses == [waiter.RECONNECT_PAUSE] * 2
    assert result["reconnects"] == 3


def test_a_watch_that_goes_silent_ends_at_its_read_timeout_and_the_wait_goes_on(monkeypatch):
    pauses = []
    clock = iter(range(0, 1000, 1))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock_and_pauses(lambda: next(clock), pauses))
    cluster = DroppingCluster([fixture("dataset-notbound-fresh"), fixture("alluxioruntime-partial")], drops=1, silent=True, events={
        "Dataset": [("MODIFIED", {"name": "imagenet", "status": fixture("dataset-bound-full")["status"]})]})
    result = run(fluid_dataset_info, {"name": ["imagenet"], "wait": True, "wait_timeout": 600}, cluster, monkeypatch).result
    assert result["datasets"][0]["phase"] == "Bound" and result["reconnects"] == 1
    # Each watch reads for at most the server's timeout and a grace: a silent connection ends.
    (first, watcher), _unused = cluster.watchers
    assert isinstance(watcher, k8s_client.TimedWatch) and watcher.read_seconds == first + k8s_client.WATCH_READ_GRACE


def test_the_timed_watch_asks_the_client_for_its_read_timeout():
    asked = {}

    def list_datasets(**kwargs):
        asked.update(kwargs)
        raise StopIteration  # ends the stream before any read
    stream = k8s_client.TimedWatch(75).stream(list_datasets, namespace="default", timeout_seconds=60)
    with pytest.raises(RuntimeError):  # a generator turns the StopIteration into a RuntimeError
        next(stream)
    assert asked["_request_timeout"] == (k8s_client.CONNECT_SECONDS, 75) and asked["watch"] is True


def test_an_api_server_that_stays_away_fails_the_wait_with_the_reason(monkeypatch):
    pauses = []
    clock = iter(range(0, 1000, 10))
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock_and_pauses(lambda: next(clock), pauses))
    cluster = DroppingCluster([fixture("dataset-notbound-fresh")], drops=1, down=100)
    outcome = run(fluid_dataset_info, {"name": ["imagenet"], "wait": True, "wait_timeout": 60}, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert outcome.result["msg"].startswith("lost the watch on Dataset in default and could not reach the API server again "
                                            "before the wait ended")
    assert "Connection refused" in outcome.result["msg"]


def k8s_node(name, labels=None, annotations=None, taints=None):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {}, **{"kubernetes.io/hostname": name}),
                                                             "annotations": annotations or {}},
            "spec": {"taints": taints} if taints is not None else {}}


GPU = {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"}
DEDICATED = {"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}


def label_entry(name, labels=None, taints=(DEDICATED,), remove_dropped=False):
    return {"name": name, "host": name, "labels": dict(GPU, **(labels or {})), "taints": list(taints), "remove_dropped": remove_dropped}


def test_node_labels_lists_once_and_patches_each_node_then_nothing_on_a_second_run(monkeypatch):
    cordon = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    cluster = FakeCluster([k8s_node("gpu-node-%d" % i, taints=[cordon] if i == 2 else None) for i in (1, 2, 3)])
    # Asked for in another order than the names: the report and the patches follow the names.
    args = {"nodes": [label_entry("gpu-node-2"), label_entry("gpu-node-1", {"fluidops.io/pool": "training"})]}
    result = run(gpu_node_labels, args, cluster, monkeypatch).result
    assert result["changed"] and result["patched"] == ["gpu-node-1", "gpu-node-2"]
    assert cluster.requests == [("GET", "Node", None, None), ("PATCH", "Node", None, "gpu-node-1"), ("PATCH", "Node", None, "gpu-node-2")]
    assert result["api_calls"] == 3
    first = cluster.objects[("Node", None, "gpu-node-1")]["metadata"]
    assert first["labels"]["fluidops.io/pool"] == "training" and first["labels"]["kubernetes.io/hostname"] == "gpu-node-1"
    assert first["annotations"] == {"fluidops.io/managed-labels": "aliyun.accelerator/nvidia_name,fluidops.io/pool",
                                    "fluidops.io/managed-taints": "fluidops.io/dedicated"}
    # A taint someone else set stays, ahead of the managed one.
    assert cluster.objects[("Node", None, "gpu-node-2")]["spec"]["taints"] == [cordon, DEDICATED]
    assert "fluidops.io/managed-labels" not in cluster.objects[("Node", None, "gpu-node-3")]["metadata"]["annotations"]
    cluster.requests.clear()
    again = run(gpu_node_labels, args, cluster, monkeypatch).result
    assert not again["changed"] and again["patched"] == [] and cluster.requests == [("GET", "Node", None, None)]


def test_node_labels_removes_only_what_it_set_and_only_when_asked(monkeypatch):
    cluster = FakeCluster([k8s_node("gpu-node-1", labels={"team": "ml"})])
    run(gpu_node_labels, {"nodes": [label_entry("gpu-node-1", {"fluidops.io/pool": "training"})]}, cluster, monkeypatch)
    kept = run(gpu_node_labels, {"nodes": [label_entry("gpu-node-1", taints=())]}, cluster, monkeypatch).result
    node = cluster.objects[("Node", None, "gpu-node-1")]
    # Dropped from the variables, but kept (and still listed as managed) without remove_dropped.
    assert kept["changed"] is False and node["metadata"]["labels"]["fluidops.io/pool"] == "training"
    removed = run(gpu_node_labels, {"nodes": [label_entry("gpu-node-1", taints=(), remove_dropped=True)]}, cluster, monkeypatch).result
    node = cluster.objects[("Node", None, "gpu-node-1")]
    assert removed["changed"] and "fluidops.io/pool" not in node["metadata"]["labels"]
    assert node["metadata"]["labels"]["team"] == "ml" and node["spec"]["taints"] == []
    assert node["metadata"]["annotations"] == {"fluidops.io/managed-labels": "aliyun.accelerator/nvidia_name", "fluidops.io/managed-taints": ""}


def test_node_labels_absent_takes_off_what_it_set_and_its_annotations_then_nothing(monkeypatch):
    cordon = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
    cluster = FakeCluster([k8s_node("gpu-node-1", labels={"team": "ml"}, taints=[cordon])])
    run(gpu_node_labels, {"nodes": [label_entry("gpu-node-1", {"fluidops.io/pool": "training"})]}, cluster, monkeypatch)
    gone = {"name": "gpu-node-1", "state": "absent"}
    result = run(gpu_node_labels, {"nodes": [gone]}, cluster, monkeypatch).result
    node = cluster.objects[("Node", None, "gpu-node-1")]
    assert result["changed"] and node["metadata"]["labels"] == {"team": "ml", "kubernetes.io/hostname": "gpu-node-1"}
    # Others' taints and annotations stay; the bookkeeping goes with what it listed.
    assert node["spec"]["taints"] == [cordon] and node["metadata"]["annotations"] == {}
    cluster.requests.clear()
    again = run(gpu_node_labels, {"nodes": [gone]}, cluster, monkeypatch).result
    assert again["changed"] is False and cluster.requests == [("GET", "Node", None, None)]


def test_node_labels_a_time_the_api_server_added_to_a_taint_is_no_change(monkeypatch):
    stamped = dict(DEDICATED, timeAdded="2026-11-22T07:00:00Z")
    annotations = {"fluidops.io/managed-labels": "aliyun.accelerator/nvidia_name", "fluidops.io/managed-taints": "fluidops.io/dedicated"}
    cluster = FakeCluster([k8s_node("gpu-node-1", labels=GPU, annotations=annotations, taints=[stamped])])
    result = run(gpu_node_labels, {"nodes": [label_entry("gpu-node-1")]}, cluster, monkeypatch).result
    assert result["changed"] is False and cluster.requests == [("GET", "Node", None, None)]


def test_node_labels_check_mode_reports_the_patches_and_sends_none(monkeypatch):
    cluster = FakeCluster([k8s_node("gpu-node-1")])
    result = run(gpu_node_labels, {"nodes": [label_entry("gpu-node-1")]}, cluster, monkeypatch, check=True).result
    assert result["changed"] and result["patches"]["gpu-node-1"]["metadata"]["labels"] == GPU
    assert cluster.requests == [("GET", "Node", None, None)]
    assert "fluidops.io/managed-labels" not in cluster.objects[("Node", None, "gpu-node-1")]["metadata"]["annotations"]


def test_node_labels_a_host_without_a_node_fails_before_any_patch(monkeypatch):
    cluster = FakeCluster([k8s_node("gpu-node-1")])
    args = {"nodes": [label_entry("gpu-node-1"), dict(label_entry("gpu-node-9"), host="v100-09")]}
    monkeypatch.setattr(runner, "get_api_client", lambda *a, **k: cluster)
    with patch_module_args(args), pytest.raises(Failed) as failed:
        gpu_node_labels.main()
    assert failed.value.result["msg"] == ("No Kubernetes node named gpu-node-9 for host v100-09: set node_labels_node_name to the "
                                          "node's name (kubectl get nodes).")
    assert cluster.requests == [("GET", "Node", None, None)]


def crd(name, version="v1alpha1"):
    group = name.split(".", 1)[1]
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": name},
            "spec": {"group": group, "names": {"kind": name.split(".")[0].title()}, "scope": "Namespaced",
                     "versions": [{"name": version, "served": True, "storage": True}]}}


def crd_files(tmp_path, *crds):
    path = tmp_path / "crds.yaml"
    path.write_text(yaml.safe_dump_all(crds))
    return [str(path)]


def test_chart_crds_applies_each_crd_then_leaves_them_all_on_a_second_run(monkeypatch, tmp_path):
    cluster = FakeCluster()
    src = crd_files(tmp_path, crd("datasets.data.fluid.io"), crd("dataloads.data.fluid.io"))
    first = run(chart_crds, {"src": src}, cluster, monkeypatch).result
    assert first["changed"] and first["applied"] == ["datasets.data.fluid.io", "dataloads.data.fluid.io"]
    assert cluster.requests == [("GET metadata", "CustomResourceDefinition", None, None),
                                ("APPLY", "CustomResourceDefinition", None, "datasets.data.fluid.io"),
                                ("PATCH", "CustomResourceDefinition", None, "datasets.data.fluid.io"),
                                ("APPLY", "CustomResourceDefinition", None, "dataloads.data.fluid.io"),
                                ("PATCH", "CustomResourceDefinition", None, "dataloads.data.fluid.io")]
    annotations = cluster.objects[("CustomResourceDefinition", None, "datasets.data.fluid.io")]["metadata"]["annotations"]
    assert annotations["fluidops.io/manifest-sha256"] == crds.fingerprint(crd("datasets.data.fluid.io"))
    assert annotations["fluidops.io/applied-generation"] == "1"
    cluster.requests.clear()
    second = run(chart_crds, {"src": src}, cluster, monkeypatch).result
    assert second["changed"] is False and second["unchanged"] == ["datasets.data.fluid.io", "dataloads.data.fluid.io"]
    assert cluster.requests == [("GET metadata", "CustomResourceDefinition", None, None)] and second["api_calls"] == 1


def test_chart_crds_applies_again_a_changed_manifest_and_a_crd_whose_spec_someone_changed(monkeypatch, tmp_path):
    cluster = FakeCluster()
    run(chart_crds, {"src": crd_files(tmp_path, crd("datasets.data.fluid.io"), crd("dataloads.data.fluid.io"))}, cluster, monkeypatch)
    # Someone else's apply moves the spec (and the generation) of one; the chart's next version changes the other.
    stored = cluster.objects[("CustomResourceDefinition", None, "datasets.data.fluid.io")]
    stored["spec"]["scope"], stored["metadata"]["generation"] = "Cluster", 2
    src = crd_files(tmp_path, crd("datasets.data.fluid.io"), crd("dataloads.data.fluid.io", version="v1beta1"))
    result = run(chart_crds, {"src": src}, cluster, monkeypatch).result
    assert result["applied"] == ["datasets.data.fluid.io", "dataloads.data.fluid.io"] and result["unchanged"] == []
    stored = cluster.objects[("CustomResourceDefinition", None, "datasets.data.fluid.io")]
    assert stored["spec"]["scope"] == "Namespaced" and stored["metadata"]["annotations"]["fluidops.io/applied-generation"] == "3"


def test_chart_crds_check_mode_reports_what_it_would_apply_and_applies_nothing(monkeypatch, tmp_path):
    cluster = FakeCluster()
    result = run(chart_crds, {"src": crd_files(tmp_path, crd("datasets.data.fluid.io"))}, cluster, monkeypatch, check=True).result
    assert result["changed"] and result["applied"] == ["datasets.data.fluid.io"]
    assert cluster.requests == [("GET metadata", "CustomResourceDefinition", None, None)] and cluster.objects == {}


def test_chart_crds_a_document_that_is_no_crd_fails_before_any_request(monkeypatch, tmp_path):
    cluster = FakeCluster()
    src = crd_files(tmp_path, crd("datasets.data.fluid.io"), {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}})
    monkeypatch.setattr(runner, "get_api_client", lambda *a, **k: cluster)
    with patch_module_args({"src": src}), pytest.raises(Failed) as failed:
        chart_crds.main()
    assert failed.value.result["msg"] == "src: %s, document 2: kind ConfigMap, not a named CustomResourceDefinition" % src[0]
    assert cluster.requests == []


def gpu_node(name, ready=True, cordoned=False):
    return {"kind": "Node", "metadata": {"name": name, "labels": {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"}},
            "spec": {"unschedulable": True} if cordoned else {},
            "status": {"conditions": [{"type": "Ready", "status": "True" if ready else "Unknown"}]}}


def listing_pod(name, node, phase):
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"fluidops.io/listing": "imagenet-warmup-listing"}},
            "spec": {"nodeName": node}, "status": {"phase": phase}}


LISTING = {"name": "imagenet-warmup-listing", "dataset": "imagenet", "node_selector": {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"},
           "tolerations": [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}], "wait_timeout": 30}
FUSE_DAEMONSET = {"kind": "DaemonSet", "metadata": {"name": "imagenet-fuse", "namespace": "default"},
                  "spec": {"template": {"spec": {"containers": [{"name": "alluxio-fuse", "image": "alluxio/alluxio:2.9.3"}]}}}}


def listing_cluster(job_status, pods, logs):
    """Two GPU nodes that take pods, one cordoned and one not Ready; the dataset's FUSE DaemonSet;
    the Job's watch ends with ``job_status``, its pods as given."""
    return FakeCluster([fixture("dataset-bound-full"), FUSE_DAEMONSET, gpu_node("gpu-1"), gpu_node("gpu-2"),
                        gpu_node("gpu-3", cordoned=True), gpu_node("gpu-4", ready=False)] + pods,
                       events={"Job": [("MODIFIED", {"name": "imagenet-warmup-listing", "status": job_status})]}, logs=logs)


def test_listing_runs_a_pod_on_each_schedulable_gpu_node_then_records_it_and_deletes_the_job(monkeypatch, fake_core_api):
    complete = {"succeeded": 2, "conditions": [{"type": "Complete", "status": "True"}]}
    cluster = listing_cluster(complete, [listing_pod("l-a", "gpu-1", "Succeeded"), listing_pod("l-b", "gpu-2", "Succeeded")],
                              {"l-a": "1200\n", "l-b": "1200\n"})
    result = run(fluid_dataset_listing, LISTING, cluster, monkeypatch).result
    assert result["changed"] and result["listed"] and result["nodes"] == ["gpu-1", "gpu-2"]
    assert result["files"] == {"gpu-1": 1200, "gpu-2": 1200}
    assert [r for r in cluster.requests if r[0] == "LOG"] == [("LOG", "Pod", "default", "l-a"), ("LOG", "Pod", "default", "l-b")]
    posted = [r for r in cluster.requests if r[0] == "POST"]
    assert posted == [("POST", "Job", "default", "imagenet-warmup-listing")]
    assert ("DELETE", "Job", "default", "imagenet-warmup-listing", "Background") in cluster.requests
    assert ("Job", "default", "imagenet-warmup-listing") not in cluster.objects
    record = json.loads(cluster.objects[("Dataset", "default", "imagenet")]["metadata"]["annotations"]["fluidops.io/listed"])
    assert record == {"job": "imagenet-warmup-listing", "path": "", "nodes": ["gpu-1", "gpu-2"]}
    # A second run with the same settings and nodes lists nothing.
    cluster.requests.clear()
    again = run(fluid_dataset_listing, LISTING, cluster, monkeypatch).result
    assert not again["changed"] and not again["listed"]
    assert [r[0] for r in cluster.requests] == ["GET", "GET"]
    # A node that joins the GPU nodes is listed on: the record no longer covers the nodes.
    cluster.objects[("Node", None, "gpu-5")] = gpu_node("gpu-5")
    cluster.objects.pop(("Pod", "default", "l-a")), cluster.objects.pop(("Pod", "default", "l-b"))
    assert run(fluid_dataset_listing, LISTING, cluster, monkeypatch).result["nodes"] == ["gpu-1", "gpu-2", "gpu-5"]


def test_the_listing_job_is_one_read_only_pod_per_node_with_the_fuse_image(monkeypatch, fake_core_api):
    cluster = listing_cluster({"active": 2}, [], {})
    result = run(fluid_dataset_listing, dict(LISTING, path="/imagenet/train", fail_on_timeout=False), cluster, monkeypatch).result
    assert result["timed_out"] and result["progress"] == {"succeeded": 0, "failed": 0, "active": 2}
    job = cluster.objects[("Job", "default", "imagenet-warmup-listing")]["spec"]
    assert (job["completions"], job["parallelism"], job["backoffLimit"]) == (2, 2, 0)
    pod = job["template"]["spec"]
    assert pod["nodeSelector"] == LISTING["node_selector"]
    anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
    assert anti["topologyKey"] == "kubernetes.io/hostname"
    assert anti["labelSelector"]["matchLabels"].items() <= job["template"]["metadata"]["labels"].items()
    assert pod["volumes"] == [{"name": "dataset", "persistentVolumeClaim": {"claimName": "imagenet", "readOnly": True}}]
    container = pod["containers"][0]
    assert container["image"] == "alluxio/alluxio:2.9.3" and container["command"][-1] == "/dataset/imagenet/train"
    assert container["volumeMounts"][0]["readOnly"]
    assert pod["tolerations"] == [dict(LISTING["tolerations"][0], operator="Equal")]
    assert "fluidops.io/listed" not in (cluster.objects[("Dataset", "default", "imagenet")]["metadata"].get("annotations") or {})


def test_a_failed_listing_pod_fails_with_its_node_and_log_and_the_job_goes(monkeypatch, fake_core_api):
    failed = {"failed": 1, "succeeded": 1, "conditions": [{"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded"}]}
    cluster = listing_cluster(failed, [listing_pod("l-a", "gpu-1", "Succeeded"), listing_pod("l-b", "gpu-2", "Failed")],
                              {"l-a": "1200\n", "l-b": "ls: cannot access '/dataset': Transport endpoint is not connected\n"})
    outcome = run(fluid_dataset_listing, LISTING, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    assert "pod l-b on gpu-2: ls: cannot access '/dataset': Transport endpoint is not connected" in outcome.result["msg"]
    assert ("Job", "default", "imagenet-warmup-listing") not in cluster.objects
    assert "fluidops.io/listed" not in (cluster.objects[("Dataset", "default", "imagenet")]["metadata"].get("annotations") or {})


def test_a_listing_times_out_naming_what_its_pods_wait_for(monkeypatch, fake_core_api):
    pending = listing_pod("l-a", None, "Pending")
    pending["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                        "message": "0/4 nodes are available: 2 node(s) didn't match pod anti-affinity rules"}]
    cluster = listing_cluster({"active": 1, "succeeded": 1}, [listing_pod("l-b", "gpu-2", "Succeeded"), pending], {})
    outcome = run(fluid_dataset_listing, LISTING, cluster, monkeypatch)
    assert isinstance(outcome, Failed)
    message = outcome.result["msg"]
    assert message.startswith("Timed out after 30s: the listing of dataset imagenet: 1 of 2 nodes done"), message
    assert "pod l-a on no node Pending (Unschedulable: 0/4 nodes are available" in message


@pytest.mark.parametrize("args, objects, message", [
    (dict(LISTING, node_selector={}), [], "node_selector={} selects every node"),
    (LISTING, [gpu_node("gpu-1")], "dataset imagenet has no FUSE DaemonSet in namespace default to take the listing's image from"),
    (dict(LISTING, dataset="other"), [gpu_node("gpu-1")], "Dataset other not found in namespace default"),
    (LISTING, [gpu_node("gpu-1", ready=False)], "no Ready, schedulable node has the labels aliyun.accelerator/nvidia_name=Tesla-V100-SXM2-16GB"),
])
def test_a_listing_that_cannot_run_fails_before_creating_anything(monkeypatch, args, objects, message):
    cluster = FakeCluster([fixture("dataset-bound-full")] + objects)
    outcome = run(fluid_dataset_listing, args, cluster, monkeypatch)
    assert isinstance(outcome, Failed) and message in outcome.result["msg"], outcome.result["msg"]
    assert not [r for r in cluster.requests if r[0] in ("POST", "PATCH", "DELETE")]


def test_a_listing_in_check_mode_creates_nothing(monkeypatch):
    cluster = listing_cluster({}, [], {})
    result = run(fluid_dataset_listing, LISTING, cluster, monkeypatch, check=True).result
    assert result["changed"] and result["nodes"] == ["gpu-1", "gpu-2"]
    assert all(r[0] == "GET" for r in cluster.requests)
