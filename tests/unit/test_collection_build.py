"""The collection as users install it. `ansible-galaxy collection build` leaves out what develops,
tests and runs it in place; the tarball, installed into an empty collections path and used from a
directory outside the repository with an empty ansible.cfg, documents every module, filter, test
and role, and every playbook in playbooks/ runs by its collection name (syntax check, and the
same plays and tasks as in place). The expected sets come from the source tree, so a new plugin,
role or playbook is covered. Builds with ansible-galaxy, touches no cluster and no host."""

import json
import os
import re
import tarfile

import pytest
import yaml
from packaging.requirements import Requirement

from collection import FQCN, Installed, in_place
from playbook import REPO
from test_docs import JINJA_PLUGINS, MODULES

# What the tarball holds at its top: the collection's content and ansible-galaxy's own manifests.
TOP = {"CHANGELOG.md", "LICENSE", "README.md", "changelogs", "docs", "inventory", "meta", "playbooks", "plugins", "roles", "FILES.json", "MANIFEST.json"}
SHIPPED_DIRS = ("docs", "meta", "playbooks", "plugins", "roles", os.path.join("inventory", "v100-cluster"))
# What develops, tests or runs the repository in place, and per-checkout output: never shipped.
DEVELOPMENT = ("Makefile", ".ci", ".collections", ".ansible", ".ansible-lint", ".yamllint", ".shellcheckrc", ".gitignore",
               "ruff.toml", "pytest.ini", "constraints.txt", "requirements.txt", "requirements.yml", "ansible.cfg", "site.yml",
               "tests", "tools", "molecule", "inventory/local", "inventory/local-simulated", "v100-cluster", "rendered", "reports",
               "changelogs/fragments")
PLAYBOOKS = sorted(name[:-4] for name in os.listdir(os.path.join(REPO, "playbooks")) if name.endswith(".yml"))
ROLES = sorted(os.listdir(os.path.join(REPO, "roles")))
# Hosts for the plays' patterns: the controller and one GPU node, neither reached.
MINIMAL_INVENTORY = {"all": {"hosts": {"localhost": {"ansible_connection": "local"}},
                             "children": {"gpu_nodes": {"hosts": {"gpu-node-1": {"ansible_connection": "local"}}}}}}


def source_files(directory):
    """Every file under the repository's directory, as the build sees it (no Python caches)."""
    found = set()
    for root, dirs, files in os.walk(os.path.join(REPO, directory)):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        found.update(os.path.relpath(os.path.join(root, name), REPO) for name in files if not name.endswith(".pyc"))
    return found


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    return Installed(tmp_path_factory.mktemp("collection"))


@pytest.fixture(scope="module")
def members(installed):
    """{path: TarInfo} of the tarball's files."""
    with tarfile.open(installed.tarball) as tarball:
        return {member.name: member for member in tarball.getmembers() if member.isfile()}


@pytest.fixture(scope="module")
def inventory(installed):
    path = os.path.join(installed.workdir, "hosts.yml")
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(MINIMAL_INVENTORY, handle)
    return path


def test_the_tarball_holds_the_collection_and_no_development_file(installed, members):
    # Every entry's top, links included (v100-cluster, a link in place, would ship as one).
    with tarfile.open(installed.tarball) as tarball:
        top = {name.split("/", 1)[0] for name in tarball.getnames()}
    assert (sorted(top - TOP), sorted(TOP - top)) == ([], [])  # (not placed in galaxy.yml's build_ignore, missing)
    assert [name for name in members for left_out in DEVELOPMENT if name == left_out or name.startswith(left_out + "/")] == []
    expected = {"CHANGELOG.md", "LICENSE", "README.md", "changelogs/changelog.yaml", "changelogs/config.yaml", "FILES.json", "MANIFEST.json"}.union(
        *(source_files(d) for d in SHIPPED_DIRS))
    assert (sorted(set(members) - expected), sorted(expected - set(members))) == ([], [])


def test_the_manifest_says_the_collection_and_its_dependencies(installed):
    with open(os.path.join(REPO, "galaxy.yml"), encoding="utf-8") as handle:
        galaxy = yaml.safe_load(handle)
    with open(os.path.join(installed.path, "MANIFEST.json"), encoding="utf-8") as handle:
        info = json.load(handle)["collection_info"]
    assert (info["namespace"], info["name"], info["version"]) == (galaxy["namespace"], galaxy["name"], galaxy["version"])
    assert info["dependencies"] == galaxy["dependencies"]


