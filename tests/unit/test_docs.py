"""Every module's DOCUMENTATION, EXAMPLES and RETURN render with ansible-doc, its examples use
only options the documentation lists, and the documentation says what the argument spec does;
every filter and test plugin has a doc file beside it that ansible-doc finds, and whose options
are the function's arguments."""

import functools
import importlib
import inspect
import json
import os
import subprocess

import pytest
import yaml

from ansible_collections.fluidops.accel.plugins.doc_fragments.sliced_wait import ModuleDocFragment
from ansible_collections.fluidops.accel.plugins.module_utils.k8s.waiter import sliced_wait_spec

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(REPO, "plugins", "modules")) if name.endswith(".py"))
ENV = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPO, "ansible.cfg"))
# What the documentation of an option and its argument spec both state.
SAID = ("type", "default", "choices", "elements", "required", "aliases")


def _ansible_doc(*args):
    """ansible-doc's output, with the collection found as the playbooks find it (ansible.cfg)."""
    result = subprocess.run(["ansible-doc", *args], capture_output=True, text=True, env=ENV, cwd=REPO, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


@functools.lru_cache(maxsize=None)
def ansible_doc(module):
    """ansible-doc's entry for the module, its doc fragments merged in."""
    return json.loads(_ansible_doc("--json", "fluidops.accel." + module))["fluidops.accel." + module]


def said(options, children):
    """{option: what it states}, suboptions included, with AnsibleModule's defaults made explicit."""
    return {name: dict({key: option.get(key) for key in SAID}, type=option.get("type") or "str", required=bool(option.get("required")),
                       suboptions=said(option.get(children) or {}, children))
            for name, option in options.items()}


def _jinja_plugins(kind):
    """{name: function} of every filter (kind "filter") or test ("test") the collection's files define."""
    found = {}
    directory = os.path.join(REPO, "plugins", kind)
    for file_name in sorted(os.listdir(directory)):
        if file_name.endswith(".py") and file_name != "__init__.py":
            module = importlib.import_module("ansible_collections.fluidops.accel.plugins.%s.%s" % (kind, file_name[:-3]))
            plugin = module.FilterModule() if kind == "filter" else module.TestModule()
            found.update(plugin.filters() if kind == "filter" else plugin.tests())
    return found


JINJA_PLUGINS = {kind: _jinja_plugins(kind) for kind in ("filter", "test")}


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
    text = _ansible_doc("fluidops.accel." + module)
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


@pytest.mark.parametrize("kind, name", [(kind, name) for kind, plugins in sorted(JINJA_PLUGINS.items()) for name in sorted(plugins)])
def test_every_filter_and_test_has_a_doc_file(kind, name):
    """plugins/<kind>/<name>.yml: DOCUMENTATION with the plugin's name and its arguments as options
    (in order, for a filter's positional), EXAMPLES that are YAML and use it, RETURN with _value."""
    with open(os.path.join(REPO, "plugins", kind, name + ".yml"), encoding="utf-8") as handle:
        docs = yaml.safe_load(handle)
    doc, examples, returns = docs["DOCUMENTATION"], docs["EXAMPLES"], docs["RETURN"]
    assert doc["name"] == name
    assert doc["short_description"] and doc["description"] and doc["author"] and doc["version_added"]
    assert returns["_value"]["description"] and returns["_value"]["type"]
    assert yaml.safe_load(examples) and "fluidops.accel." + name in examples
    # The options are the function's arguments, the first being _input.
    parameters = list(inspect.signature(JINJA_PLUGINS[kind][name]).parameters.values())
    assert all(p.kind == p.POSITIONAL_OR_KEYWORD for p in parameters), "a wrapper hides the arguments: use functools.wraps"
    arguments = ["_input"] + [p.name for p in parameters[1:]]
    assert list(doc["options"]) == arguments and doc["options"]["_input"]["description"]
    if kind == "filter":
        assert [part.strip() for part in doc["positional"].split(",")] == arguments
    for parameter in parameters[1:]:
        option = doc["options"][parameter.name]
        if parameter.default is parameter.empty:
            assert option.get("required") is True, parameter.name
        else:
            assert not option.get("required") and option.get("default") == parameter.default, parameter.name


@pytest.mark.parametrize("kind", sorted(JINJA_PLUGINS))
def test_ansible_doc_lists_and_renders_every_filter_and_test(kind):
    """ansible-doc finds the collection's filters and tests, each documented (not UNDOCUMENTED), and
    no doc file is left over from a plugin that is gone."""
    names = sorted("fluidops.accel." + name for name in JINJA_PLUGINS[kind])
    listed = json.loads(_ansible_doc("-t", kind, "--list", "--json", "fluidops.accel"))
    assert sorted(listed) == names
    assert not [name for name, description in listed.items() if description == "UNDOCUMENTED"]
    rendered = json.loads(_ansible_doc("-t", kind, "--json", *names))
    assert sorted(rendered) == names
    for name in names:
        assert rendered[name]["doc"]["name"] == name.rsplit(".", 1)[1] and rendered[name]["return"]["_value"]
    doc_files = sorted(f[:-4] for f in os.listdir(os.path.join(REPO, "plugins", kind)) if f.endswith(".yml"))
    assert ["fluidops.accel." + name for name in doc_files] == names


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
