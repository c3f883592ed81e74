"""What the data-path bench reads of a FUSE JVM (tools/bench/fuse_probe.py): /proc's stat lines
with any thread name, CPU by thread group with ended threads kept, Alluxio's metrics by read path,
and jcmd's list of what C2 compiled."""

import subprocess

from bench import fuse_probe

TICK = fuse_probe.TICK


def stat(pid, comm, user, system):
    """A /proc/PID/stat line as the kernel writes it: utime and stime are its 14th and 15th fields."""
    return "%s (%s) S 1 1 1 0 -1 4194560 100 0 0 0 %d %d 0 0 20 0 40 0 1000 10000 500" % (pid, comm, user, system)


def host(lines):
    def exec_in_host(*_command, check=True):  # pylint: disable=unused-argument
        return subprocess.CompletedProcess([], 0, stdout="\n".join(lines) + "\n", stderr="")
    return exec_in_host


def test_thread_names_with_spaces_and_parentheses_are_read_whole():
    snapshot = fuse_probe.cpu(host([stat(7, "java", 500, 100), "7 " + stat(7, "java", 10, 5), "8 " + stat(8, "C2 CompilerThre", 200, 0),
                                    "9 " + stat(9, "odd) name (x", 3, 4)]), 7)
    assert snapshot == {"total": 600, "threads": {"7": ("java", 15), "8": ("C2 CompilerThre", 200), "9": ("odd) name (x", 7)}}


def test_cpu_is_split_by_thread_group_and_an_ended_thread_counts_in_other():
    before = {"total": 100 * TICK, "threads": {"1": ("java", 10 * TICK), "2": ("C2 CompilerThre", 50 * TICK), "3": ("grpc-default-wo", 0),
                                               "4": ("GC Thread#0", 0)}}
    # Thread 5 is new; a thread that ran 1 s and ended is only in the process's total.
    after = {"total": 110 * TICK, "threads": {"1": ("java", 14 * TICK), "2": ("C2 CompilerThre", 51 * TICK),
                                              "3": ("grpc-default-wo", 2 * TICK), "4": ("GC Thread#0", TICK // 2),
                                              "5": ("java", TICK)}}
    spent = fuse_probe.cpu_spent(before, after)
    assert spent == {"FUSE": 5.0, "JIT": 1.0, "gRPC": 2.0, "GC": 0.5, "other": 1.5, "total": 10.0}


def metrics(counters=None, timers=None):
    return {"counters": counters or {}, "timers": timers or {}}


def test_reads_are_split_into_short_circuit_and_grpc_bytes_and_fuse_operations():
    fuse_before = metrics({"Client.BytesReadLocal.host": 100}, {"Client.Fuse.Read.host": 10, "Fuse.Getattr": 5, "Client.Fuse.TotalCalls.host": 15})
    fuse_after = metrics({"Client.BytesReadLocal.host": 1100, "Client.BytesReadLocalThroughput.host": 7},
                         {"Client.Fuse.Read.host": 30, "Fuse.Getattr": 45, "Client.Fuse.Open.host": 20, "Client.Fuse.TotalCalls.host": 95,
                          "Client.Fuse.Release.host": 0})
    worker_before = metrics({"Worker.BytesReadRemote.w": 0, "Worker.BytesReadDomain.w": 5})
    worker_after = metrics({"Worker.BytesReadRemote.w": 300, "Worker.BytesReadDomain.w": 5, "Worker.BytesReadDirect.w": 99})
    found = fuse_probe.reads_between(fuse_before, fuse_after, worker_before, worker_after)
    assert found == {"local_bytes": 1000, "grpc_bytes": 300, "fuse_ops": {"Read": 20, "Getattr": 40, "Open": 20}}
    assert fuse_probe.reads_between(None, fuse_after, worker_before, None) == {}


def test_c2_methods_are_alluxio_s_at_level_four():
    listing = ["1 4 0 alluxio.fuse.AlluxioJniFuseFileSystem.read(Ljava/lang/String;)I [0x1, 0x2 - 0x3]",
               "2 3 0 alluxio.client.file.FileInStream.read([BII)I [0x1, 0x2 - 0x3]",
               "3 4 0 java.lang.String.hashCode()I [0x1, 0x2 - 0x3]",
               "4 4 0 alluxio.jnifuse.FuseFillDir.apply(JJ)I [0x1, 0x2 - 0x3]"]
    assert fuse_probe.c2_methods(host(listing), 7) == 2