def test_the_python_requirements_for_an_execution_environment_hold_the_tested_versions(installed):
    """meta/execution-environment.yml names the controller's Python packages (ansible-builder reads
    it); the versions the tests run with (requirements.txt, constraints.txt) satisfy each."""
    with open(os.path.join(installed.path, "meta", "execution-environment.yml"), encoding="utf-8") as handle:
        python = yaml.safe_load(handle)["dependencies"]["python"]
    with open(os.path.join(installed.path, python), encoding="utf-8") as handle:
        needed = [Requirement(line) for line in (raw.split("#", 1)[0].strip() for raw in handle) if line]
    pinned = {}
    for name in ("requirements.txt", "constraints.txt"):
        with open(os.path.join(REPO, name), encoding="utf-8") as handle:
            for line in (raw.split("#", 1)[0].strip() for raw in handle):
                if "==" in line:
                    requirement = Requirement(line)
                    pinned[requirement.name.lower()] = str(requirement.specifier).lstrip("=")
    assert needed and not [r.name for r in needed if r.name.lower() in ("ansible", "ansible-core")]
    assert {r.name: pinned.get(r.name.lower()) for r in needed if not r.specifier.contains(pinned.get(r.name.lower(), "0"))} == {}


def test_the_installed_copy_is_the_one_found(installed):
    """Not the repository (.collections), nor a copy ansible-lint keeps."""
    assert installed.locations() == [os.path.join(installed.collections, "ansible_collections")]


@pytest.mark.parametrize("kind, expected", [
    ("module", MODULES), ("filter", sorted(JINJA_PLUGINS["filter"])), ("test", sorted(JINJA_PLUGINS["test"])), ("role", ROLES)])
def test_ansible_doc_lists_every_plugin_and_role(installed, kind, expected):
    returncode, output = installed.run("ansible-doc", "-t", kind, "--list", "--json", FQCN)
    assert returncode == 0, output
    assert sorted(json.loads(output)) == [FQCN + "." + name for name in expected]


@pytest.mark.parametrize("module", MODULES)
def test_ansible_doc_renders_each_module(installed, module):
    returncode, output = installed.run("ansible-doc", FQCN + "." + module)
    assert returncode == 0, output
    assert output.startswith("> MODULE %s.%s (%s/plugins/modules/%s.py)" % (FQCN, module, installed.path, module)), output[:300]
    assert "EXAMPLES" in output and "RETURN VALUES" in output


def test_ansible_doc_renders_every_filter(installed):
    names = [FQCN + "." + name for name in sorted(JINJA_PLUGINS["filter"])]
    returncode, output = installed.run("ansible-doc", "-t", "filter", "--json", *names)
    assert returncode == 0, output
    assert sorted(name for name, entry in json.loads(output).items() if entry["doc"]["description"]) == names


def test_every_playbook_passes_the_syntax_check_by_its_collection_name(installed, inventory):
    returncode, output = installed.run("ansible-playbook", "--syntax-check", "-i", inventory, *[FQCN + "." + name for name in PLAYBOOKS])
    assert returncode == 0, output
    checked = re.findall(r"^playbook: (\S+)$", output, re.MULTILINE)
    assert checked == [os.path.join(installed.path, "playbooks", name + ".yml") for name in PLAYBOOKS]


def plays_and_tasks(output):
    """{playbook file name: what --list-tasks prints for it}."""
    sections = re.split(r"^playbook: (\S+)$", output, flags=re.MULTILINE)[1:]
    return {os.path.basename(path): listing.strip() for path, listing in zip(sections[::2], sections[1::2])}


def test_every_playbook_lists_the_same_plays_and_tasks_installed_as_in_place(installed, inventory):
    """The roles, their entry points and the imports the installed playbooks resolve are those of
    the repository run in place (its ansible.cfg and .collections link)."""
    returncode, output = installed.run("ansible-playbook", "--list-tasks", "-i", inventory, *[FQCN + "." + name for name in PLAYBOOKS])
    assert returncode == 0, output
    returncode, repository = in_place("--list-tasks", "-i", inventory, *["playbooks/%s.yml" % name for name in PLAYBOOKS])
    assert returncode == 0, repository
    listed = plays_and_tasks(output)
    assert sorted(listed) == [name + ".yml" for name in PLAYBOOKS]
    assert listed == plays_and_tasks(repository)
