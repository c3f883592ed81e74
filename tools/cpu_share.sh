#!/usr/bin/env bash
# cpu_share.sh SHARES COMMAND...: COMMAND, and every process it starts, in a cpu cgroup of their
# own weighing SHARES (a session's weighs 1024): when the cores are busy they go first to the
# processes outside it, and it gets what they leave. nice cannot do this here: the kernel groups
# processes by session (sched_autogroup_enabled) and weighs each group alike, whatever its
# processes' nice, and ansible-runner, podman and ssh start sessions of their own. A cgroup holds
# every descendant, whatever its session. The group is the command's own (fluidops-<pid>, cgroup v1),
# removed when the command ends, whatever is still in it put back where this script came from.
# Without a writable cpu hierarchy (cgroup v2, a container), COMMAND runs with its session's weight.
set -euo pipefail
if ! { [ $# -ge 2 ] && [[ $1 =~ ^[0-9]+$ ]] && (($1 >= 2 && $1 <= 262144)); }; then
  echo "usage: $0 SHARES COMMAND... (SHARES: 2 to 262144; a session weighs 1024), not: $*" >&2
  exit 2
fi
shares=$1; shift
hierarchy=/sys/fs/cgroup/cpu
origin=$hierarchy$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ {print $3}' /proc/self/cgroup)
group=$hierarchy/fluidops-$$

leave() {
  local pid
  while read -r pid; do echo "$pid" > "$origin/cgroup.procs" 2>/dev/null || true; done < "$group/cgroup.procs"
  rmdir "$group" 2>/dev/null || echo "cpu_share.sh: could not remove $group" >&2
}

if [ -w "$origin/cgroup.procs" ] && mkdir "$group" 2>/dev/null; then
  trap leave EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  echo "$shares" > "$group/cpu.shares"
  echo $$ > "$group/cgroup.procs"
else
  echo "cpu_share.sh: no cpu cgroup can be made here: $1 runs with its session's weight" >&2
fi
"$@"
