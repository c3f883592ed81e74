"""tools/checks/low_priority.sh: the command, and what it starts in sessions of its own (as
ansible-runner and podman do), run at nice 19 in a cpu cgroup of the least weight, which goes
when the command ends; its exit status is the command's. Where the cpu hierarchy cannot be
written, it says so and runs the command at nice 19."""

import os
import subprocess

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "tools", "checks", "low_priority.sh")
CPU = "/sys/fs/cgroup/cpu"
# What the command reports: its cpu cgroup, that group's weight and its nice, then the cgroup of a
# process in a new session.
REPORT = ("g=$(grep -E '^[0-9]+:([^:]*,)?cpu(,[^:]*)?:' /proc/self/cgroup | cut -d: -f3); echo $g; "
          "cat /sys/fs/cgroup/cpu$g/cpu.shares 2>/dev/null || echo none; ps -o ni= -p $$; "
          "setsid sh -c 'grep -E \"^[0-9]+:([^:]*,)?cpu(,[^:]*)?:\" /proc/self/cgroup | cut -d: -f3'; exit 3")


def test_the_command_and_its_sessions_run_in_a_group_of_the_least_weight_that_goes_after():
    done = subprocess.run([SCRIPT, "sh", "-c", REPORT], capture_output=True, text=True, check=False)
    assert done.returncode == 3, done.stderr
    group, shares, nice, session_group = done.stdout.split()
    assert nice == "19"
    if os.access(os.path.join(CPU, "cgroup.procs"), os.W_OK):
        assert os.path.basename(group).startswith("fluidops-low-") and shares == "2", done.stdout
        assert session_group == group  # a new session stays in it
        assert not os.path.exists(CPU + group)  # removed at the end
    else:
        assert "nice 19 only" in done.stderr, done.stderr
