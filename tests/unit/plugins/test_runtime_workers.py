"""fluid_runtime_workers: what one cache worker holds, when a scaled runtime counts as there, the
exact API calls against the fake cluster of test_modules, what a timeout says, and the action
plugin's progress and slices (with the scripted module of test_sliced_wait, and with the module
itself run slice after slice against the fake cluster)."""

import copy

import pytest

from ansible_collections.fluidops.accel.plugins.action import fluid_runtime_workers as action
from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import InputError
from ansible_collections.fluidops.accel.plugins.module_utils.fluid import workers
from ansible_collections.fluidops.accel.plugins.module_utils.k8s import client as k8s_client
from ansible_collections.fluidops.accel.plugins.module_utils.k8s import runner
from ansible_collections.fluidops.accel.plugins.modules import fluid_runtime_workers

# The fake cluster and the scripted module of the other tests, by the collection's path, by which
# ansible-test units imports every test file (pytest alone would import them by their file names).
from ansible_collections.fluidops.accel.tests.unit.plugins import test_modules, test_sliced_wait
from ansible_collections.fluidops.accel.tests.unit.plugins.test_modules import Exit, Failed, FakeCluster, _client_with_clock, patch_module_args
from ansible_collections.fluidops.accel.tests.unit.plugins.test_modules import run as run_module
from ansible_collections.fluidops.accel.tests.unit.plugins.test_sliced_wait import Module
from ansible_collections.fluidops.accel.tests.unit.plugins.test_sliced_wait import run as run_action

# Their fixtures, here as there: exit_json and fail_json raise (after each test, no result carried
# warnings); the lines the action plugin prints.
raise_on_exit = test_modules.raise_on_exit
printed = test_sliced_wait.printed

FLUID_API = "data.fluid.io/v1alpha1"
MEM_TIER = {"mediumtype": "MEM", "path": "/dev/shm", "quota": "32Mi", "high": "0.99", "low": "0.8"}


def runtime(kind="AlluxioRuntime", name="imagenet", replicas=1, ready=1, levels=(MEM_TIER,), properties=None):
    spec = {"replicas": replicas, "tieredstore": {"levels": [dict(level) for level in levels]}}
    if properties:
        spec["properties"] = properties
    return {"apiVersion": FLUID_API, "kind": kind, "metadata": {"name": name, "namespace": "default"}, "spec": spec,
            "status": {"workerNumberReady": ready, "workerPhase": "Ready", "masterPhase": "Ready", "fusePhase": "Ready"}}


def dataset(name="imagenet", capacity="32.00MiB", engine="alluxio"):
    status = {"phase": "Bound", "runtimes": [{"category": "Accelerate", "name": name, "namespace": "default", "type": engine}]}
    if capacity:
        status["cacheStates"] = {"cacheCapacity": capacity, "cached": "0.00B", "cachedPercentage": "0.0%"}
    return {"apiVersion": FLUID_API, "kind": "Dataset", "metadata": {"name": name, "namespace": "default"}, "status": status}


def pod(name, phase, ready):
    return {"kind": "Pod", "metadata": {"name": name, "namespace": "default", "labels": {"release": "imagenet"}},
            "status": {"phase": phase, "conditions": [{"type": "Ready", "status": "True" if ready else "False"}]}}


class Clock(object):
    """Moves by ``step`` seconds a reading, for the module's client and the action alike."""

    def __init__(self, step=5):
        self.now, self.step = 0.0, step

    def __call__(self):
        self.now += self.step
        return self.now


@pytest.mark.parametrize("levels, expected", [
    ([MEM_TIER], 32 * 2 ** 20),
    # One quota a path: quotaList wins over quota, as Fluid reads it.
    ([dict(MEM_TIER, path="/dev/shm/a,/dev/shm/b", quotaList="32Mi, 16Mi", quota="1Gi")], 48 * 2 ** 20),
    # Several levels add up; a quota is shared among its paths in whole bytes (Fluid divides it).
    ([MEM_TIER, {"mediumtype": "SSD", "path": "/mnt/a,/mnt/b,/mnt/c", "quota": "100"}, {"mediumtype": "HDD", "path": "/h", "quota": "1G"}],
     32 * 2 ** 20 + 99 + 10 ** 9),
    ([], None),
])
def test_a_workers_capacity_adds_up_its_tiers(levels, expected):
    assert workers.worker_capacity(runtime(levels=levels)) == expected


