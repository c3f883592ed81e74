"""tools/run_events.py reads a run's job events: the fixtures are the real events ansible-runner
wrote for the playbooks beside them, made with tools/run.py at -v and the job_events files listed
in counter order:

  tools/run.py tests/unit/fixtures/runs/tiny.yml -v                  (tiny-events.json)
  tools/run.py tests/unit/fixtures/runs/unreachable.yml -i tests/unit/fixtures/runs/unreachable-hosts.yml -v
                                                                     (unreachable-events.json)"""

import json
import os
import random

import pytest

import run_events

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "fixtures", "runs")


def events(name):
    with open(os.path.join(FIXTURES, name + "-events.json"), encoding="utf-8") as handle:
        return json.load(handle)


# tiny.yml's one host: the recap's numbers, the time its eight task results took (their
# durations' sum), the run's wall time (first event to last).
TINY = {"localhost": {"ok": 5, "changed": 1, "failed": 1, "unreachable": 0, "skipped": 1, "ignored": 1, "rescued": 1, "seconds": 1.836}}
STOPPED = {"host": "localhost", "play": "Every outcome", "task": "Fails", "unreachable": False, "message": "the failure that stops the run"}


def test_the_summary_gives_the_recaps_counts_the_failure_that_counts_and_the_times():
    summary = run_events.summarize(events("tiny"))
    assert summary == {"hosts": TINY, "failures": [STOPPED], "plays": ["Every outcome"], "seconds": 2.848, "complete": True}


def test_the_summary_does_not_depend_on_the_order_events_are_read_in():
    shuffled = events("tiny")
    random.Random(4).shuffle(shuffled)
    assert run_events.summarize(shuffled) == run_events.summarize(events("tiny"))


def test_each_task_result_says_what_happened_on_which_host():
    found = [(result["host"], result["task"], result["status"]) for result in run_events.results(events("tiny"))]
    assert found == [("localhost", "Says hello", "ok"), ("localhost", "Reads the secret", "ok"), ("localhost", "Changes something", "changed"),
                     ("localhost", "Fails, ignored", "ignored"), ("localhost", "Is skipped", "skipped"),
                     ("localhost", "Fails, rescued", "failed"), ("localhost", "Rescues", "ok"), ("localhost", "Fails", "failed")]


def test_a_no_log_result_is_censored_in_the_events():
    secret = [result for result in run_events.results(events("tiny")) if result["task"] == "Reads the secret"][0]
    assert list(secret["res"]) == ["censored"]
    assert "no_log" in run_events.message(secret["res"])


def test_plays_that_started_and_changes_per_host():
    # The second play of tiny.yml never starts: its one host failed in the first.
    assert run_events.plays(events("tiny")) == ["Every outcome"]
    assert run_events.changed_per_host(events("tiny")) == {"localhost": 1}


def test_a_run_stopped_before_its_recap_is_counted_from_its_results():
    stopped = [event for event in events("tiny") if event["event"] != "playbook_on_stats"]
    summary = run_events.summarize(stopped)
    assert summary["complete"] is False
    # Without the recap a rescued failure cannot be told apart: it counts, and is listed, as failed.
    assert summary["hosts"]["localhost"] == dict(TINY["localhost"], failed=2, rescued=0)
    assert [failure["task"] for failure in summary["failures"]] == ["Fails, rescued", "Fails"]
    assert run_events.format_summary(summary).splitlines()[:2] == [
        "Run summary (from the job events), 2.8 s to its last event",
        "  The run ended before its recap: the counts are the task results seen so far."]


def test_an_unreachable_host_is_listed_with_connections_message():
    summary = run_events.summarize(events("unreachable"))
    # The recap's numbers of every host, those it has none of included (the stats event leaves them out).
    assert run_events.changed_per_host(events("unreachable")) == {"fluidops-gone-host": 0, "localhost": 0}
    assert summary["hosts"]["fluidops-gone-host"]["unreachable"] == 1 and summary["hosts"]["localhost"]["ok"] == 1
    [failure] = summary["failures"]
    assert (failure["host"], failure["task"], failure["unreachable"]) == ("fluidops-gone-host", "Pings", True)
    assert "Failed to create temporary directory" in failure["message"]


@pytest.mark.parametrize("res, said", [
    ({"msg": "plain"}, "plain"),
    ({"msg": "One or more items failed", "results": [{"failed": True, "msg": "first"}]}, "One or more items failed"),
    ({"results": [{"failed": False, "msg": "fine"}, {"failed": True, "msg": "bad"}, {"failed": True, "stderr": "worse"}]}, "bad; worse"),
    ({"stderr": "Error: no such file", "rc": 1}, "Error: no such file"),
    ({"rc": 3}, "rc=3"),
    ({"msg": ["a", "list"]}, '["a", "list"]'),
])
def test_the_message_of_a_failed_result(res, said):
    assert run_events.message(res) == said


def test_the_printed_summary():
    text = run_events.format_summary(run_events.summarize(events("tiny")), "failed", 2, "/runs/x/artifacts/x")
    assert text.splitlines() == [
        "Run summary (from the job events): failed, rc 2, 2.8 s",
        "  host       ok changed failed unreachable skipped ignored rescued  task time",
        "  localhost   5       1      1           0       1       1       1      1.8 s",
        "  FAILED localhost, play Every outcome, task Fails: the failure that stops the run",
        "  Artifacts: /runs/x/artifacts/x"]


def test_a_long_message_is_cut_in_print_only():
    summary = run_events.summarize(events("tiny"))
    summary["failures"][0]["message"] = "word " * 100
    printed = run_events.format_summary(summary).splitlines()[-1]
    assert printed.endswith(" ...") and len(printed) < 400
