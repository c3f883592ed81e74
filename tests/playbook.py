"""Run the project's playbooks as operations do, through ansible-runner (tools/run.py, as `make run`
runs them), and read what happened from the job events: the plays that started, which task
changed or failed on which host, the recap's counts. Each run's private data directory is a
temporary one, removed when the run ends, unless the caller gives one (data_dir) to read after."""

import json
import os
import queue
import shutil
import tempfile
import threading
import time

import ansible_runner

import run_events
import run_warnings
from run import REPO, runner_kwargs

PARTS = os.path.join(os.environ.get("FLUIDOPS_CACHE_DIR", os.path.expanduser("~/.cache/fluidops")), "localcluster")
# Preflight renders the pinned charts (fluid_check_chart, alluxio_check_chart) and no chart
# repository answers here: the archives and helm tools/localcluster/build.sh leaves, as
# inventory/local names them.
LOCAL_CHARTS = {"fluid_chart_ref": os.path.join(PARTS, "fluid", "fluid-1.0.8.tgz"), "fluid_helm_binary": os.path.join(PARTS, "helm"),
                "alluxio_chart_ref": os.path.join(PARTS, "alluxio", "alluxio-0.6.54.tgz"),
                "alluxio_helm_binary": os.path.join(PARTS, "helm")}


def _args(inventory=None, extra_vars=None, check=False, extra_files=(), verbosity=0):
    args = []
    if inventory:
        args += ["-i", inventory]
    if extra_vars is not None:
        args += ["-e", json.dumps(extra_vars)]
    for path in extra_files:
        args += ["-e", "@" + path]
    if check:
        args.append("--check")
    if verbosity:
        args.append("-" + "v" * verbosity)
    return args


