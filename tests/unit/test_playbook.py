"""tests/playbook.py, through which the render, integration and cluster tests run playbooks: what
a run says from its events, a run followed while it goes (the fault tests act when a play starts,
and cancel), the environment reaching ansible, the private data directory removed or kept. On
localhost, a few seconds a run."""

import os
import tempfile

import pytest
import yaml

from playbook import run_playbook, start_playbook

TINY = os.path.join(os.path.dirname(__file__), "fixtures", "runs", "tiny.yml")


def test_a_run_gives_its_output_and_what_its_events_say():
    run = run_playbook(TINY)
    returncode, output = run
    assert returncode == 2 and "PLAY RECAP" in output and "\r" not in output
    assert run.changed_per_host() == {"localhost": 1}
    assert run.tasks("changed") == {"localhost": ["Changes something"]}
    assert run.tasks("failed") == {"localhost": ["Fails, rescued", "Fails"]}  # each failed result, the rescued one too
    assert run.plays() == ["Every outcome"]
    assert run.recap()["failures"] == {"localhost": 1}
    [secret] = run.results(task="Reads the secret", host="localhost")
    assert list(secret["res"]) == ["censored"]


def test_a_run_followed_while_it_goes_and_cancelled(tmp_path):
    play = tmp_path / "play.yml"
    play.write_text(yaml.safe_dump([
        {"name": "First", "hosts": "localhost", "gather_facts": False, "tasks": [{"ansible.builtin.debug": {"msg": "one"}}]},
        {"name": "Second", "hosts": "localhost", "gather_facts": False, "tasks": [{"ansible.builtin.command": "sleep 30", "changed_when": False}]}]))
    running = start_playbook(str(play))
    assert running.wait_for_play("Second", seconds=60)["event_data"]["name"] == "Second"
    assert "PLAY [Second]" in running.output()
    running.cancel()
    run = running.finish()
    assert run.returncode == 254 and run.recap() is None
    assert run.plays() == ["First", "Second"]
    assert not os.path.exists(running.data_dir)  # a temporary private data directory, gone


def test_the_environment_given_reaches_ansible_and_a_given_data_dir_is_kept(tmp_path):
    play = tmp_path / "play.yml"
    play.write_text(yaml.safe_dump([{"name": "Reads", "hosts": "localhost", "gather_facts": False,
                                     "tasks": [{"ansible.builtin.debug": {"msg": "{{ lookup('env', 'FLUIDOPS_HELPER_TEST') }}"}}]}]))
    run = run_playbook(str(play), env=dict(os.environ, FLUIDOPS_HELPER_TEST="given"), data_dir=tmp_path / "run")
    assert run.returncode == 0, run.output
    assert run.results(task="ansible.builtin.debug")[0]["res"]["msg"] == "given"
    [ident] = os.listdir(tmp_path / "run" / "artifacts")
    assert os.listdir(tmp_path / "run" / "artifacts" / ident / "job_events")

    def private():
        return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("fluidops-run-")}

    before = private()
    with pytest.raises(ValueError, match="env leaves out PATH"):
        run_playbook(str(play), env={name: value for name, value in os.environ.items() if name != "PATH"})
    assert private() - before == set()  # no private data directory left behind
