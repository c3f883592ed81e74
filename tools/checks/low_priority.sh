#!/usr/bin/env bash
# Runs a command, and everything it starts, on the CPU time the rest of the machine leaves: in a
# cpu cgroup of its own with the least weight (cgroup v1's cpu.shares 2), and at nice 19.
#   low_priority.sh COMMAND [ARG...]
# nice alone is not enough where the kernel groups processes by session (sched_autogroup_enabled):
# nice then orders processes only within a session, and ansible-runner (pexpect) and podman start
# a session per run, so niced suites beside the real nodes' took half the cores and slowed its
# playbook runs 2.3 times. A cgroup holds the sessions too. Where the cpu hierarchy cannot be
# written (cgroup v2, no root), nice is all there is, and the command still runs.
# The group goes when the command ends: what is left in it (a process the command left behind)
# goes back to the group this script started in.
set -euo pipefail
cpu=/sys/fs/cgroup/cpu
# The group this script starts in; the new one goes beside its other members.
home=$cpu$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' /proc/self/cgroup 2>/dev/null || true)
# Groups of earlier runs that were killed: empty ones go (rmdir refuses a group with processes).
for stale in "$home"/fluidops-low-*; do
  if [ -d "$stale" ]; then rmdir "$stale" 2>/dev/null || true; fi
done
group=$home/fluidops-low-$$
# shellcheck disable=SC2317  # run by the trap below
leave() {
  local pid
  echo $$ > "$home/cgroup.procs"
  while read -r pid; do echo "$pid" > "$home/cgroup.procs" 2>/dev/null || true; done < "$group/cgroup.procs"
  rmdir "$group" 2>/dev/null || echo "low_priority.sh: could not remove $group" >&2
}
# Another run's clean-up of stale groups may take this one between mkdir and the move into it:
# then this run goes on at nice 19 only.
if [ -w "$home/cgroup.procs" ] && [ -f "$cpu/cpu.shares" ] && mkdir "$group" 2>/dev/null \
    && echo 2 2>/dev/null > "$group/cpu.shares" && echo $$ 2>/dev/null > "$group/cgroup.procs"; then
  trap leave EXIT
else
  echo "low_priority.sh: no cpu cgroup to join here ($cpu): nice 19 only" >&2
fi
status=0
nice -n 19 "$@" || status=$?
exit "$status"
