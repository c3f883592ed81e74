"""Every module's DOCUMENTATION, EXAMPLES and RETURN render with ansible-doc, its examples use
only options the documentation lists, and the documentation says what the argument spec does;
every filter and test plugin has a doc file beside it that ansible-doc finds, and whose options
are the function's arguments.

The README and docs/ describe the product: every make target is described there, every target
`make test` runs has its section in docs/testing.md, as every test suite and molecule scenario
has its mention, the README stays short, and no relative link leads nowhere. Those checks are
functions returning problems, so that the last test can show each of them failing."""

import functools
import glob
import importlib
import inspect
import json
import os
import re
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


README = os.path.join(REPO, "README.md")
TESTING = os.path.join(REPO, "docs", "testing.md")
README_MAX_LINES = 150
# The Markdown the product's documentation is made of: the README and docs/, runbooks included.
MARKDOWN = [README] + sorted(glob.glob(os.path.join(REPO, "docs", "**", "*.md"), recursive=True))
FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#+\s+(.*)$", re.M)


def read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def help_targets(makefile):
    """The targets `make help` lists: those whose line ends in `## <help>`."""
    return re.findall(r"^([a-z][a-z-]*):.*## ", makefile, re.M)


def targets_run_by(makefile, target):
    """``target`` and every target its recipe runs through $(MAKE), transitively."""
    recipes, current = {}, None
    for line in makefile.splitlines():
        rule = re.match(r"^([a-z][a-z-]*):", line)
        if rule:
            current = recipes.setdefault(rule.group(1), [])
        elif line.startswith("\t") and current is not None:
            current.append(line)
        elif line.strip() and not line.startswith("#"):
            current = None
    found, todo = set(), [target]
    while todo:
        name = todo.pop()
        if name not in found:
            found.add(name)
            todo += [word for line in recipes.get(name, []) if "$(MAKE)" in line for word in line.split() if word in recipes]
    return found


def undescribed_targets(targets, texts):
    """The targets no text names as `make <target>`."""
    return ["make %s is described neither in README.md nor in docs/" % target for target in targets
            if not any(re.search(r"\bmake %s(?![\w-])" % re.escape(target), text) for text in texts)]


def sectionless_targets(targets, testing):
    """The targets docs/testing.md has no `## `make <target>`` section for."""
    headings = set(HEADING.findall(FENCE.sub("", testing)))
    return ["docs/testing.md has no section `make %s`" % target for target in sorted(targets) if "`make %s`" % target not in headings]


def unmentioned_paths(paths, testing):
    """The suite and scenario directories docs/testing.md does not name as `<path>`."""
    return ["docs/testing.md does not describe %s" % path for path in paths if "`%s`" % path not in testing]


def suites():
    """tests/<name> of every folder under tests/ that holds a test file, molecule/<name> of every scenario."""
    folders = sorted({os.path.relpath(path, REPO).split(os.sep)[1]
                      for path in glob.glob(os.path.join(REPO, "tests", "*", "**", "test_*.py"), recursive=True)})
    scenarios = sorted(os.path.basename(os.path.dirname(path)) for path in glob.glob(os.path.join(REPO, "molecule", "*", "molecule.yml")))
    return ["tests/" + name for name in folders] + ["molecule/" + name for name in scenarios]


def anchor(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text):
    """The anchors of a Markdown text's headings, a repeated one numbered as GitHub numbers it."""
    found = set()
    for heading in HEADING.findall(FENCE.sub("", text)):
        name, count = anchor(heading), 1
        while name in found:
            name, count = "%s-%d" % (anchor(heading), count), count + 1
        found.add(name)
    return found


def link_problems(path):
    """Each relative link of a Markdown file, outside code, whose file, or heading in it, does not exist."""
    problems = []
    for target in LINK.findall(CODE.sub("", FENCE.sub("", read(path)))):
        if re.match(r"^[a-z]+:", target):
            continue
        name, fragment = (target.split("#", 1) + [""])[:2]
        linked = os.path.normpath(os.path.join(os.path.dirname(path), name)) if name else path
        where = "%s links %s" % (os.path.relpath(path, REPO), target)
        if not os.path.exists(linked):
            problems.append("%s: no such file" % where)
        elif fragment and linked.endswith(".md") and fragment not in anchors(read(linked)):
            problems.append("%s: no such heading" % where)
    return problems


def test_every_make_target_is_described():
    """`make help`'s targets, each named as `make <target>` in README.md or docs/."""
    makefile = read(os.path.join(REPO, "Makefile"))
    assert len(help_targets(makefile)) > 20
    assert undescribed_targets(help_targets(makefile), [read(path) for path in MARKDOWN]) == []


def test_every_target_make_test_runs_has_a_section_in_testing_md():
    makefile = read(os.path.join(REPO, "Makefile"))
    run = targets_run_by(makefile, "test")
    assert {"test", "nodes-test", "beside-nodes-test", "checks", "lint", "sanity", "unit", "core-oldest", "galaxy-import",
            "render-test", "integration", "molecule", "cluster-test"} <= run
    assert sectionless_targets(run, read(TESTING)) == []


def test_every_suite_and_molecule_scenario_is_described_in_testing_md():
    found = suites()
    assert {"tests/unit", "tests/render", "tests/integration", "tests/cluster", "tests/nodes", "molecule/default"} <= set(found)
    assert unmentioned_paths(found, read(TESTING)) == []


def test_the_readme_is_short():
    assert len(read(README).splitlines()) <= README_MAX_LINES


@pytest.mark.parametrize("path", [os.path.relpath(path, REPO) for path in MARKDOWN])
def test_relative_links_lead_somewhere(path):
    assert link_problems(os.path.join(REPO, path)) == []


def test_the_documentation_checks_find_what_is_missing(tmp_path):
    makefile = "all: one  ## all\n\t@$(MAKE) one two\none:  ## one\n\ttrue\n# two\ntwo:\n\t$(MAKE) three\nthree: ## three\n\ttrue\n"
    assert help_targets(makefile) == ["all", "one", "three"]
    assert targets_run_by(makefile, "all") == {"all", "one", "two", "three"}
    assert undescribed_targets(["one", "three"], ["run `make one`", "make three-things"]) == [
        "make three is described neither in README.md nor in docs/"]
    assert sectionless_targets({"one", "three"}, "## `make one`\n```\n## `make three`\n```\n") == [
        "docs/testing.md has no section `make three`"]
    assert unmentioned_paths(["tests/unit", "molecule/default"], "`tests/unit` and molecule/default") == [
        "docs/testing.md does not describe molecule/default"]
    assert anchors("# Use: it `now`\n## Use: it now\n```\n# not a heading\n```\n") == {"use-it-now", "use-it-now-1"}
    (tmp_path / "other.md").write_text("# The other page\n")
    page = tmp_path / "page.md"
    page.write_text("[a](other.md) [b](other.md#the-other-page) [c](gone.md) [d](other.md#gone) [e](#here)\n"
                    "[f](https://example.com/x) `[g](in-code.md)`\n```\n[h](fenced.md)\n```\n## Here\n")
    assert link_problems(str(page)) == [
        "%s links gone.md: no such file" % os.path.relpath(str(page), REPO),
        "%s links other.md#gone: no such heading" % os.path.relpath(str(page), REPO)]
