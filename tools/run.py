#!/usr/bin/env python
"""Runs playbooks of this repository through ansible-runner, as AWX / Automation Controller runs a
project: this repository as the project, an inventory, extra vars, the vault password from a file
or a prompt. Each run keeps its artifacts (job events, stdout, status, rc, the command) in a
directory of its own, <runs>/<UTC time>-<playbook>, outside git; at the end a summary computed
from the job events is printed and written beside them as summary.json, and the exit code is
ansible-playbook's. Ctrl-C cancels the run as AWX cancels a job: ansible-runner kills
ansible-playbook (status canceled, exit code 254); a module already running on a host goes on to
its end (ansible's workers run in sessions of their own).

  tools/run.py site.yml -i inventory/v100-cluster -e @more.yml --vault-password-file ~/.vault-pass
  make run PLAYBOOK=site.yml INVENTORY=inventory/v100-cluster VAULT_PASSWORD_FILE=~/.vault-pass

The runs directory is $FLUIDOPS_RUNS_DIR, default ~/.local/state/fluidops/runs.

What a run's directory holds: stdout (what the terminal showed), job_events (each task's whole
result, as -vvv prints it, where no_log results are censored), status, rc, summary.json, and
command: ansible-playbook's arguments, extra vars given inline included, and the names of the
environment's variables (values only of those in RECORDED_ENV). Not in it: a vault password
(from a file: the file's path only; from the prompt: kept in memory, answered through
ansible-runner's passwords), the contents of a vars file given with -e @file, the environment's
other values. So a secret never goes inline (-e key=value): put it in a vault-encrypted file.
"""

import argparse
import configparser
import datetime
import getpass
import json
import os
import re
import shlex
import subprocess
import sys
import types

import ansible_runner
import ansible_runner.runner
import pexpect

import run_events

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# A playbook of an installed collection, by its name (ansible-playbook resolves it, not a path).
COLLECTION_PLAYBOOK = re.compile(r"[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*\.[a-z_][a-z0-9_]*")
# ansible-playbook's prompt for --ask-vault-password, as ansible-runner's passwords match it (AWX's pattern).
VAULT_PROMPT = r"Vault password:\s*?$"
# The environment variables whose values a run's command artifact keeps: where the settings come
# from and what ansible-runner sets. Others (a cloud key, K8S_AUTH_API_KEY) are kept by name only.
RECORDED_ENV = {"ANSIBLE_CONFIG", "ANSIBLE_STDOUT_CALLBACK", "ORIGINAL_STDOUT_CALLBACK", "ANSIBLE_CALLBACK_PLUGINS",
                "ANSIBLE_HOST_KEY_CHECKING", "ANSIBLE_RETRY_FILES_ENABLED", "ANSIBLE_NOCOLOR", "ANSIBLE_FORCE_COLOR",
                "AWX_ISOLATED_DATA_DIR", "RUNNER_OMIT_EVENTS", "RUNNER_ONLY_FAILED_EVENTS", "PATH"}


def _session_keeps_nice():
    """In ansible-playbook's process, before it starts: pexpect's pty made it a session of its own,
    which a kernel with autogroups (sched(7)) schedules as one group of nice 0, whatever the nice of
    its processes. The group takes theirs, so that a niced run (make test's beside the real nodes')
    gives way to the others as nice says."""
    niceness = os.getpriority(os.PRIO_PROCESS, 0)
    if niceness:
        try:
            with open("/proc/self/autogroup", "w", encoding="ascii") as handle:
                handle.write(str(niceness))
        except OSError:
            pass  # a kernel without autogroups, where nice works as it is


class _SpawnReadToItsEnd(pexpect.spawn):
    """ansible-runner's pexpect.spawn, whose last read of an ended ansible-playbook goes on while
    output still comes. ansible-runner 2.4.3 gives that read 5 s in all (runner.py, after its read
    loop; ansible/ansible-runner#1343, open): a run starved of CPU (a build beside it, nice) lost
    the events still in the pty and ended with rc None, though ansible-playbook had exited 0.
    ansible-playbook's session keeps its nice (_session_keeps_nice)."""

    bytes_read = 0

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("preexec_fn", _session_keeps_nice)
        super().__init__(*args, **kwargs)

    def read_nonblocking(self, size=1, timeout=-1):
        data = super().read_nonblocking(size, timeout)
        self.bytes_read += len(data)
        return data

    def expect(self, pattern, timeout=-1, searchwindowsize=-1, **kwargs):
        if pattern is not pexpect.EOF or self.isalive():
            return super().expect(pattern, timeout, searchwindowsize, **kwargs)
        while True:
            before = self.bytes_read
            try:
                return super().expect(pattern, timeout, searchwindowsize, **kwargs)
            except pexpect.TIMEOUT:
                if self.bytes_read == before:  # silent for the whole timeout: something else holds the pty
                    raise


