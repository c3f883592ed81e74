"""Preflight checks a task's arguments with the module's own spec, naming the variables."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.module_args import module_args_problems

WARMUP = {"name": "imagenet-warmup", "namespace": "default", "dataset": "imagenet", "cached_percentage": 95,
          "wait_timeout": 3600, "progress_interval": 30, "cache_refresh_timeout": 120}
NAMES = {"cached_percentage": "warmup_cached_percentage", "wait_timeout": "warmup_timeout",
         "progress_interval": "warmup_progress_interval", "targets": "datasets_list[].warmup.targets"}


def test_good_arguments_have_no_problem():
    assert module_args_problems(WARMUP, "fluid_dataload", NAMES) == []


@pytest.mark.parametrize("change, message", [
    ({"cached_percentage": 150}, "warmup_cached_percentage=150.0 must be between 0 and 100"),
    ({"wait_timeout": 0}, "warmup_timeout=0 must be 1 or more seconds"),
    ({"progress_interval": "often"}, "warmup_progress_interval"),
    ({"targets": "/train"}, "datasets_list[].warmup.targets"),
    ({"policy": "Cron"}, "policy is Cron but all of the following are missing: schedule"),
])
def test_what_the_module_would_refuse_is_named_by_its_variable(change, message):
    problems = module_args_problems(dict(WARMUP, **change), "fluid_dataload", NAMES)
    assert any(message in problem for problem in problems), problems


def test_the_cache_workers_to_scale_to_are_named_by_their_variable():
    assert module_args_problems({"name": ["imagenet"], "replicas": 3}, "fluid_runtime_workers") == []
    assert module_args_problems({"name": ["imagenet"], "replicas": 0}, "fluid_runtime_workers", {"replicas": "node_add_replicas"}) == [
        "node_add_replicas=0 must be 1 or more cache workers"]


def test_an_unknown_module_is_refused():
    with pytest.raises(AnsibleFilterError, match="benchmark_report is not one of"):
        module_args_problems({}, "benchmark_report")