@pytest.mark.parametrize("level, message", [
    ({"mediumtype": "MEM", "path": "/dev/shm"}, "AlluxioRuntime default/imagenet spec.tieredstore.levels[1] has neither quota nor quotaList"),
    (dict(MEM_TIER, quota="1e9"), "AlluxioRuntime default/imagenet spec.tieredstore.levels[1].quota=1e9 is not a byte quantity"),
    (dict(MEM_TIER, quotaList="1Gi,lots"), "AlluxioRuntime default/imagenet spec.tieredstore.levels[1].quotaList=lots is not a byte quantity"),
])
def test_a_tier_without_a_readable_quota_is_named(level, message):
    with pytest.raises(InputError) as error:
        workers.worker_capacity(runtime(levels=[MEM_TIER, level]))
    assert str(error.value).startswith(message)


def target(replicas, kind="AlluxioRuntime"):
    return {"name": "imagenet", "namespace": "default", "kind": kind, "replicas": replicas, "previous_replicas": 1,
            "runtime": runtime(kind=kind), "per_worker": 32 * 2 ** 20 if kind == "AlluxioRuntime" else None}


@pytest.mark.parametrize("kind, ready, capacity, done, reads", [
    ("AlluxioRuntime", 2, "64.00MiB", True, 1),
    ("AlluxioRuntime", 2, "64MiB", True, 1),  # as Fluid writes it or not, the same size
    ("AlluxioRuntime", 1, "64.00MiB", False, 1),  # a worker not Ready
    ("AlluxioRuntime", 2, "32.00MiB", False, 0),  # the new worker not registered: the runtime is not read
    ("AlluxioRuntime", 2, "96.00MiB", False, 0),  # a stopped worker still counted
    ("AlluxioRuntime", 2, None, False, 0),
    ("JindoRuntime", 2, "32.00MiB", True, 1),  # Jindo's capacity is not awaited
    ("JindoRuntime", 3, None, False, 1),
])
def test_the_wait_is_over_when_the_workers_are_ready_and_the_capacity_counts_them(kind, ready, capacity, done, reads):
    cluster = FakeCluster([runtime(kind=kind, replicas=2, ready=ready)])
    check = workers.WorkersCheck(k8s_client.KubeClient(cluster), [target(2, kind)])
    assert check.done(dataset(capacity=capacity)) is done
    assert len(cluster.requests) == reads


def grow(cluster, obj):
    """As Fluid and Alluxio do after a scale-out: the second worker Ready, then registered."""
    cluster.objects[("AlluxioRuntime", "default", "imagenet")]["status"]["workerNumberReady"] = 2


def test_a_grow_patches_the_replicas_and_waits_for_the_new_workers_capacity(monkeypatch):
    cluster = FakeCluster([dataset(), runtime()], on_watch=grow, events={"Dataset": [
        ("MODIFIED", {"name": "imagenet", "status": {"cacheStates": {"cacheCapacity": "64.00MiB"}}})]})
    result = run_module(fluid_runtime_workers, {"name": ["imagenet"], "replicas": 2}, cluster, monkeypatch).result
    assert cluster.requests == [("GET", "Dataset", "default", None), ("GET", "AlluxioRuntime", "default", "imagenet"),
                                ("PATCH", "AlluxioRuntime", "default", "imagenet"), ("WATCH", "Dataset", "default", "100"),
                                ("GET", "AlluxioRuntime", "default", "imagenet")]
    assert cluster.objects[("AlluxioRuntime", "default", "imagenet")]["spec"]["replicas"] == 2
    assert (result["changed"], result["patched"], result["timed_out"]) == (True, ["imagenet"], False)
    assert result["runtimes"] == [{"name": "imagenet", "namespace": "default", "kind": "AlluxioRuntime", "replicas": 2,
                                   "previous_replicas": 1, "workers_ready": 2, "cache_capacity": "64.00MiB",
                                   "expected_cache_capacity": "64.00MiB"}]
    assert result["api_calls"] == 5


