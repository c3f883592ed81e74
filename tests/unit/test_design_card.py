"""The design card's commands as a new user types them from the repository's top:
`ansible-playbook site.yml -i v100-cluster` finds the seeds' V100 inventory, and `molecule test`
(and `molecule test --all`) runs the node preparation on podman hosts, whose image it makes itself
when FLUIDOPS_HOST_IMAGE names none. Reads only: no playbook runs, no container starts."""

import json
import os
import re
import subprocess

import yaml

from playbook import REPO

V100_NODES = ["gpu-node-1", "gpu-node-2", "gpu-node-3", "gpu-node-4"]
SCENARIO = os.path.join(REPO, "molecule", "default")


def run(*command):
    """A command's output from the repository's top, with its ansible.cfg as make gives it."""
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"), NO_COLOR="1")
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


def test_v100_cluster_names_the_v100_inventory_from_the_top():
    as_typed = json.loads(run("ansible-inventory", "-i", "v100-cluster", "--list"))
    assert as_typed["gpu_nodes"]["hosts"] == V100_NODES
    # The same inventory as inventory/v100-cluster, its group_vars included.
    assert as_typed == json.loads(run("ansible-inventory", "-i", "inventory/v100-cluster", "--list"))


def test_site_yml_with_v100_cluster_targets_the_gpu_nodes():
    output = run("ansible-playbook", "site.yml", "-i", "v100-cluster", "--list-hosts")
    # Not the fallback to an implicit localhost of an inventory Ansible could not parse.
    assert "Unable to parse" not in output and "provided hosts list is empty" not in output, output
    find_nodes = output[output.index("Find the GPU nodes"):]
    assert sorted(re.findall(r"^\s+(gpu-node-\d+)$", find_nodes[:find_nodes.index("play #", 1)], re.MULTILINE)) == V100_NODES


def test_molecule_test_runs_the_node_preparation():
    """`molecule test` runs the scenario named default; --all every scenario, which is the one."""
    assert sorted(os.listdir(os.path.join(REPO, "molecule"))) == ["default"]
    matrix = run("molecule", "matrix", "test")
    assert "├─ converge %s" % os.path.join(SCENARIO, "converge.yml") in matrix, matrix
    with open(os.path.join(SCENARIO, "converge.yml"), encoding="utf-8") as handle:
        imported = [play.get("ansible.builtin.import_playbook") for play in yaml.safe_load(handle)]
    assert imported[-2:] == ["../../playbooks/preflight.yml", "../../playbooks/nodes.yml"]


def test_the_scenario_makes_the_image_its_hosts_run_without_fluidops_host_image():
    with open(os.path.join(SCENARIO, "molecule.yml"), encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
    images = {platform["image"] for platform in config["platforms"]}
    [fallback] = {re.fullmatch(r"\$\{FLUIDOPS_HOST_IMAGE:-(.+)\}", image).group(1) for image in images}
    command = config["dependency"]["command"]
    assert config["dependency"]["name"] == "shell"
    assert re.search(r'podman tag "\$\$\(\$\{MOLECULE_PROJECT_DIRECTORY\}/tools/hostimage/build\.sh\)" %s$' % re.escape(fallback), command), command
    assert config["scenario"]["test_sequence"][0] == "dependency"
