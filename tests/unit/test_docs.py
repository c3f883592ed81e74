"""Every module's DOCUMENTATION, EXAMPLES and RETURN render with ansible-doc, and its examples
use only options the documentation lists."""

import json
import os
import subprocess

import pytest
import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(REPO, "plugins", "modules")) if name.endswith(".py"))


@pytest.mark.parametrize("module", MODULES)
def test_ansible_doc_renders_the_module(module):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"))
    result = subprocess.run(["ansible-doc", "--json", "fluidops.accel." + module], capture_output=True, text=True, env=env, cwd=REPO, check=False)
    assert result.returncode == 0, result.stderr
    entry = json.loads(result.stdout)["fluidops.accel." + module]
    doc, examples, returns = entry["doc"], entry["examples"], entry["return"]
    assert doc["short_description"] and doc["description"] and returns
    options = set(doc["options"]) | {alias for option in doc["options"].values() for alias in option.get("aliases", [])}
    uses = [task for task in yaml.safe_load(examples) if "fluidops.accel." + module in task]
    assert uses
    for task in uses:
        args = task["fluidops.accel." + module]
        assert set(args) <= options, (task["name"], set(args) - options)
    text = subprocess.run(["ansible-doc", "fluidops.accel." + module], capture_output=True, text=True, env=env, cwd=REPO, check=True).stdout
    assert "RETURN VALUES" in text and "EXAMPLES" in text


def test_every_module_that_talks_to_the_api_server_is_in_the_action_group():
    """module_defaults on group/fluidops.accel.fluidops reaches exactly the modules that take
    kubernetes.core's auth options (kubeconfig, context, ...)."""
    with open(os.path.join(REPO, "meta", "runtime.yml"), encoding="utf-8") as handle:
        group = yaml.safe_load(handle)["action_groups"]["fluidops"]
    talking = []
    for module in MODULES:
        with open(os.path.join(REPO, "plugins", "modules", module + ".py"), encoding="utf-8") as handle:
            source = handle.read()
        documentation = yaml.safe_load(source.split('DOCUMENTATION = r"""', 1)[1].split('"""', 1)[0])
        if "kubernetes.core.k8s_auth_options" in documentation.get("extends_documentation_fragment", []):
            talking.append(module)
    assert sorted(entry for entry in group if isinstance(entry, str)) == talking
    # The roles' kubernetes.core modules get the same defaults through the group.
    extended = [entry["metadata"]["extend_group"] for entry in group if isinstance(entry, dict)]
    assert extended == [["kubernetes.core.k8s", "kubernetes.core.helm"]]