def test_the_same_replicas_patch_nothing_and_a_scaled_runtime_is_seen_at_once(monkeypatch):
    cluster = FakeCluster([dataset(capacity="64.00MiB"), runtime(replicas=2, ready=2)])
    result = run_module(fluid_runtime_workers, {"datasets": ["imagenet"], "replicas": 2}, cluster, monkeypatch).result
    # One list and one read: the runtime just read shows it there, so nothing waits.
    assert cluster.requests == [("GET", "Dataset", "default", None), ("GET", "AlluxioRuntime", "default", "imagenet")]
    assert (result["changed"], result["patched"], result["runtimes"][0]["previous_replicas"]) == (False, [], 2)


def test_without_replicas_it_only_waits(monkeypatch):
    cluster = FakeCluster([dataset(), runtime(replicas=2, ready=1)], on_watch=grow, events={"Dataset": [
        ("MODIFIED", {"name": "imagenet", "status": {"cacheStates": {"cacheCapacity": "64.00MiB"}}})]})
    result = run_module(fluid_runtime_workers, {"name": ["imagenet"]}, cluster, monkeypatch).result
    assert "PATCH" not in [request[0] for request in cluster.requests]
    assert (result["changed"], result["runtimes"][0]["workers_ready"], result["runtimes"][0]["replicas"]) == (False, 2, 2)


def test_check_mode_reports_the_patch_and_sends_none(monkeypatch):
    cluster = FakeCluster([dataset(), runtime(), dataset("coco"), runtime(name="coco", replicas=2, ready=2)])
    result = run_module(fluid_runtime_workers, {"name": ["imagenet", "coco"], "replicas": 2}, cluster, monkeypatch, check=True).result
    assert [request[0] for request in cluster.requests] == ["GET", "GET", "GET"]  # no PATCH, no WATCH
    assert cluster.objects[("AlluxioRuntime", "default", "imagenet")]["spec"]["replicas"] == 1
    assert (result["changed"], result["patched"], result["seconds"]) == (True, ["imagenet"], 0.0)
    assert [(r["name"], r["previous_replicas"], r["replicas"]) for r in result["runtimes"]] == [("imagenet", 1, 2), ("coco", 2, 2)]


def test_a_jindo_runtime_waits_on_its_workers_alone(monkeypatch):
    cluster = FakeCluster([dataset(capacity="648.00GiB", engine="jindo"), runtime(kind="JindoRuntime", replicas=3, ready=3)])
    result = run_module(fluid_runtime_workers, {"name": ["imagenet"], "replicas": 3}, cluster, monkeypatch).result
    assert result["runtimes"][0]["kind"] == "JindoRuntime" and result["runtimes"][0]["expected_cache_capacity"] is None
    assert not result["changed"] and not result["timed_out"]


@pytest.mark.parametrize("objects, message", [
    ([dataset()], "Dataset coco not found in namespace default (datasets there: imagenet)"),
    ([dataset(), runtime(), dataset("coco", engine="thin"), runtime(kind="ThinRuntime", name="coco")],
     "default/coco is a ThinRuntime, which runs no cache workers to scale"),
    ([dataset(), runtime(), dataset("coco", engine="")],
     "dataset default/coco has no runtime: no AlluxioRuntime or JindoRuntime named coco in default to scale"),
    ([dataset(), runtime(), dataset("coco", engine="juicefs"), runtime(kind="JuiceFSRuntime", name="coco")],
     "default/coco is a JuiceFSRuntime: this module scales the cache workers of AlluxioRuntime and JindoRuntime"),
])
def test_a_dataset_without_cache_workers_to_scale_fails_before_any_patch(objects, message, monkeypatch):
    cluster = FakeCluster(objects)
    outcome = run_module(fluid_runtime_workers, {"name": ["imagenet", "coco"], "replicas": 2}, cluster, monkeypatch)
    assert isinstance(outcome, Failed) and outcome.result["msg"] == message
    assert "PATCH" not in [request[0] for request in cluster.requests]


