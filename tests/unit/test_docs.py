"""Every module's DOCUMENTATION, EXAMPLES and RETURN render with ansible-doc, its examples use
only options the documentation lists, and the documentation says what the argument spec does."""

import functools
import importlib
import json
import os
import subprocess

import pytest
import yaml

from ansible_collections.fluidops.accel.plugins.doc_fragments.sliced_wait import ModuleDocFragment
from ansible_collections.fluidops.accel.plugins.module_utils.fluid_client import sliced_wait_spec

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(REPO, "plugins", "modules")) if name.endswith(".py"))
ENV = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"))
# What the documentation of an option and its argument spec both state.
SAID = ("type", "default", "choices", "elements", "required", "aliases")


@functools.lru_cache(maxsize=None)
def ansible_doc(module):
    """ansible-doc's entry for the module, its doc fragments merged in."""
    result = subprocess.run(["ansible-doc", "--json", "fluidops.accel." + module], capture_output=True, text=True, env=ENV, cwd=REPO, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["fluidops.accel." + module]


def said(options, children):
    """{option: what it states}, suboptions included, with AnsibleModule's defaults made explicit."""
    return {name: dict({key: option.get(key) for key in SAID}, type=option.get("type") or "str", required=bool(option.get("required")),
                       suboptions=said(option.get(children) or {}, children))
            for name, option in options.items()}


@pytest.mark.parametrize("module", MODULES)
def test_ansible_doc_renders_the_module(module):
    entry = ansible_doc(module)
    doc, examples, returns = entry["doc"], entry["examples"], entry["return"]
    assert doc["short_description"] and doc["description"] and returns
    options = set(doc["options"]) | {alias for option in doc["options"].values() for alias in option.get("aliases", [])}
    uses = [task for task in yaml.safe_load(examples) if "fluidops.accel." + module in task]
    assert uses
    for task in uses:
        args = task["fluidops.accel." + module]
        assert set(args) <= options, (task["name"], set(args) - options)
    text = subprocess.run(["ansible-doc", "fluidops.accel." + module], capture_output=True, text=True, env=ENV, cwd=REPO, check=True).stdout
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
    assert sorted(group) == talking


@pytest.mark.parametrize("module", [m for m in MODULES if hasattr(importlib.import_module("ansible_collections.fluidops.accel.plugins.modules." + m), "spec")])
def test_the_documentation_states_the_argument_spec(module):
    """Each option's type, default, choices, elements, required and aliases, as ansible-doc shows
    them (doc fragments merged in) and as the module's spec checks them."""
    spec = importlib.import_module("ansible_collections.fluidops.accel.plugins.modules." + module).spec()
    assert said(ansible_doc(module)["doc"]["options"], "suboptions") == said(spec.argument_spec, "options")


def test_the_sliced_wait_fragment_documents_sliced_wait_spec():
    """Options, types and defaults; wait_timeout's default is each module's own (checked above)."""
    documented = said(yaml.safe_load(ModuleDocFragment.DOCUMENTATION)["options"], "suboptions")
    assert documented == said(sliced_wait_spec(wait_timeout=None), "options")
