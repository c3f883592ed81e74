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
