"""The runbooks in docs/runbooks, without a cluster: each has its parts, the index lists every one,
and what their commands name exists - playbooks, the variables given with -e or read in Jinja
(documented in a role's meta/argument_specs.yml), the modules and their options, the shell
variables (the index's table). The cluster tests (RUNBOOK_TESTS) run the runnable blocks; these
checks catch what a run could pass by luck (a misspelt -e variable is silently ignored) or not
reach. The checks are functions returning problems, so that the last test can show each of them
failing on a broken runbook."""

import glob
import importlib
import json
import os
import re
import shlex

import pytest
import yaml

from runbooks import INDEX, REPO, RUNBOOKS, folded, missing, parse, runbook_files, runbooks, runnable_blocks

PROCEDURE_PARTS = ("When", "Steps", "Verify")
TROUBLESHOOTING_PARTS = ("Symptom", "Confirm", "Fix", "Verify")
# The tests that run the runbooks, on the real nodes.
RUNBOOK_TESTS = sorted(glob.glob(os.path.join(REPO, "tests", "nodes", "test_*.py")) + glob.glob(os.path.join(REPO, "tests", "upgrade", "test_*.py")))
# Shell variables every shell has, and Jinja names that are not the inventory's.
SHELL_VARIABLES = {"PWD", "HOME", "PATH"}
JINJA_NAMES = {"item", "inventory_hostname", "groups", "hostvars", "lookup", "query", "omit"}


def documented_variables():
    """{variable: type} of every option of every entry point in roles/*/meta/argument_specs.yml."""
    found = {}
    for path in glob.glob(os.path.join(REPO, "roles", "*", "meta", "argument_specs.yml")):
        with open(path, encoding="utf-8") as handle:
            for spec in yaml.safe_load(handle)["argument_specs"].values():
                for name, option in (spec.get("options") or {}).items():
                    found[name] = option.get("type", "str")
    return found


def index_variables(text):
    """The shell variables the index's table lists (its first column, in backticks)."""
    return set(re.findall(r"^\| `([A-Z_][A-Z0-9_]*)` \|", text, flags=re.M))


def module_options(name):
    """The options of a module of this collection, with those of the doc fragments it extends;
    None when there is no such module."""
    short = name.split(".")[-1]
    if not os.path.exists(os.path.join(REPO, "plugins", "modules", short + ".py")):
        return None
    module = importlib.import_module("ansible_collections.fluidops.accel.plugins.modules." + short)
    doc = yaml.safe_load(module.DOCUMENTATION)
    options = set(doc.get("options") or {})
    for fragment in doc.get("extends_documentation_fragment") or []:
        if fragment == "kubernetes.core.k8s_auth_options":
            from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC
            options |= set(AUTH_ARG_SPEC)
        elif fragment.startswith("fluidops.accel."):
            fragments = importlib.import_module("ansible_collections.fluidops.accel.plugins.doc_fragments." + fragment.split(".")[-1])
            options |= set(yaml.safe_load(fragments.ModuleDocFragment.DOCUMENTATION)["options"])
    return options