# ansible-runner reaches pexpect through its module's name: it alone gets the spawn above.
ansible_runner.runner.pexpect = types.SimpleNamespace(**dict(vars(pexpect), spawn=_SpawnReadToItsEnd))


def runs_dir():
    return os.environ.get("FLUIDOPS_RUNS_DIR") or os.path.join(os.path.expanduser("~"), ".local", "state", "fluidops", "runs")


def tracked_by_git(path):
    """Whether path is inside this repository and not ignored by git: a run's directory holds
    secrets' surroundings (results, the command), which a commit must not take along."""
    inside = os.path.commonpath([os.path.realpath(path), os.path.realpath(REPO)]) == os.path.realpath(REPO)
    # check-ignore: 0 ignored, 1 not ignored, 128 no git checkout here (an unpacked bundle).
    return inside and subprocess.run(["git", "-C", REPO, "check-ignore", "-q", path], check=False).returncode == 1


def new_run_dir(playbooks, runs=None):
    """A new directory for one run: <runs>/<UTC time>-<first playbook's name>, private (0700)."""
    runs = os.path.abspath(runs or runs_dir())
    if tracked_by_git(runs):
        sys.exit("FLUIDOPS_RUNS_DIR=%s is inside the git tree and not ignored: a run's artifacts stay out of git" % runs)
    os.makedirs(runs, exist_ok=True)
    name = "%s-%s" % (datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ"),
                      os.path.splitext(os.path.basename(playbooks[0]))[0])
    for attempt in range(1, 100):
        path = os.path.join(runs, name if attempt == 1 else "%s-%d" % (name, attempt))
        try:
            os.mkdir(path, 0o700)
            return path
        except FileExistsError:
            continue
    sys.exit("no free run directory for %s in %s" % (name, runs))


def _config_value(config_file, key, default):
    parser = configparser.ConfigParser(interpolation=None, allow_no_value=True, strict=False)
    parser.read(config_file, encoding="utf-8")
    return parser.get("defaults", key, fallback=default)


def _envvars(envvars):
    config_file = os.environ.get("ANSIBLE_CONFIG") or os.path.join(REPO, "ansible.cfg")
    settings = {"ANSIBLE_CONFIG": config_file}
    # ansible-runner turns host key checking off when the environment does not set it (AWX's
    # choice); a run from here checks host keys as ansible-playbook would, by its configuration.
    if "ANSIBLE_HOST_KEY_CHECKING" not in os.environ:
        settings["ANSIBLE_HOST_KEY_CHECKING"] = _config_value(config_file, "host_key_checking", "True")
    settings.update(envvars or {})
    return settings


def _private(path, flags):
    """open()'s opener for a file only its owner reads, as ansible-runner writes its artifacts."""
    return os.open(path, flags, 0o600)


def _record_env_by_name(status, runner_config):
    """Rewrites the command artifact without the environment's values (RECORDED_ENV's aside).
    ansible-runner writes it whole just before 'running', and starts ansible-playbook just after."""
    if status.get("status") != "running":
        return
    path = os.path.join(runner_config.artifact_dir, "command")
    with open(path, encoding="utf-8") as handle:
        recorded = json.load(handle)
    recorded["env"] = {name: value if name in RECORDED_ENV else "(not recorded)" for name, value in sorted(recorded["env"].items())}
    with open(path + ".new", "w", encoding="utf-8", opener=_private) as handle:
        json.dump(recorded, handle, ensure_ascii=False)
    os.replace(path + ".new", path)


