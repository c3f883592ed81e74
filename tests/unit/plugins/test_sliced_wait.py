"""The sliced-wait action plugins (fluid_dataload, mpijob): which module calls they make, the
progress lines they print between slices, how they add up the slices' results, and what they
refuse before running the module. The module is a script of results; the clock moves only when
a slice waits, by the seconds it waited."""

from types import SimpleNamespace

import pytest

from ansible_collections.fluidops.accel.plugins.action import fluid_dataload, mpijob
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import timed_out_after
from ansible_collections.fluidops.accel.plugins.plugin_utils import sliced_wait

WARMUP = {"name": "imagenet-warmup", "dataset": "imagenet", "cached_percentage": 95, "kubeconfig": "/etc/kube/config"}
JOB = {"apiVersion": "kubeflow.org/v2beta1", "kind": "MPIJob", "metadata": {"name": "resnet50"}, "spec": {}}


class Module(object):
    """Plays the module: each call returns the next scripted result and moves the clock by the
    seconds the result says it waited, or by the whole slice when it timed out."""

    def __init__(self, results):
        self.results = list(results)
        self.calls = []
        self.now = 1000.0

    def clock(self):
        return self.now

    def __call__(self, module_name=None, module_args=None, task_vars=None):
        self.calls.append((module_name, dict(module_args)))
        result = dict(self.results.pop(0))
        self.now += result.pop("waited", module_args.get("wait_timeout") if result.get("timed_out") else 0)
        if result.get("failed") and result.get("timed_out"):  # as the modules word it
            result["msg"] = "%s: %s" % (timed_out_after(module_args["wait_timeout"]), result["msg"])
        if result.get("failed"):  # ansible-core's capture of the module's error, from its message
            result["exception"] = SimpleNamespace(event=SimpleNamespace(msg=result["msg"]))
        return result


@pytest.fixture
def printed(monkeypatch):
    lines = []
    monkeypatch.setattr(sliced_wait, "display", SimpleNamespace(display=lines.append))
    return lines


def run(action_class, args, module, check_mode=False):
    task = SimpleNamespace(args=dict(args), async_val=0, check_mode=check_mode, action=action_class.MODULE,
                           get_name=lambda: "Warm the cache")
    action = action_class(task, SimpleNamespace(_shell=SimpleNamespace(tmpdir="/tmp/remote")),
                          SimpleNamespace(check_mode=check_mode), loader=None, templar=None, shared_loader_obj=None)
    action._execute_module = module
    action.clock = module.clock
    return action.run(task_vars={})


def test_a_warmup_runs_in_slices_prints_its_progress_and_adds_up_the_slices(printed):
    module = Module([
        dict(changed=True, phase="Executing", cached_percentage=40.0, cached_bytes_before=100, bytes_loaded=400, timed_out=True, api_calls=6),
        dict(changed=False, phase="Complete", cached_percentage=80.0, cached_bytes_before=500, bytes_loaded=400, timed_out=True, api_calls=3,
             reconnects=1),
        dict(changed=False, phase="Complete", cached_percentage=100.0, cached_bytes_before=900, bytes_loaded=200, timed_out=False,
             api_calls=4, reconnects=2, waited=5)])
    result = run(fluid_dataload.ActionModule, dict(WARMUP, wait_timeout=100), module)
    # Three slices of progress_interval (30 s by the module's spec), none the last, so none fails on a timeout.
    assert module.calls == [("fluidops.accel.fluid_dataload", dict(WARMUP, wait_timeout=30, fail_on_timeout=False))] * 3
    assert printed == ["  Warm the cache: DataLoad imagenet-warmup Executing, dataset imagenet 40.0% cached (30s)",
                       "  Warm the cache: DataLoad imagenet-warmup Complete, dataset imagenet 80.0% cached, "
                       "waiting for Fluid to refresh the dataset's cache states (60s)"]
    # The first slice saw the cache before the load and created the DataLoad; the last one saw the end;
    # the requests and the watches followed again are the slices' sums.
    assert result == dict(changed=True, phase="Complete", cached_percentage=100.0, cached_bytes_before=100, bytes_loaded=1000,
                          bytes_per_second=round(1000 / 65.0, 1), timed_out=False, api_calls=13, reconnects=3, seconds=65.0)


def test_the_last_slice_gets_the_rest_and_fails_naming_the_whole_wait(printed):
    module = Module([dict(changed=True, phase="Executing", cached_percentage=10.0, timed_out=True, api_calls=6),
                     dict(changed=False, phase="Executing", cached_percentage=20.0, timed_out=True, api_calls=2),
                     dict(failed=True, phase="Executing", cached_percentage=25.0, timed_out=True, api_calls=3,
                          msg="DataLoad default/imagenet-warmup is Executing, dataset imagenet 25.0% cached")])
    result = run(fluid_dataload.ActionModule, dict(WARMUP, wait_timeout=70, progress_interval=30), module)
    assert [(args["wait_timeout"], args["fail_on_timeout"]) for _unused, args in module.calls] == [(30, False), (30, False), (10, True)]
    assert len(printed) == 2
    assert result["failed"] and result["timed_out"] and result["changed"]
    assert result["msg"] == "Timed out after 70s: DataLoad default/imagenet-warmup is Executing, dataset imagenet 25.0% cached"
    # No capture of the slice's message is left for ansible-core to show instead.
    assert "exception" not in result
    assert (result["seconds"], result["api_calls"]) == (70.0, 11)


