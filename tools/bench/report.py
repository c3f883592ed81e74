"""What the benchmark commands (datapath.py, deploy.py) share in their reports: the machine, the
pinned versions, and their own section of docs/benchmarks.md, between their markers."""

import json
import os
import platform
import statistics

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def machine():
    memory = next(int(line.split()[1]) for line in open("/proc/meminfo", encoding="utf-8") if line.startswith("MemTotal"))
    return "%s, %d cores, %.0f GiB, kernel %s" % (platform.node(), os.cpu_count(), memory / 1024 / 1024, platform.release())


def pinned(name):
    for line in open(os.path.join(REPO, "tools", "localcluster", "versions.env"), encoding="utf-8"):
        if line.startswith(name + "="):
            return line.split(":-", 1)[1].split("}", 1)[0]
    raise KeyError(name)


def write_document(path, section, begin, end):
    """Puts ``section`` (which starts with ``begin`` and ends with ``end``) in place of the
    document's part between those markers, or at its end; the other sections stay."""
    text = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Benchmarks\n\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + section + rest.split(end, 1)[1].lstrip("\n")
    else:
        text = text.rstrip("\n") + "\n\n" + section
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def spread(values):
    """{median, min, max, runs} of a measure's runs."""
    values = sorted(values)
    return {"median": round(statistics.median(values), 2), "min": round(values[0], 2), "max": round(values[-1], 2), "runs": len(values)}


def publish(doc, name, report, chart, section, begin, end):
    """Writes benchmarks/<name>.json and benchmarks/<name>.png (``chart(report, path)``) beside
    ``doc``, and ``section`` into ``doc``; returns the JSON file's path."""
    out = os.path.join(os.path.dirname(doc), "benchmarks")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, name + ".json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(report, handle, indent=1, sort_keys=True)
        handle.write("\n")
    chart(report, os.path.join(out, name + ".png"))
    write_document(doc, section, begin, end)
    return path
