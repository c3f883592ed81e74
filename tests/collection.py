"""The collection as users install it: the tarball `ansible-galaxy collection build` makes,
installed into an empty collections path, and run from a directory outside the repository with an
empty ansible.cfg. Neither the repository's ansible.cfg nor its .collections link (which runs it
in place) is on any path; the dependencies come from the `ansible` package, as Galaxy is not
reachable."""

import glob
import json
import os
import subprocess

from playbook import REPO, run_playbook

NAMESPACE, NAME = "fluidops", "accel"
FQCN = NAMESPACE + "." + NAME


def _run(command, env=None, cwd=None):
    result = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd, check=False)
    return result.returncode, result.stdout + result.stderr


def in_place(*args):
    """(return code, output) of ansible-playbook run in the repository, as run_playbook runs it
    (its ansible.cfg, so the .collections link), with the command line ``args``."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    return _run(["ansible-playbook", *args], env=env, cwd=REPO)


class Installed:
    """The collection built from this checkout and installed under ``directory`` (a new, empty
    directory): ``tarball``, ``path`` (the installed collection) and ``workdir`` (the directory
    the commands run in)."""

    def __init__(self, directory):
        directory = str(directory)
        self.workdir = os.path.join(directory, "work")
        self.collections = os.path.join(directory, "collections")
        os.makedirs(self.workdir)
        # A config file of the user's own, empty: no ansible.cfg of the repository's, nor ~/.ansible.cfg.
        with open(os.path.join(self.workdir, "ansible.cfg"), "w", encoding="utf-8"):
            pass
        # None of this environment's Ansible settings (the Makefile exports ANSIBLE_CONFIG and an
        # ANSIBLE_HOME holding ansible-lint's copy of the collection), nor a PYTHONPATH that could
        # hold the repository's .collections.
        self.settings = dict(ANSIBLE_CONFIG=os.path.join(self.workdir, "ansible.cfg"), ANSIBLE_HOME=os.path.join(directory, "ansible-home"),
                             ANSIBLE_COLLECTIONS_PATH=self.collections, ANSIBLE_NOCOLOR="1")
        self.env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_") and key != "PYTHONPATH"}
        self.env.update(self.settings)
        returncode, output = self.run("ansible-galaxy", "collection", "build", "--output-path", os.path.join(directory, "dist"), REPO)
        assert returncode == 0, output
        (self.tarball,) = glob.glob(os.path.join(directory, "dist", "%s-%s-*.tar.gz" % (NAMESPACE, NAME)))
        returncode, output = self.run("ansible-galaxy", "collection", "install", self.tarball, "-p", self.collections, "--no-deps", "--offline")
        assert returncode == 0, output
        self.path = os.path.join(self.collections, "ansible_collections", NAMESPACE, NAME)
        assert os.path.isfile(os.path.join(self.path, "MANIFEST.json")), output

    def run(self, *command):
        """(return code, output) of a command run in workdir with the user's environment."""
        return _run(list(command), env=self.env, cwd=self.workdir)

    def locations(self):
        """The directories ansible-galaxy finds the collection in, as users' commands would."""
        returncode, output = self.run("ansible-galaxy", "collection", "list", FQCN, "--format", "json")
        assert returncode == 0, output
        return sorted(path for path, found in json.loads(output).items() if FQCN in found)

    def check_roles_installed(self, output):
        """Every role the run's output at -v names (its argument checks give the path) is the
        installed copy's, none the repository's."""
        assert '"path": "%s/roles/' % self.path in output, output[-3000:]
        assert '"path": "%s/roles/' % REPO not in output, output[-3000:]

    def playbook(self, *names, **options):
        """ansible-playbook fluidops.accel.<name>... (one run, the playbooks in that order) in
        workdir, through ansible-runner as every test's run (tests/playbook.py): the PlaybookRun,
        ``returncode, output`` and its job events. Options: run_playbook's."""
        # ansible-runner adds to this process's environment and cannot take a variable out of it.
        inherited = sorted(key for key in os.environ if key.startswith("ANSIBLE_") and key not in self.settings
                           or key == "PYTHONPATH")
        assert not inherited, "settings in the environment would reach the installed collection's runs: %s" % inherited
        return run_playbook(*[FQCN + "." + name for name in names], project_dir=self.workdir,
                            env=dict(os.environ, **self.settings), **options)
