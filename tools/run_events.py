"""A playbook run's job events read back: what each host did, which task failed where and why, how
long it took. The events are ansible-runner's (one dict an event, as job_events/*.json holds them);
the functions are pure, so tools/run.py prints its summary from them and the tests assert on them
instead of matching the PLAY RECAP's text."""

import datetime
import json

# The events that end a task on a host (ansible-runner's runner_item_on_* are the loop items of these).
HOST_EVENTS = {"runner_on_ok": "ok", "runner_on_failed": "failed", "runner_on_skipped": "skipped",
               "runner_on_unreachable": "unreachable"}
# What the summary counts per host, as the PLAY RECAP does, and the playbook_on_stats key of each.
COUNTS = {"ok": "ok", "changed": "changed", "failed": "failures", "unreachable": "dark", "skipped": "skipped",
          "ignored": "ignored", "rescued": "rescued"}
# A message longer than this is cut in the printed summary (summary.json keeps it whole).
PRINTED_MESSAGE = 300


def ordered(events):
    """The events in the order ansible emitted them (a directory listing of job_events is not)."""
    return sorted(events, key=lambda event: event.get("counter", 0))


def stats(events):
    """The playbook_on_stats event's data, or None when the run ended before its recap."""
    found = [event["event_data"] for event in events if event.get("event") == "playbook_on_stats"]
    return found[-1] if found else None


def plays(events):
    """The names of the plays that started, in order (as the "PLAY [...]" lines name them)."""
    return [event["event_data"]["name"] for event in ordered(events) if event.get("event") == "playbook_on_play_start"]


def results(events):
    """One entry a task's end on a host, in order: host, play, task, status (ok, changed, failed,
    ignored (a failure under ignore_errors), skipped or unreachable), res (the module's result,
    censored by ansible-runner where the task has no_log) and duration in seconds."""
    found = []
    for event in ordered(events):
        status = HOST_EVENTS.get(event.get("event"))
        if status is None:
            continue
        data = event["event_data"]
        res = data.get("res") or {}
        if status == "ok" and res.get("changed"):
            status = "changed"
        elif status == "failed" and data.get("ignore_errors"):
            status = "ignored"
        found.append({"host": data.get("host"), "play": data.get("play"), "task": data.get("task"), "status": status,
                      "res": res, "duration": data.get("duration") or 0.0})
    return found


def counts(events):
    """{host: {ok, changed, failed, unreachable, skipped, ignored, rescued}}: the PLAY RECAP's
    numbers, from playbook_on_stats. A run that ended before it (killed) is counted from the
    task results so far, as the recap would have (a failure later rescued counts as failed there)."""
    recap = stats(events)
    if recap is not None:
        # Each count lists only the hosts it is not 0 for; processed lists them all.
        hosts = sorted({host for key in ("processed", *COUNTS.values()) for host in recap.get(key) or {}})
        return {host: {name: (recap.get(key) or {}).get(host, 0) for name, key in COUNTS.items()} for host in hosts}
    found = {}
    for result in results(events):
        host = found.setdefault(result["host"], dict.fromkeys(COUNTS, 0))
        status = result["status"]
        # The recap counts a change and an ignored failure as ok too.
        host[status] += 1
        if status in ("changed", "ignored"):
            host["ok"] += 1
    return found


def changed_per_host(events):
    """{host: changed count}, as the PLAY RECAP's changed= says."""
    return {host: numbers["changed"] for host, numbers in counts(events).items()}


def message(res):
    """What a failed or unreachable result says: its msg, else the failed loop items' messages,
    else its stderr, else its return code."""
    if "censored" in res:
        return res["censored"]
    text = res.get("msg")
    if not text and res.get("results"):
        text = "; ".join(str(item.get("msg") or item.get("stderr") or item.get("item"))
                         for item in res["results"] if isinstance(item, dict) and item.get("failed"))
    if not text:
        text = res.get("stderr") or ("rc=%s" % res["rc"] if "rc" in res else "")
    return text if isinstance(text, str) else json.dumps(text)


def failures(events):
    """Each failed or unreachable task that counts in the recap: host, play, task, unreachable,
    message. A failure ignore_errors ignored is not one; neither is a failure a block rescued: of a
    host's failures the recap counts the last (after an unrescued failure a host runs no more)."""
    found = [result for result in results(events) if result["status"] in ("failed", "unreachable")]
    recap = stats(events)
    if recap is not None:
        kept = []
        for host, status in {(result["host"], result["status"]) for result in found}:
            counted = (recap.get(COUNTS[status]) or {}).get(host, 0)
            theirs = [index for index, result in enumerate(found) if (result["host"], result["status"]) == (host, status)]
            kept += theirs[len(theirs) - counted:] if counted else []
        found = [found[index] for index in sorted(kept)]
    return [{"host": result["host"], "play": result["play"], "task": result["task"], "unreachable": result["status"] == "unreachable",
             "message": message(result["res"])} for result in found]


def _time(event):
    return datetime.datetime.fromisoformat(event["created"])


def summarize(events):
    """The run's summary: per host the recap's counts and the time its tasks took (seconds), the
    failed and unreachable tasks with their messages, the plays started, the wall time from the
    first event to the last, and whether the run got to its recap (complete)."""
    events = ordered(events)
    hosts = counts(events)
    for result in results(events):
        host = hosts.setdefault(result["host"], dict.fromkeys(COUNTS, 0))
        host["seconds"] = round(host.get("seconds", 0.0) + result["duration"], 3)
    for host in hosts.values():
        host.setdefault("seconds", 0.0)
    timed = [event for event in events if event.get("created")]
    seconds = (_time(timed[-1]) - _time(timed[0])).total_seconds() if timed else 0.0
    return {"hosts": hosts, "failures": failures(events), "plays": plays(events), "seconds": round(seconds, 3),
            "complete": stats(events) is not None}


def _short(text):
    text = " ".join(text.split())
    return text if len(text) <= PRINTED_MESSAGE else text[:PRINTED_MESSAGE] + " ..."


def format_summary(summary, status=None, rc=None, artifacts=None):
    """The summary as lines of text for the end of a run (status, rc and artifacts are the
    runner's, when known)."""
    head = "Run summary (from the job events)"
    if status is not None:
        head += ": %s, rc %s" % (status, rc)
    if summary["complete"]:
        lines = [head + ", %.1f s" % summary["seconds"]]
    else:  # killed or cancelled: its last event is not its end
        lines = [head + ", %.1f s to its last event" % summary["seconds"],
                 "  The run ended before its recap: the counts are the task results seen so far."]
    names = list(COUNTS)
    width = max([len("host")] + [len(host) for host in summary["hosts"]])
    lines.append("  %s  %s  %9s" % ("host".ljust(width), " ".join(names), "task time"))
    for host, numbers in sorted(summary["hosts"].items()):
        lines.append("  %s  %s  %7.1f s" % (host.ljust(width), " ".join(str(numbers[n]).rjust(len(n)) for n in names), numbers["seconds"]))
    for failure in summary["failures"]:
        what = "UNREACHABLE" if failure["unreachable"] else "FAILED"
        lines.append("  %s %s, play %s, task %s: %s" % (what, failure["host"], failure["play"], failure["task"], _short(failure["message"])))
    if artifacts:
        lines.append("  Artifacts: %s" % artifacts)
    return "\n".join(lines)