def test_without_fail_on_timeout_the_state_after_the_whole_wait_is_returned(printed):
    module = Module([dict(changed=False, state="Running", timed_out=True, api_calls=4)] * 2)
    result = run(mpijob.ActionModule, {"definition": JOB, "wait_timeout": 50, "progress_interval": 30, "fail_on_timeout": False},
                 module)
    assert [(args["wait_timeout"], args["fail_on_timeout"]) for _unused, args in module.calls] == [(30, False), (20, False)]
    assert not result.get("failed") and result["timed_out"] and result["state"] == "Running"
    assert (result["seconds"], result["api_calls"]) == (50.0, 8)


def test_mpijob_progress_shows_the_state_and_the_last_step_read(printed):
    throughput = {"last_step": 300, "images_per_sec_at_last_step": 5291.2}
    module = Module([dict(changed=True, state="", timed_out=True, api_calls=5,
                          waiting=["resnet50-worker-1 ImagePullBackOff: Back-off pulling image \"training:1\""]),
                     dict(changed=False, state="Running", throughput=throughput, timed_out=True, api_calls=3, waiting=[]),
                     dict(changed=False, state="Succeeded", throughput=dict(throughput, last_step=1000), timed_out=False,
                          api_calls=4, waited=12)])
    result = run(mpijob.ActionModule, {"definition": JOB, "progress_interval": 60}, module)
    # No wait_timeout given: the module's default (14400 s) bounds the whole wait.
    assert [args["wait_timeout"] for _unused, args in module.calls] == [60, 60, 60]
    assert printed == ["  Warm the cache: MPIJob resnet50 pending; waiting: resnet50-worker-1 ImagePullBackOff: Back-off pulling "
                       "image \"training:1\" (60s)",
                       "  Warm the cache: MPIJob resnet50 Running, step 300 at 5291.2 images/sec (120s)"]
    assert result["changed"] and result["state"] == "Succeeded" and result["throughput"]["last_step"] == 1000
    assert (result["seconds"], result["api_calls"]) == (132.0, 12)


def test_the_default_wait_is_the_modules_own():
    module = Module([dict(changed=True, state="Running", timed_out=True, api_calls=5),
                     dict(changed=False, state="Running", timed_out=True, api_calls=3)])
    result = run(mpijob.ActionModule, {"definition": JOB, "progress_interval": 7200}, module)
    assert [(args["wait_timeout"], args["fail_on_timeout"]) for _unused, args in module.calls] == [(7200, False), (7200, True)]
    assert result["seconds"] == 14400.0


def test_a_failure_before_any_wait_is_returned_as_it_is(printed):
    refused = dict(failed=True, api_calls=2, msg="DataLoad default/imagenet-warmup exists with another spec (...)")
    module = Module([refused])
    result = run(fluid_dataload.ActionModule, WARMUP, module)
    # As the module returned it, ansible-core's capture of its message included.
    assert result["exception"].event.msg == refused["msg"]
    assert {key: value for key, value in result.items() if key != "exception"} == refused
    assert len(module.calls) == 1 and printed == []


def test_a_load_that_fails_in_a_later_slice_keeps_its_message_and_adds_up(printed):
    module = Module([dict(changed=True, phase="Executing", cached_percentage=5.0, timed_out=True, api_calls=6),
                     dict(failed=True, phase="Failed", cached_percentage=5.0, timed_out=False, api_calls=4, waited=3,
                          msg="DataLoad default/imagenet-warmup Failed: BackoffLimitExceeded: Job has reached the specified backoff limit")])
    result = run(fluid_dataload.ActionModule, WARMUP, module)
    assert result["failed"] and result["msg"].startswith("DataLoad default/imagenet-warmup Failed: BackoffLimitExceeded")
    assert (result["seconds"], result["api_calls"], result["changed"]) == (33.0, 10, True)


@pytest.mark.parametrize("action, args, check_mode", [
    (fluid_dataload.ActionModule, dict(WARMUP, wait=False), False),
    (fluid_dataload.ActionModule, dict(WARMUP, policy="Cron", schedule="0 2 * * *"), False),
    (fluid_dataload.ActionModule, dict(WARMUP, state="absent"), False),
    (fluid_dataload.ActionModule, WARMUP, True),
    (mpijob.ActionModule, {"definition": JOB, "state": "absent"}, False),
    (mpijob.ActionModule, {"definition": JOB}, True),
])
def test_a_call_that_does_not_wait_runs_the_module_once_with_the_tasks_args(action, args, check_mode, printed):
    module = Module([dict(changed=True, api_calls=1)])
    assert run(action, args, module, check_mode=check_mode) == dict(changed=True, api_calls=1)
    assert module.calls == [(action.MODULE, args)] and printed == []


@pytest.mark.parametrize("action, args, message", [
    (fluid_dataload.ActionModule, dict(WARMUP, progress_interval=0), "progress_interval=0 must be 1 or more seconds"),
    (fluid_dataload.ActionModule, dict(WARMUP, cached_percentage=101, cache_refresh_timeout=-1),
     "cached_percentage=101.0 must be between 0 and 100; cache_refresh_timeout=-1 must be 0 or more seconds"),
    (fluid_dataload.ActionModule, dict(WARMUP, policy="Cron"), "policy is Cron but all of the following are missing: schedule"),
    (fluid_dataload.ActionModule, {"dataset": "imagenet"}, "missing required arguments: name"),
    # What follows is ansible-core's own wording, which 2.16 and 2.19 word differently.
    (mpijob.ActionModule, {"definition": JOB, "wait_timeout": "soon"}, "argument 'wait_timeout' is of type "),
    (mpijob.ActionModule, {"definition": JOB, "wait_timout": 60}, "Unsupported parameters for (fluidops.accel.mpijob) module: wait_timout."),
])
def test_bad_args_fail_by_the_modules_spec_before_it_runs(action, args, message, printed):
    module = Module([])
    result = run(action, args, module)
    assert result["failed"] and result["msg"].startswith(message), result["msg"]
    assert module.calls == [] and printed == []