def commands(text):
    """The block's commands as argument lists: continuation lines joined, split at newlines, ``;``,
    ``&&``, ``||`` and ``|`` outside quotes."""
    lexer = shlex.shlex(re.sub(r"\\\n", " ", text), posix=True, punctuation_chars=";&|\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    found, current = [], []
    for token in lexer:
        if set(token) <= set(";&|\n"):
            found.append(current)
            current = []
        else:
            current.append(token)
    found.append(current)
    return [command for command in found if command]


def jinja_names(text):
    """The names Jinja expressions in ``text`` start from."""
    return set(re.findall(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)", text))


def extra_vars(value):
    """{name: value} of one -e argument: JSON, or name=value words."""
    if value.startswith("{"):
        return json.loads(value)
    if value.startswith("@"):
        raise ValueError("-e %s: a vars file is not a runbook command" % value)
    return dict(word.split("=", 1) for word in shlex.split(value) if "=" in word)


def command_problems(block, variables):
    """What an ansible or ansible-playbook command of a runnable block names that does not exist."""
    problems = []
    for argv in commands(block.text):
        if argv[0] == "make" and argv[1:2] == ["run"]:
            problems.append("%s: `make run` is not a command of this bundle's runbooks" % block.where)
        if argv[0] not in ("ansible", "ansible-playbook"):
            continue
        options = {}
        for flag, value in zip(argv, argv[1:] + [""]):
            options.setdefault(flag, []).append(value)
        if options.get("-i") != ["$INVENTORY"]:
            problems.append('%s: %s without -i "$INVENTORY" targets ansible.cfg\'s local inventory' % (block.where, argv[0]))
        if argv[0] == "ansible-playbook":
            for playbook in [word for word in argv[1:] if word.endswith(".yml")]:
                if not os.path.isfile(os.path.join(REPO, playbook)):
                    problems.append("%s: no playbook %s" % (block.where, playbook))
        for value in options.get("-e", []):
            try:
                given = extra_vars(value)
            except ValueError as error:
                problems.append("%s: -e %s: %s" % (block.where, value, error))
                continue
            for name, content in given.items():
                if name not in variables:
                    problems.append("%s: -e %s: no role documents the variable %s" % (block.where, value, name))
                elif variables[name] == "bool" and isinstance(content, str):
                    problems.append("%s: -e %s: %s is a boolean; pass it as JSON (-e '{\"%s\": true}'): "
                                    "the word is a string, which ansible-core refuses in a condition" % (block.where, value, name, name))
                for jinja in sorted(jinja_names(str(content)) - set(variables) - JINJA_NAMES):
                    problems.append("%s: -e %s reads %s, which no role documents" % (block.where, value, jinja))
        if argv[0] == "ansible":
            module = (options.get("-m") or [""])[0]
            args = (options.get("-a") or [""])[0]
            known = module_options(module) if module.startswith("fluidops.accel.") else None
            if module.startswith("fluidops.accel.") and known is None:
                problems.append("%s: no module %s in plugins/modules" % (block.where, module))
            if known is not None:
                for word in shlex.split(args):
                    name = word.split("=", 1)[0]
                    if "=" in word and name not in known:
                        problems.append("%s: module %s has no option %s" % (block.where, module, name))
            if module == "ansible.builtin.debug" and args.startswith("var="):
                if args[4:] not in variables:
                    problems.append("%s: no role documents the variable %s" % (block.where, args[4:]))
            for jinja in sorted(jinja_names(args) - set(variables) - JINJA_NAMES):
                problems.append("%s: -a reads %s, which no role documents" % (block.where, jinja))
    return problems


def shell_variable_problems(block, known):
    """Shell variables the block reads that it neither sets itself nor the index lists."""
    text = re.sub(r"'[^']*'", "''", block.text)  # single quotes: awk's and jsonpath's own $ and names
    assigned = set(re.findall(r"(?:^|[\s;(])(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=", text))
    read = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", text))
    return ["%s: reads $%s, which the index's table of variables does not list" % (block.where, name)
            for name in sorted(read - assigned - known - SHELL_VARIABLES)]


def structure_problems(book):
    """A runbook's parts: a title; Symptom, Confirm, Fix and Verify (troubleshooting) or When,
    Steps and Verify (procedures), in that order, none empty; Confirm names the bundle's command
    first, then kubectl; and what the parser could not read."""
    problems = ["%s: %s" % (book.file, problem) for problem in book.problems]
    if not book.title:
        problems.append("%s: no title (# ...)" % book.file)
    parts = TROUBLESHOOTING_PARTS if book.troubleshooting else PROCEDURE_PARTS
    present = [name for name in book.sections if name in parts]
    if present != list(parts):
        problems.append("%s: its ## sections %s must include %s, in that order" % (book.file, list(book.sections), list(parts)))
    for name in parts:
        if name in book.section_text and not book.section_text[name].strip():
            problems.append("%s: section %s is empty" % (book.file, name))
    commands_in = {name: [fence for fence in book.fences if fence.section == name and fence.language == "sh"] for name in parts}
    wanted = ("Confirm", "Fix") if book.troubleshooting else ("Steps",)
    for name in wanted:
        if not commands_in[name]:
            problems.append("%s: section %s has no sh block" % (book.file, name))
    if book.troubleshooting and commands_in["Confirm"]:
        first = commands(commands_in["Confirm"][0].text)[0][0]
        if first not in ("ansible", "ansible-playbook"):
            problems.append("%s: Confirm starts with %s; the bundle's command comes first" % (book.file, first))
        if not any(argv[0] == "kubectl" for fence in commands_in["Confirm"][1:] for argv in commands(fence.text)):
            problems.append("%s: Confirm has no kubectl command after the bundle's" % book.file)
    for block in book.blocks:
        if block.symptom and block.section != "Confirm":
            problems.append("%s: a symptom block belongs to a Confirm command" % block.where)
    return problems


def index_problems(text, files):
    """Runbooks the index does not link, and links to no runbook."""
    linked = {os.path.normpath(os.path.join(os.path.relpath(RUNBOOKS, REPO), link))
              for link in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", text)}
    return (["the index does not list %s" % path for path in sorted(set(files) - linked)]
            + ["the index links %s, which is not a runbook" % path for path in sorted(linked - set(files))])


def yaml_problems(book, variables):
    """Inventory examples (yaml blocks) that do not parse, or set a variable no role documents."""
    problems = []
    for fence in book.fences:
        if fence.language != "yaml":
            continue
        try:
            data = yaml.safe_load(fence.text)
        except yaml.YAMLError as error:
            problems.append("%s:%d: the yaml block does not parse: %s" % (book.file, fence.line, error))
            continue
        for name in sorted(set(data or {}) - set(variables)):
            problems.append("%s:%d: the inventory example sets %s, which no role documents" % (book.file, fence.line, name))
    return problems


@pytest.fixture(scope="module")
def variables():
    return documented_variables()


@pytest.fixture(scope="module")
def index_text():
    with open(INDEX, encoding="utf-8") as handle:
        return handle.read()


BOOKS = runbooks()
BLOCKS = runnable_blocks()


def test_the_index_lists_every_runbook(index_text):
    assert BOOKS, "no runbook found in docs/runbooks"
    assert index_problems(index_text, runbook_files()) == []


@pytest.mark.parametrize("book", BOOKS, ids=[book.file for book in BOOKS])
def test_each_runbook_has_its_parts(book, variables):
    assert structure_problems(book) + yaml_problems(book, variables) == []


@pytest.mark.parametrize("block", list(BLOCKS.values()), ids=list(BLOCKS))
def test_each_runnable_block_names_what_exists(block, variables, index_text):
    assert command_problems(block, variables) + shell_variable_problems(block, index_variables(index_text)) == []


def test_every_runnable_block_is_run_by_a_cluster_test():
    text = ""
    for path in RUNBOOK_TESTS:
        with open(path, encoding="utf-8") as handle:
            text += handle.read()
    assert sorted(block_id for block_id in BLOCKS if '"%s"' % block_id not in text) == []


def test_expected_lines_are_matched_with_spaces_folded():
    output = "    - imagenet  36.00MiB        36.00MiB  2.00GiB\n      100.0%    Bound\n"
    assert folded(output) == "- imagenet 36.00MiB 36.00MiB 2.00GiB 100.0% Bound"
    assert missing(output, ("imagenet 36.00MiB 36.00MiB 2.00GiB 100.0% Bound", "NotBound")) == ["NotBound"]


BROKEN = '''# Broken

## Confirm

```sh runnable id=Bad_Id
kubectl get dataset
```

```text symptom
NotBound
```

## Symptom

Wrong order.

## Fix

```sh runnable id=broken-fix
ansible-playbook playbooks/nope.yml -e cache_status_require_bound=true -e '{"no_such_variable": 1}'
ansible localhost -i "$INVENTORY" -m fluidops.accel.fluid_dataset_info -a "nmae=$DATASET"
make run
echo $UNLISTED
```

```text expect
one
```

```text expect
two
```

```yaml
no_such_setting: 1
```

## Verify
'''


def test_the_checks_find_a_broken_runbook(tmp_path, variables, index_text):
    folder = tmp_path / "troubleshooting"
    folder.mkdir()
    path = folder / "broken.md"
    path.write_text(BROKEN)
    book = parse(str(path))
    found = " | ".join(structure_problems(book) + yaml_problems(book, variables) + [
        problem for block in book.blocks
        for problem in command_problems(block, variables) + shell_variable_problems(block, index_variables(index_text))])
    for problem in ("needs id=<lower-case-words>", "must include ['Symptom', 'Confirm', 'Fix', 'Verify']",
                    "section Verify is empty", "Confirm starts with kubectl", "Confirm has no kubectl command",
                    "has a second expect block", "without -i \"$INVENTORY\"", "no playbook playbooks/nope.yml",
                    "cache_status_require_bound is a boolean", "no role documents the variable no_such_variable",
                    "has no option nmae", "`make run`", "reads $UNLISTED", "sets no_such_setting"):
        assert problem in found, problem
    assert index_problems(index_text, runbook_files() + ["docs/runbooks/troubleshooting/broken.md"]) == [
        "the index does not list docs/runbooks/troubleshooting/broken.md"]