@pytest.mark.parametrize("args, message", [
    ({"name": ["imagenet"], "replicas": 0}, "replicas=0 must be 1 or more cache workers"),
    ({"name": [], "replicas": 2}, "name=[] names no dataset: give the datasets whose cache workers to scale"),
    ({"name": ["imagenet"], "wait_timeout": 0}, "wait_timeout=0 must be 1 or more seconds"),
])
def test_bad_input_is_refused_before_any_api_client(args, message, monkeypatch):
    def no_client(*args, **kwargs):
        raise AssertionError("no API client expected")

    monkeypatch.setattr(runner, "get_api_client", no_client)
    with patch_module_args(args), pytest.raises(Failed) as outcome:
        fluid_runtime_workers.main()
    assert outcome.value.result["msg"] == message


def timed_out(objects, args, monkeypatch):
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(Clock(step=10)))
    outcome = run_module(fluid_runtime_workers, dict(args, wait_timeout=25), FakeCluster(objects), monkeypatch)
    assert isinstance(outcome, Failed) and outcome.result["timed_out"]
    return outcome.result


def test_a_grow_that_times_out_names_the_missing_worker_and_capacity(monkeypatch):
    result = timed_out([dataset(), runtime(), dataset("coco", capacity="64.00MiB"), runtime(name="coco", replicas=2, ready=2),
                        pod("imagenet-worker-1", "Pending", False)], {"name": ["imagenet", "coco"], "replicas": 2}, monkeypatch)
    # coco is there already: only imagenet is named.
    assert result["msg"] == ("Timed out after 25s waiting for the cache workers: imagenet: 1 of 2 cache workers Ready, "
                             "cache capacity 32.00MiB, waiting for 64.00MiB; pods not ready: imagenet-worker-1 (Pending)")
    assert sorted(result["reasons"]) == ["imagenet"] and result["reasons"]["imagenet"]["pods_not_ready"] == ["imagenet-worker-1 (Pending)"]
    assert result["patched"] == ["imagenet"] and result["runtimes"][0]["workers_ready"] == 1


@pytest.mark.parametrize("properties, timeout", [(None, "5min by default"), ({"alluxio.master.worker.timeout": "1min"}, "1min on this runtime")])
def test_a_shrink_that_times_out_says_the_master_still_counts_the_stopped_worker(properties, timeout, monkeypatch):
    result = timed_out([dataset(capacity="64.00MiB"), runtime(replicas=2, ready=1, properties=properties)],
                       {"name": ["imagenet"], "replicas": 1}, monkeypatch)
    assert result["msg"] == ("Timed out after 25s waiting for the cache workers: imagenet: 1 of 1 cache workers Ready, cache capacity "
                             "64.00MiB, waiting for 32.00MiB (Alluxio's master keeps counting a stopped worker until "
                             "alluxio.master.worker.timeout (%s) has passed)" % timeout)


def test_a_timeout_without_failing_returns_the_state(monkeypatch):
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(Clock(step=10)))
    cluster = FakeCluster([dataset(), runtime()])
    result = run_module(fluid_runtime_workers, {"name": ["imagenet"], "replicas": 2, "wait_timeout": 25, "fail_on_timeout": False},
                        cluster, monkeypatch).result
    assert result["timed_out"] and result["changed"] and "msg" not in result
    # What the slice ends on is read again for the progress line.
    assert cluster.requests[-1] == ("GET", "AlluxioRuntime", "default", "imagenet")


def entry(name, ready, replicas, capacity=None, expected=None, previous=1):
    return {"name": name, "namespace": "default", "kind": "AlluxioRuntime" if expected else "JindoRuntime", "replicas": replicas,
            "previous_replicas": previous, "workers_ready": ready, "cache_capacity": capacity, "expected_cache_capacity": expected}