def runner_kwargs(playbooks, private_data_dir, args=(), envvars=None, passwords=None, project_dir=REPO, **more):
    """ansible_runner.run()'s (or run_async()'s) arguments for ansible-playbook with args on
    playbooks (absolute paths, paths relative to the project, or an installed collection's
    playbooks by name: namespace.collection.name), project_dir (default this repository) as the
    project. envvars add to this process's environment; passwords answer prompts (pattern: answer)."""
    playbooks = [playbook if COLLECTION_PLAYBOOK.fullmatch(playbook) else os.path.join(project_dir, playbook)
                 for playbook in playbooks]
    kwargs = dict(
        private_data_dir=private_data_dir, project_dir=project_dir, ident=os.path.basename(private_data_dir),
        # ansible-runner puts one playbook last: the others go at the end of the arguments before it.
        playbook=playbooks[-1], cmdline=shlex.join([*args, *playbooks[:-1]]),
        envvars=_envvars(envvars), passwords=passwords,
        # Arguments, environment and passwords stay in memory: otherwise ansible-runner writes them
        # to env/ in the run's directory, the passwords in clear.
        suppress_env_files=True,
        # ansible.cfg's in-memory fact cache: ansible-runner's default keeps the hosts' facts as files.
        fact_cache_type="memory",
        status_handler=_record_env_by_name)
    kwargs.update(more)
    return kwargs


def ansible_args(options):
    """ansible-playbook's arguments for this tool's options; paths made absolute (ansible-playbook
    runs in the repository)."""
    args = []
    for inventory in options.inventory or []:
        args += ["-i", os.path.abspath(inventory) if os.path.exists(inventory) else inventory]  # else a host list: a,b,
    for extra in options.extra_vars or []:
        args += ["-e", "@" + os.path.abspath(extra[1:]) if extra.startswith("@") else extra]
    if options.check:
        args.append("--check")
    for flag, value in (("--limit", options.limit), ("--tags", options.tags)):
        if value:
            args += [flag, value]
    if options.vault_password_file:
        args += ["--vault-password-file", os.path.abspath(options.vault_password_file)]
    if options.ask_vault_password:
        args.append("--ask-vault-password")
    if options.verbose:
        args.append("-" + "v" * options.verbose)
    return args


def parser():
    parse = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parse.add_argument("playbooks", nargs="+", metavar="PLAYBOOK")
    parse.add_argument("-i", "--inventory", action="append", help="inventory path or host list (repeatable); default ansible.cfg's")
    parse.add_argument("-e", "--extra-vars", action="append", help="key=value, JSON or @file (repeatable), as ansible-playbook takes them")
    parse.add_argument("-C", "--check", action="store_true", help="check mode: change nothing")
    parse.add_argument("-l", "--limit", help="limit to these hosts (a pattern)")
    parse.add_argument("-t", "--tags", help="only the tasks with these tags")
    parse.add_argument("-v", "--verbose", action="count", default=0, help="more output (-vvv: connection and module detail)")
    vault = parse.add_mutually_exclusive_group()
    vault.add_argument("--vault-password-file", metavar="FILE", help="the vault password from this file (or script)")
    vault.add_argument("-J", "--ask-vault-password", "--ask-vault-pass", action="store_true", help="ask for the vault password")
    return parse


def main(argv=None):
    options = parser().parse_args(argv)
    playbooks = [os.path.abspath(playbook) for playbook in options.playbooks]
    passwords = None
    if options.ask_vault_password:
        # Asked here and given to ansible-playbook's prompt by ansible-runner, as AWX does.
        passwords = {VAULT_PROMPT: getpass.getpass("Vault password: ")}
    directory = new_run_dir(playbooks)
    color = {} if sys.stdout.isatty() or {"ANSIBLE_NOCOLOR", "ANSIBLE_FORCE_COLOR"} & set(os.environ) else {"ANSIBLE_NOCOLOR": "1"}
    events = []
    runner = ansible_runner.run(**runner_kwargs(playbooks, directory, ansible_args(options), envvars=color, passwords=passwords,
                                                event_handler=lambda event: events.append(event) or True))
    summary = run_events.summarize(events)
    summary.update(status=runner.status, rc=runner.rc, artifacts=runner.config.artifact_dir)
    with open(os.path.join(runner.config.artifact_dir, "summary.json"), "w", encoding="utf-8", opener=_private) as handle:
        json.dump(summary, handle, indent=1)
    print("\n" + run_events.format_summary(summary, runner.status, runner.rc, runner.config.artifact_dir))
    return runner.rc


if __name__ == "__main__":
    sys.exit(main())
