#!/usr/bin/env python
"""Each role's variables are documented once, in its meta/argument_specs.yml. This program writes
the variables table of roles/<role>/README.md from it, between the two marker lines below (the
rest of the README is written by hand), and lists where a role's three places disagree:

  - a variable of defaults/ that the spec does not declare (private ones, named __<role>_..., are
    set in vars/ and tasks, never in defaults/);
  - a default of defaults/ that is not the spec's default (compared as YAML reads them; a Jinja
    expression is the same string in both), or a spec default that defaults/ does not set;
  - a required variable with a default (Ansible never finds a role default missing);
  - a variable that two entry points declare differently;
  - a README whose table is not the one the spec makes.

  tools/docs/role_variables.py            # write every role's table (make role-docs)
  tools/docs/role_variables.py --check    # print the disagreements, exit 1 if any
"""

import argparse
import glob
import os
import re
import sys

import yaml

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROLES = os.path.join(REPO, "roles")
BEGIN = "<!-- BEGIN variables (generated from meta/argument_specs.yml by make role-docs) -->"
END = "<!-- END variables -->"
# Defaults kept out of the spec, with what the table shows instead: data with a comment on each
# value, too long to say twice.
DEFAULTS_ELSEWHERE = {"fluidops_builtin_tuning_profiles": "`defaults/main/tuning_profiles.yml`"}
# A list or dict default longer than this, written in flow style, goes under the table as YAML (so
# does a string of several lines).
INLINE_DEFAULT_MAX = 120
# Ansible's markup in descriptions (ansible-doc), as Markdown.
MARKUP = {"C": "`{}`", "V": "`{}`", "O": "`{}`", "I": "*{}*", "B": "**{}**"}


class BlockDumper(yaml.SafeDumper):
    """Writes a string of several lines as a literal block, as a person writes it."""


BlockDumper.add_representer(str, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None))


def read_yaml(path):
    with open(path, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def roles():
    return sorted(os.path.basename(os.path.dirname(os.path.dirname(path)))
                  for path in glob.glob(os.path.join(ROLES, "*", "meta", "argument_specs.yml")))


def entry_points(role_dir):
    return read_yaml(os.path.join(role_dir, "meta", "argument_specs.yml"))["argument_specs"]


def spec_variables(specs):
    """{name: (option, [entry points that take it])}, in the order the spec first names them."""
    found = {}
    for entry_point, spec in specs.items():
        for name, option in (spec.get("options") or {}).items():
            found.setdefault(name, (option, []))[1].append(entry_point)
    return found


def role_defaults(role_dir):
    """{name: value} of defaults/main.yml, or of every file of defaults/main/ as Ansible reads them."""
    single = os.path.join(role_dir, "defaults", "main.yml")
    paths = [single] if os.path.exists(single) else sorted(glob.glob(os.path.join(role_dir, "defaults", "main", "*.yml")))
    found = {}
    for path in paths:
        found.update(read_yaml(path) or {})
    return found


def text(description):
    """A description (a string or a list of paragraphs) as one line of Markdown."""
    paragraphs = description if isinstance(description, list) else [description or ""]
    line = " ".join(" ".join(str(paragraph).split()) for paragraph in paragraphs)
    parts = re.split(r"\b([CVOIB])\(([^)]*)\)", line)
    out = []
    for index in range(0, len(parts), 3):
        out.append(re.sub(r"([<*])", r"\\\1", parts[index]))
        if index + 2 < len(parts):
            out.append(MARKUP[parts[index + 1]].format(parts[index + 2]))
    return "".join(out)


def yaml_scalar(value):
    """A string, quoted where YAML would read it otherwise (empty, 0755, true, 0.95)."""
    plain = yaml.SafeLoader("").resolve(yaml.ScalarNode, value, (True, False)) == "tag:yaml.org,2002:str"
    if not plain or value.strip() != value:
        return '"{}"'.format(value.replace("\\", "\\\\").replace('"', '\\"'))
    return value


def flow(value):
    if isinstance(value, str):
        return yaml_scalar(value)
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=float("inf")).strip().removesuffix("\n...").removesuffix("...")


def default_cell(name, option):
    """What the table says of a default, and whether the default needs a YAML block under it."""
    if name in DEFAULTS_ELSEWHERE:
        return DEFAULTS_ELSEWHERE[name], False
    if option.get("required"):
        return "required", False
    if "default" not in option:
        return "", False
    value = option["default"]
    written = flow(value)
    if "\n" in written or not isinstance(value, str) and len(written) > INLINE_DEFAULT_MAX:
        return "below", True
    return "`{}`".format(written), False


def type_cell(option):
    kind = option.get("type", "str")
    return "{} of {}".format(kind, option["elements"]) if option.get("elements") else kind


def meaning(option, note=""):
    said = note + text(option.get("description"))
    if option.get("choices"):
        said += " Choices: {}.".format(", ".join("`{}`".format(flow(choice)) for choice in option["choices"]))
    return said


def cell(value):
    return value.replace("|", "\\|")


def row(cells):
    return "| " + " | ".join(cell(value) for value in cells) + " |"


def suboption_rows(options, prefix=""):
    """One row a sub-option, nested ones by path: mounts[].mount_point, runtime.type."""
    rows = []
    for key, option in options.items():
        path = prefix + key
        default = default_cell(path, option)[0]
        rows.append(row(["`{}`".format(path), type_cell(option), default, meaning(option)]))
        if option.get("options"):
            below = path + ("[]." if option.get("type") == "list" else ".")
            rows.extend(suboption_rows(option["options"], below))
    return rows