def _envvars(env):
    """What env sets other than this process's environment, which ansible-runner starts from (so a
    variable env leaves out cannot be removed, and is refused). The repository's ansible.cfg, no colour."""
    envvars = {"ANSIBLE_CONFIG": os.path.join(REPO, "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}
    if env is not None:
        removed = sorted(set(os.environ) - set(env))
        if removed:
            raise ValueError("env leaves out %s: a run's environment can add to this one's, not remove from it" % ", ".join(removed))
        envvars.update({name: value for name, value in env.items() if os.environ.get(name) != value})
    return envvars


def folded(output):
    return " ".join(output.split())


class PlaybookRun(tuple):
    """A finished run: (return code, output) as ``returncode, output = run_playbook(...)`` reads
    it, the output as ansible-playbook prints it (the YAML results of ansible.cfg's
    callback_result_format); and the run's job events, with what they say."""

    def __new__(cls, returncode, output, events):
        run = super().__new__(cls, (returncode, output))
        run.events = events
        return run

    @property
    def returncode(self):
        return self[0]

    @property
    def output(self):
        return self[1]

    def folded(self):
        """The same run, its output's whitespace folded: a message wrapped over lines matches."""
        return PlaybookRun(self.returncode, folded(self.output), self.events)

    def plays(self):
        """The names of the plays that started, in order."""
        return run_events.plays(self.events)

    def recap(self):
        """The recap's numbers as the playbook_on_stats event has them; None when the run ended
        before its recap (killed)."""
        return run_events.stats(self.events)

    def changed_per_host(self):
        """{host: changed count} from the recap (the playbook_on_stats event)."""
        return run_events.changed_per_host(self.events)

    def results(self, task=None, host=None, play=None):
        """The task results (run_events.results: host, play, task, status, res, duration) of that
        task, host and play, each when given."""
        wanted = {"task": task, "host": host, "play": play}
        return [result for result in run_events.results(self.events)
                if all(value is None or result[key] == value for key, value in wanted.items())]

    def tasks(self, status, play=None):
        """{host: [task names]} of the results with that status (ok, changed, failed, ignored,
        skipped, unreachable), in order."""
        found = {}
        for result in self.results(play=play):
            if result["status"] == status:
                found.setdefault(result["host"], []).append(result["task"])
        return found


class RunningPlaybook:
    """A run under way (start_playbook): its events as they come (wait_for), then its end (finish)."""

    def __init__(self, playbooks, data_dir=None, env=None, project_dir=REPO, **options):
        args, envvars = _args(**options), _envvars(env)
        self.playbooks = playbooks
        self._keep = data_dir is not None
        self.data_dir = str(data_dir) if self._keep else tempfile.mkdtemp(prefix="fluidops-run-")
        os.makedirs(self.data_dir, mode=0o700, exist_ok=True)
        self.events = []
        self._arrived = queue.Queue()
        self._cancelled = threading.Event()
        try:
            # An explicit cancel_callback: without one ansible-runner takes over SIGINT and SIGTERM.
            self._thread, self._runner = ansible_runner.run_async(**runner_kwargs(
                playbooks, self.data_dir, args, envvars=envvars, project_dir=project_dir, quiet=True, event_handler=self._event,
                cancel_callback=self._cancelled.is_set, finished_callback=lambda runner: self._arrived.put(None)))
        except BaseException:
            self._remove()
            raise

    def _remove(self):
        if not self._keep:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def _event(self, event):
        self.events.append(event)
        self._arrived.put(event)
        return True  # ansible-runner writes it to job_events too

    def wait_for(self, predicate, seconds=None):
        """The first event from now on that predicate holds for; None when the run ends, or seconds
        pass, first."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while deadline is None or time.monotonic() < deadline:
            try:
                event = self._arrived.get(timeout=1)
            except queue.Empty:
                if not self._thread.is_alive():  # ended without its finished callback (an exception)
                    return None
                continue
            if event is None:
                self._arrived.put(None)  # the end, for the next wait too
                return None
            if predicate(event):
                return event
        return None

    def wait_for_play(self, name, seconds=None):
        """The event of the play named so starting; None when the run ends first."""
        return self.wait_for(lambda event: event.get("event") == "playbook_on_play_start" and event["event_data"]["name"] == name,
                             seconds)

    def output(self):
        """The output so far, from the events."""
        return "".join(event["stdout"] + "\n" for event in list(self.events) if event.get("stdout")).replace("\r\n", "\n")

    def running(self):
        return self._thread.is_alive()

    def cancel(self):
        """Stops the run as AWX cancels a job: ansible-runner kills ansible-playbook (status
        canceled, return code 254) within its poll interval (5 s); a module already running goes
        on to its end, as after Popen.kill."""
        self._cancelled.set()

    def finish(self):
        """Waits for the end and returns the run (PlaybookRun); removes the private data directory
        unless the caller gave it."""
        self._thread.join()
        try:
            with open(os.path.join(self._runner.config.artifact_dir, "stdout"), encoding="utf-8") as handle:
                # ansible-playbook writes to a terminal under ansible-runner: its lines end in \r\n.
                output = handle.read().replace("\r\n", "\n")
        finally:
            self._remove()
        run_warnings.record(self.playbooks, output)
        return PlaybookRun(self._runner.rc, output, run_events.ordered(self.events))


def start_playbook(*playbooks, **options):
    """Starts the run (RunningPlaybook). Options: ``inventory``, ``extra_vars``, ``check``,
    ``extra_files`` (vars files given with -e @file), ``verbosity`` (the number of -v), ``env``
    (the environment; default this one's), ``data_dir`` (the run's private data directory, kept)
    and ``project_dir`` (the directory it runs in; default the repository, whose ansible.cfg it
    takes unless env names another)."""
    return RunningPlaybook(playbooks, **options)


def run_playbook(*playbooks, **options):
    """The finished run (PlaybookRun: ``returncode, output = run_playbook(...)``, and its events);
    the options of start_playbook."""
    return start_playbook(*playbooks, **options).finish()
