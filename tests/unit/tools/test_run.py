"""tools/run.py end to end on tests/unit/fixtures/runs/tiny.yml (localhost, a few seconds a run):
the run's artifacts, its summary from the job events, the exit code, and no vault password,
vaulted value or other environment value in the run's directory, whether the password comes from
a file or the prompt."""

import json
import os
import subprocess
import sys
import time

import ansible_runner
import pytest

import run
import run_events
from tools_module import python

TINY = os.path.join(os.path.dirname(__file__), "..", "fixtures", "runs", "tiny.yml")
PASSWORD = "vault-pass-7Qx2"
SECRET = "vaulted-value-7Qx2"
TOKEN = "env-token-7Qx2"
LOCALHOST = {"ok": 5, "changed": 1, "failed": 1, "unreachable": 0, "skipped": 1, "ignored": 1, "rescued": 1}


@pytest.fixture
def runs(tmp_path, monkeypatch):
    """The runs directory, a vault-encrypted vars file with the secret tiny.yml reads, its password file."""
    monkeypatch.setenv("FLUIDOPS_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setenv("FLUIDOPS_TEST_TOKEN", TOKEN)  # an environment value no artifact may keep
    password = tmp_path / "vault-password"
    password.write_text(PASSWORD + "\n")
    vaulted = tmp_path / "secret.yml"
    vaulted.write_text("tiny_secret: %s\n" % SECRET)
    subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-vault"), "encrypt", "--vault-password-file", str(password),
                    str(vaulted)], check=True, capture_output=True)
    return tmp_path / "runs", vaulted, password


def files_holding(directory, *values):
    """[(file, value)] for each of the values a file under directory holds."""
    found = []
    for root, _dirs, names in os.walk(directory):
        for name in names:
            with open(os.path.join(root, name), "rb") as handle:
                data = handle.read().decode("utf-8", "replace")
            found += [(os.path.relpath(os.path.join(root, name), directory), value) for value in values if value in data]
    return found


def the_run(runs_dir):
    [directory] = os.listdir(runs_dir)
    assert directory.endswith("-tiny")
    artifacts = os.path.join(runs_dir, directory, "artifacts", directory)
    return os.path.join(runs_dir, directory), artifacts


def test_a_run_keeps_its_artifacts_and_prints_its_summary_from_the_events(runs, capsys):
    runs_dir, vaulted, password = runs
    assert run.main([TINY, "-e", "@" + str(vaulted), "--vault-password-file", str(password), "-e", "tiny_note=inline"]) == 2
    directory, artifacts = the_run(runs_dir)

    def read(name):
        with open(os.path.join(artifacts, name), encoding="utf-8") as file:
            return file.read()

    assert (read("status"), read("rc")) == ("failed", "2")
    assert "TASK [Changes something]" in read("stdout") and "PLAY RECAP" in read("stdout")
    events = [json.loads(read(os.path.join("job_events", name))) for name in os.listdir(os.path.join(artifacts, "job_events"))]
    assert len(run_events.results(events)) == 8 and run_events.stats(events)["changed"] == {"localhost": 1}
    summary = json.loads(read("summary.json"))
    assert {host: {k: v for k, v in numbers.items() if k != "seconds"} for host, numbers in summary["hosts"].items()} == {"localhost": LOCALHOST}
    assert summary["failures"] == [{"host": "localhost", "play": "Every outcome", "task": "Fails", "unreachable": False,
                                    "message": "the failure that stops the run"}]
    assert (summary["status"], summary["rc"], summary["artifacts"]) == ("failed", 2, artifacts)
    printed = capsys.readouterr().out
    assert "  FAILED localhost, play Every outcome, task Fails: the failure that stops the run\n" in printed
    assert "  Artifacts: %s" % artifacts in printed
    # The command artifact: ansible-playbook's arguments (an inline extra var as given, a vars
    # file and the password file by path), the environment by name.
    command = json.loads(read("command"))
    assert ["-e", "tiny_note=inline"] == command["command"][3:5] and "--vault-password-file" in command["command"]
    assert command["env"]["FLUIDOPS_TEST_TOKEN"] == "(not recorded)"
    assert command["env"]["ANSIBLE_HOST_KEY_CHECKING"] == "True"  # as ansible.cfg leaves it, not ansible-runner's False
    assert files_holding(directory, PASSWORD, SECRET, TOKEN) == []
    assert not os.path.exists(os.path.join(directory, "env"))