def table(specs):
    """The Markdown between the markers: one row a variable, then the keys of the variables that
    declare them and the defaults too long for a cell."""
    variables = spec_variables(specs)
    every = list(specs)
    # Which entry point takes which variable matters where they differ: a column where there is no
    # main entry point, else a note on the few main does not take.
    column = "main" not in specs and any(points != every for _option, points in variables.values())
    header = ["variable", "type", "default"] + (["entry points"] if column else []) + ["meaning"]
    lines = [row(header), "|" + "---|" * len(header)]
    details = []
    for name, (option, points) in variables.items():
        default, block = default_cell(name, option)
        note = ""
        if not column and "main" in specs and "main" not in points:
            note = "Entry point{} {} only: ".format("s" if len(points) > 1 else "", ", ".join("`{}`".format(point) for point in points))
        cells = ["`{}`".format(name), type_cell(option), default]
        if column:
            cells.append(", ".join(points))
        lines.append(row(cells + [meaning(option, note)]))
        if option.get("options"):
            kind = "each item" if option.get("type") == "list" else "its keys"
            details += ["", "`{}`, {}:".format(name, kind), "", row(["key", "type", "default", "meaning"]), "|---|---|---|---|"]
            details += suboption_rows(option["options"])
        if block:
            dumped = yaml.dump({name: option["default"]}, Dumper=BlockDumper, default_flow_style=False, sort_keys=False, width=160)
            details += ["", "`{}` defaults to:".format(name), "", "```yaml", dumped.rstrip("\n"), "```"]
    return "\n".join(lines + details)


def readme_block(role_dir):
    """(README text, start and end of what lies between the markers), or None without markers."""
    with open(os.path.join(role_dir, "README.md"), encoding="utf-8") as handle:
        readme = handle.read()
    begin, end = readme.find(BEGIN), readme.find(END)
    if begin < 0 or end < begin:
        return readme, None
    return readme, (begin + len(BEGIN), end)


def generated(role_dir):
    return "\n" + table(entry_points(role_dir)) + "\n"


def write(role_dir):
    readme, block = readme_block(role_dir)
    if block is None:
        raise SystemExit("{}/README.md has no line {} with a line {} after it: put them where the variables table goes."
                         .format(os.path.relpath(role_dir, REPO), BEGIN, END))
    updated = readme[:block[0]] + generated(role_dir) + readme[block[1]:]
    if updated != readme:
        with open(os.path.join(role_dir, "README.md"), "w", encoding="utf-8") as handle:
            handle.write(updated)
        return True
    return False


def problems(role_dir):
    """Where the role's defaults, argument spec and README disagree, one sentence each."""
    role = os.path.relpath(role_dir, REPO)
    specs = entry_points(role_dir)
    variables = spec_variables(specs)
    defaults = role_defaults(role_dir)
    found = []
    for name, value in defaults.items():
        if name.startswith("__"):
            continue
        if name not in variables:
            found.append("{}: {} is set in defaults/ but meta/argument_specs.yml does not declare it: declare it there".format(role, name))
            continue
        option = variables[name][0]
        if option.get("required"):
            found.append("{}: {} is required in meta/argument_specs.yml but defaults/ gives it {!r}: a required variable has no default"
                         .format(role, name, value))
        elif name in DEFAULTS_ELSEWHERE:
            if "default" in option:
                found.append("{}: {} has its default in defaults/ only ({}): remove it from meta/argument_specs.yml"
                             .format(role, name, DEFAULTS_ELSEWHERE[name]))
        elif "default" not in option:
            found.append("{}: {} defaults to {!r} in defaults/ but meta/argument_specs.yml gives no default: add default: {}"
                         .format(role, name, value, flow(value)))
        elif option["default"] != value:
            found.append("{}: {} defaults to {!r} in defaults/ but to {!r} in meta/argument_specs.yml: make them one"
                         .format(role, name, value, option["default"]))
    for name, (option, _points) in variables.items():
        if "default" in option and name not in defaults:
            found.append("{}: meta/argument_specs.yml gives {} the default {!r} but defaults/ does not set it: set it there"
                         .format(role, name, option["default"]))
    for entry_point, spec in specs.items():
        for name, option in (spec.get("options") or {}).items():
            if option != variables[name][0]:
                found.append("{}: {} is declared differently by the entry points {} and {}: declare it once (a YAML anchor)"
                             .format(role, name, variables[name][1][0], entry_point))
    readme, block = readme_block(role_dir)
    if block is None:
        found.append("{}/README.md has no variables table between {} and {}".format(role, BEGIN, END))
    elif readme[block[0]:block[1]] != generated(role_dir):
        found.append("{}/README.md's variables table is not the one meta/argument_specs.yml makes: run make role-docs".format(role))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--check", action="store_true", help="print where defaults, spec and README disagree; exit 1 if anywhere")
    parser.add_argument("roles", nargs="*", help="role names (default: every role)")
    args = parser.parse_args(argv)
    names = args.roles or roles()
    if args.check:
        found = [problem for name in names for problem in problems(os.path.join(ROLES, name))]
        print("\n".join(found) if found else "{} roles agree".format(len(names)))
        return 1 if found else 0
    for name in names:
        if write(os.path.join(ROLES, name)):
            print("wrote roles/{}/README.md".format(name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
