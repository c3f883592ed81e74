"""Each role's variables are documented once, in its meta/argument_specs.yml: its defaults/ must
set what the spec says (no more, no less) and its README's table must be the one
tools/docs/role_variables.py writes from the spec (make role-docs). The last tests break a copy
of a role in each of those ways and show the check naming it."""

import os
import shutil

import pytest
import yaml

from docs import role_variables

ROLES = role_variables.roles()


def test_every_role_has_a_spec_and_a_table():
    assert ROLES == sorted(os.listdir(role_variables.ROLES))
    for role in ROLES:
        block = role_variables.readme_block(os.path.join(role_variables.ROLES, role))[1]
        assert block, "roles/%s/README.md has no variables table" % role


@pytest.mark.parametrize("role", ROLES)
def test_defaults_spec_and_readme_agree(role):
    assert role_variables.problems(os.path.join(role_variables.ROLES, role)) == []


@pytest.fixture(name="role_copy")
def fixture_role_copy(tmp_path):
    """A copy of the node_labels role (defaults, spec, README), which agree, to break."""
    copy = tmp_path / "roles" / "node_labels"
    shutil.copytree(os.path.join(role_variables.ROLES, "node_labels"), copy)
    assert role_variables.problems(str(copy)) == []
    return copy


def edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def only_problem(role_copy):
    found = role_variables.problems(str(role_copy))
    assert len(found) == 1, found
    return found[0]


def test_a_default_that_is_not_the_specs_is_named(role_copy):
    edit(role_copy / "defaults" / "main.yml", "node_labels_remove_dropped: false", "node_labels_remove_dropped: true")
    assert "node_labels_remove_dropped defaults to True in defaults/ but to False in meta/argument_specs.yml" in only_problem(role_copy)


def test_a_jinja_default_must_be_the_same_string(role_copy):
    edit(role_copy / "defaults" / "main.yml", '"{{ inventory_hostname }}"', '"{{ inventory_hostname}}"')
    assert "node_labels_node_name defaults to '{{ inventory_hostname}}'" in only_problem(role_copy)


def test_a_default_the_spec_does_not_declare_is_named(role_copy):
    with open(role_copy / "defaults" / "main.yml", "a", encoding="utf-8") as handle:
        handle.write("node_labels_annotations: {}\n__node_labels_private: 1\n")
    assert "node_labels_annotations is set in defaults/ but meta/argument_specs.yml does not declare it" in only_problem(role_copy)


def test_a_spec_default_that_defaults_does_not_set_is_named(role_copy):
    edit(role_copy / "defaults" / "main.yml", "node_labels_extra: {}\n", "")
    assert "meta/argument_specs.yml gives node_labels_extra the default {} but defaults/ does not set it" in only_problem(role_copy)


def rewrite_extra(role_copy, **changes):
    """node_labels_extra's spec without its default and with ``changes``, the README's table made
    again from it."""
    spec = role_copy / "meta" / "argument_specs.yml"
    data = yaml.safe_load(spec.read_text(encoding="utf-8"))
    # One dict for every entry point: the spec anchors it.
    option = data["argument_specs"]["main"]["options"]["node_labels_extra"]
    option.pop("default")
    option.update(changes)
    spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    role_variables.write(str(role_copy))


def test_a_default_the_spec_gives_none_is_named(role_copy):
    rewrite_extra(role_copy)
    assert "node_labels_extra defaults to {} in defaults/ but meta/argument_specs.yml gives no default" in only_problem(role_copy)


def test_a_required_variable_with_a_default_is_named(role_copy):
    rewrite_extra(role_copy, required=True)
    assert "node_labels_extra is required in meta/argument_specs.yml but defaults/ gives it {}" in only_problem(role_copy)


def test_a_variable_declared_twice_differently_is_named(role_copy):
    spec = role_copy / "meta" / "argument_specs.yml"
    data = yaml.safe_load(spec.read_text(encoding="utf-8"))
    render = dict(data["argument_specs"]["render"]["options"])
    render["node_labels_extra"] = dict(render["node_labels_extra"], description="Other labels.")
    data["argument_specs"]["render"]["options"] = render
    spec.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert "node_labels_extra is declared differently by the entry points main and render" in only_problem(role_copy)


def test_a_readme_table_edited_by_hand_asks_for_make_role_docs(role_copy):
    edit(role_copy / "README.md", "| `node_labels_extra` | dict |", "| `node_labels_extra` | list |")
    assert only_problem(role_copy).endswith("README.md's variables table is not the one meta/argument_specs.yml makes: run make role-docs")
    assert role_variables.write(str(role_copy))
    assert role_variables.problems(str(role_copy)) == []


def test_a_spec_changed_without_the_readme_asks_for_make_role_docs(role_copy):
    edit(role_copy / "meta" / "argument_specs.yml", "More labels, ", "More node labels, ")
    assert "run make role-docs" in only_problem(role_copy)
    assert role_variables.write(str(role_copy))
    assert "More node labels, `{key: value}`." in (role_copy / "README.md").read_text(encoding="utf-8")


def test_a_readme_without_markers_is_named_and_not_written(role_copy):
    edit(role_copy / "README.md", role_variables.END, "")
    assert "has no variables table between" in only_problem(role_copy)
    with pytest.raises(SystemExit, match="put them where the variables table goes"):
        role_variables.write(str(role_copy))


@pytest.mark.parametrize("value, cell", [
    ("0755", '`"0755"`'), ("", '`""`'), ("true", '`"true"`'), ("helm", "`helm`"),
    ("{{ a | default('') }}", "`{{ a \\| default('') }}`"), (False, "`false`"), (None, "`null`"), ([], "`[]`"),
    ({"type": "UFS", "folder": "/journal"}, "`{type: UFS, folder: /journal}`"),
])
def test_a_default_is_written_as_yaml_reads_it(value, cell):
    default, block = role_variables.default_cell("name", {"default": value})
    assert (role_variables.cell(default), block) == (cell, False)


def test_ansible_markup_becomes_markdown():
    assert role_variables.text(["Set C(a_b) and I(c)", "or <d> * 2."]) == "Set `a_b` and *c* or \\<d> \\* 2."