def test_the_action_prints_every_datasets_workers_and_keeps_the_first_slices_patch(printed):
    args = {"name": ["imagenet", "coco"], "replicas": 2}
    module = Module([
        dict(changed=True, patched=["imagenet"], timed_out=True, api_calls=6,
             runtimes=[entry("imagenet", 1, 2, "32.00MiB", "64.00MiB"), entry("coco", 2, 2, previous=2)]),
        dict(changed=False, patched=[], timed_out=True, api_calls=4,
             runtimes=[entry("imagenet", 2, 2, None, "64.00MiB", previous=2), entry("coco", 2, 2, previous=2)]),
        dict(changed=False, patched=[], timed_out=False, api_calls=3, waited=4,
             runtimes=[entry("imagenet", 2, 2, "64.00MiB", "64.00MiB", previous=2), entry("coco", 2, 2, previous=2)])])
    result = run_action(action.ActionModule, args, module)
    assert module.calls == [("fluidops.accel.fluid_runtime_workers", dict(args, wait_timeout=30, fail_on_timeout=False))] * 3
    assert printed == ["  Warm the cache: imagenet: 1/2 cache workers Ready, cache capacity 32.00MiB of 64.00MiB, coco: 2/2 cache workers Ready (30s)",
                       "  Warm the cache: imagenet: 2/2 cache workers Ready, cache capacity - of 64.00MiB, coco: 2/2 cache workers Ready (60s)"]
    assert (result["changed"], result["patched"], result["seconds"], result["api_calls"]) == (True, ["imagenet"], 64.0, 13)
    assert [(r["name"], r["previous_replicas"], r["replicas"]) for r in result["runtimes"]] == [("imagenet", 1, 2), ("coco", 2, 2)]


def test_a_sliced_run_of_the_module_patches_once(monkeypatch, printed):
    """The action drives the module itself against the fake cluster: the first slice patches and
    times out; Fluid and Alluxio then catch up; the second slice finds the replicas set."""
    clock = Clock(step=10)
    monkeypatch.setattr(k8s_client.KubeClient, "__init__", _client_with_clock(clock))
    monkeypatch.setattr(runner, "get_api_client", lambda *a, **k: cluster)
    cluster = FakeCluster([dataset(), runtime()])
    slices = []

    def execute(module_name=None, module_args=None, task_vars=None):
        if slices:  # between the slices: the new worker Ready and registered
            grow(cluster, None)
            cluster.objects[("Dataset", "default", "imagenet")]["status"]["cacheStates"]["cacheCapacity"] = "64.00MiB"
        slices.append(dict(module_args))
        with patch_module_args(copy.deepcopy(module_args)), pytest.raises(Exit) as outcome:
            fluid_runtime_workers.main()
        return dict(outcome.value.result, failed=True) if isinstance(outcome.value, Failed) else outcome.value.result

    execute.clock = clock
    result = run_action(action.ActionModule, {"name": ["imagenet"], "replicas": 2, "progress_interval": 30}, execute)
    assert [(args["wait_timeout"], args["fail_on_timeout"]) for args in slices] == [(30, False), (30, False)]
    runtime_read, datasets_listed = ("GET", "AlluxioRuntime", "default", "imagenet"), ("GET", "Dataset", "default", None)
    assert cluster.requests == [datasets_listed, runtime_read, ("PATCH", "AlluxioRuntime", "default", "imagenet"),
                                ("WATCH", "Dataset", "default", "100"), ("WATCH", "Dataset", "default", "100"), runtime_read,
                                # The second slice: the replicas already set, the runtime there, nothing waits.
                                datasets_listed, runtime_read]
    assert len(printed) == 1 and printed[0].startswith("  Warm the cache: imagenet: 1/2 cache workers Ready, cache capacity 32.00MiB of 64.00MiB (")
    assert not result.get("failed") and not result["timed_out"]
    assert (result["changed"], result["patched"], result["runtimes"][0]["previous_replicas"]) == (True, ["imagenet"], 1)
    assert result["runtimes"][0]["workers_ready"] == 2


@pytest.mark.parametrize("args, check_mode", [({"name": ["imagenet"], "replicas": 2, "wait": False}, False),
                                              ({"name": ["imagenet"], "replicas": 2}, True)])
def test_a_call_that_does_not_wait_runs_the_module_once(args, check_mode, printed):
    module = Module([dict(changed=True, patched=["imagenet"], api_calls=2)])
    assert run_action(action.ActionModule, args, module, check_mode=check_mode) == dict(changed=True, patched=["imagenet"], api_calls=2)
    assert module.calls == [(action.ActionModule.MODULE, args)] and printed == []


def test_the_action_refuses_bad_replicas_by_the_modules_spec(printed):
    module = Module([])
    result = run_action(action.ActionModule, {"name": ["imagenet"], "replicas": 0}, module)
    assert result["failed"] and result["msg"] == "replicas=0 must be 1 or more cache workers" and module.calls == []
