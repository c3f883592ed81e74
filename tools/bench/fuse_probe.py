"""What the data-path bench reads of a running FUSE JVM (tools/alluxio/alluxio.sh's) around
each epoch: its CPU time per thread group, Alluxio's own metrics, and what HotSpot's C2 compiler
has compiled. ``exec_in_host(*command)`` runs a command in the bench's host and returns its
CompletedProcess."""

import json
import os
import urllib.request

# HotSpot gives its own threads these names (15 characters at most, as the kernel keeps them);
# libfuse's threads are started by the thread that mounted, the JVM's main one, and keep its name.
THREAD_GROUPS = (
    ("JIT", ("C1 CompilerThre", "C2 CompilerThre")),
    ("GC", ("GC Thread", "G1 ", "VM Thread", "VM Periodic")),
    ("gRPC", ("grpc-", "netty", "epoll", "nioEventLoop", "alluxio-client-")),
    ("FUSE", ("java",)),
)
GROUPS = tuple(name for name, _prefixes in THREAD_GROUPS) + ("other",)
JCMD = "/usr/lib/jvm/java-17-openjdk-amd64/bin/jcmd"  # the JDK alluxio.sh mounts in the host
FUSE_WEB_PORT = 49999  # alluxio.fuse.web.port's default (Alluxio 2.9.3 PropertyKey)
TICK = os.sysconf("SC_CLK_TCK")


def thread_group(comm):
    return next((name for name, prefixes in THREAD_GROUPS if comm.startswith(prefixes)), "other")


def _stat(line):
    """(comm, user+system ticks) of a /proc/.../stat line; comm may hold spaces and parentheses."""
    comm = line[line.index("(") + 1:line.rindex(")")]
    fields = line[line.rindex(")") + 2:].split()
    return comm, int(fields[11]) + int(fields[12])


def cpu(exec_in_host, pid):
    """{"total": ticks of the process (its ended threads included), "threads": {tid: (comm, ticks)}}."""
    out = exec_in_host("sh", "-c", "cat /proc/%s/stat; for task in /proc/%s/task/*; do "
                       "echo \"${task##*/} $(cat $task/stat 2>/dev/null)\"; done" % (pid, pid)).stdout.splitlines()
    _comm, total = _stat(out[0])
    threads = {}
    for line in out[1:]:
        tid, _space, rest = line.partition(" ")
        if rest.strip():
            threads[tid] = _stat(rest)
    return {"total": total, "threads": threads}


def cpu_spent(before, after):
    """{"total": CPU seconds, group: seconds, ...}: each thread's time between the snapshots; a
    thread that ended in between counts in "other" (the process total keeps its time)."""
    spent = dict.fromkeys(GROUPS, 0.0)
    for tid, (comm, ticks) in after["threads"].items():
        spent[thread_group(comm)] += (ticks - before["threads"].get(tid, (comm, 0))[1]) / TICK
    spent["total"] = (after["total"] - before["total"]) / TICK
    spent["other"] += spent["total"] - sum(spent[group] for group in GROUPS)
    return {key: round(value, 3) for key, value in spent.items()}


def metrics(address, port):
    """{"counters": {name: count}, "timers": {name: count}} of an Alluxio process's web server
    (/metrics/json/, Alluxio's MetricsServlet), or None when it does not answer."""
    try:
        with urllib.request.urlopen("http://%s:%d/metrics/json/" % (address, port), timeout=10) as response:
            data = json.load(response)
    except (OSError, ValueError):
        return None
    return {"counters": {name: value.get("count", 0) for name, value in (data.get("counters") or {}).items()},
            "timers": {name: value.get("count", 0) for name, value in (data.get("timers") or {}).items()}}


def _sum(snapshot, kind, prefix):
    return sum(count for name, count in snapshot[kind].items() if name.startswith(prefix + "."))


def reads_between(fuse_before, fuse_after, worker_before, worker_after):
    """What the client read, by path: short-circuit bytes (Client.BytesReadLocal, counted by the FUSE
    client's LocalFileDataReader), bytes the worker streamed over gRPC (Worker.BytesReadRemote and
    .BytesReadDomain) and the FUSE operations by kind (the Fuse.<Op> timers). None where a server
    did not answer."""
    found = {}
    if fuse_before and fuse_after:
        found["local_bytes"] = _sum(fuse_after, "counters", "Client.BytesReadLocal") - _sum(fuse_before, "counters", "Client.BytesReadLocal")
        ops = {}
        for name, count in fuse_after["timers"].items():
            parts = name.split(".")
            if "Fuse" in parts[:-1] and parts.index("Fuse") + 1 < len(parts):
                operation = parts[parts.index("Fuse") + 1]
                ops[operation] = ops.get(operation, 0) + count - fuse_before["timers"].get(name, 0)
        found["fuse_ops"] = {op: count for op, count in ops.items() if count and op != "TotalCalls"}
    if worker_before and worker_after:
        found["grpc_bytes"] = sum(_sum(worker_after, "counters", key) - _sum(worker_before, "counters", key)
                                  for key in ("Worker.BytesReadRemote", "Worker.BytesReadDomain"))
    return found


def c2_methods(exec_in_host, pid):
    """How many of Alluxio's methods (alluxio.*, the jnifuse bindings included) C2 has compiled:
    jcmd's Compiler.codelist lines are "<id> <level> <state> <method> [...]", level 4 being C2."""
    done = exec_in_host(JCMD, str(pid), "Compiler.codelist", check=False)
    if done.returncode:
        return None
    count = 0
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) > 3 and fields[1] == "4" and fields[3].startswith("alluxio."):
            count += 1
    return count