def test_a_vault_password_from_the_prompt_is_answered_and_kept_nowhere(runs, monkeypatch):
    runs_dir, vaulted, _unused = runs
    monkeypatch.setattr(run.getpass, "getpass", lambda prompt: PASSWORD)
    assert run.main([TINY, "-e", "@" + str(vaulted), "--ask-vault-password"]) == 2
    directory, artifacts = the_run(runs_dir)
    with open(os.path.join(artifacts, "summary.json"), encoding="utf-8") as handle:
        assert json.load(handle)["hosts"]["localhost"]["ok"] == LOCALHOST["ok"]  # the vaulted file was read
    assert files_holding(directory, PASSWORD, SECRET, TOKEN) == []


def test_a_runs_directory_git_would_take_along_is_refused(tmp_path):
    inside = os.path.join(run.REPO, "fluidops-runs-test")
    with pytest.raises(SystemExit) as refused:
        run.new_run_dir([TINY], runs=inside)
    assert "is inside the git tree and not ignored" in str(refused.value)
    assert not os.path.exists(inside)
    assert run.new_run_dir([TINY], runs=str(tmp_path)).startswith(str(tmp_path))


def ended(pid):
    """Whether the process has exited (gone, or a zombie its parent has not reaped yet)."""
    try:
        with open("/proc/%d/stat" % pid, encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_a_run_whose_reader_falls_behind_gets_every_event_and_its_exit_code(tmp_path):
    """A reader starved of CPU: ansible-playbook has exited with its last events still in the pty,
    and reading them takes ansible-runner longer than the 5 s its last read allows (16 x 0.75 s here,
    the handler's sleeps standing in for the starved reader). Unpatched, the run ended with rc None."""
    playbook = tmp_path / "tail.yml"
    playbook.write_text("- hosts: localhost\n  gather_facts: false\n  tasks:\n" + "".join(
        "    - name: Tail %d\n      ansible.builtin.debug:\n        msg: tail\n" % number for number in range(8)))
    seen = []

    def slow(event):
        seen.append(event["event"])
        task = event.get("event_data", {}).get("task", "")
        if task == "Tail 0" and event["event"] == "playbook_on_task_start":
            deadline = time.monotonic() + 120
            while not ended(event["pid"]):  # the rest of the output waits in the pty
                assert time.monotonic() < deadline, "ansible-playbook did not end"
                time.sleep(0.1)
        elif task.startswith("Tail") or event["event"] == "playbook_on_stats":
            time.sleep(0.75)
        return True

    (tmp_path / "run").mkdir()
    runner = ansible_runner.run(**run.runner_kwargs([str(playbook)], str(tmp_path / "run"), ["-i", "localhost,"],
                                                    quiet=True, event_handler=slow))
    assert (runner.status, runner.rc) == ("successful", 0)
    assert seen.count("runner_on_ok") == 8 and seen[-1] == "playbook_on_stats", seen


def test_a_niced_run_s_session_keeps_its_nice():
    """pexpect makes ansible-playbook a session of its own, which the kernel schedules as a group of
    nice 0 (autogroups): a niced run's group takes the run's nice. Two values, set outright (make
    test runs this niced already)."""
    probe = ("import os, sys; os.setpriority(os.PRIO_PROCESS, 0, int(sys.argv[1])); import run; "
             "child = run.ansible_runner.runner.pexpect.spawn('cat', ['/proc/self/autogroup'], encoding='ascii'); "
             "print(child.read().strip())")
    groups = {niceness: python("-c", probe, str(niceness), check=True).stdout.strip() for niceness in (7, 12)}
    assert groups[7].endswith(" nice 7") and groups[12].endswith(" nice 12"), groups
