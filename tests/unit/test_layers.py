"""The import map of docs/development.md holds: each part of plugins/ imports only the parts its
row allows. Import-graph tools do not follow ansible_collections.* imports, so every file is parsed."""

import ast
import os
import re

import pytest

from playbook import REPO

PACKAGE = "ansible_collections.fluidops.accel.plugins."
MAP = os.path.join(REPO, "docs", "development.md")


def layer_map(text):
    """{layer: allowed layers} from the table between the layers markers."""
    table = re.search(r"<!-- layers: .*? -->\n(.*?)<!-- end layers -->", text, re.S).group(1)
    rows = [line.strip("|").split("|") for line in table.splitlines() if line.startswith("|") and not line.startswith("|---")]
    return {name.strip(): {part.strip() for part in allowed.split(",") if part.strip()} for name, allowed in rows[1:]}


def layer_of(path, root=REPO):
    """plugins/module_utils/fluid/dataload.py -> module_utils/fluid; plugins/modules/mpijob.py -> modules."""
    parts = os.path.relpath(path, os.path.join(root, "plugins")).split(os.sep)
    if parts[0] == "module_utils":
        return "module_utils/" + os.path.splitext(parts[1])[0]
    return parts[0]


def imported_layers(path):
    """(line, layer) of each import of the collection's own code in a file."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), path)
    found = []
    for node in ast.walk(tree):
        names = ([node.module + "." + alias.name for alias in node.names] if isinstance(node, ast.ImportFrom) and node.module
                 else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            if name.startswith(PACKAGE):
                parts = name[len(PACKAGE):].split(".")
                found.append((node.lineno, "module_utils/" + parts[1] if parts[0] == "module_utils" else parts[0]))
    return found


def violations(layers, files, root=REPO):
    """One message per import the map does not allow."""
    found = []
    for path in files:
        own = layer_of(path, root)
        allowed = layers.get(own)
        if allowed is None:
            found.append("%s: its part %s has no row in docs/development.md's import map" % (path, own))
            continue
        for line, used in imported_layers(path):
            if used == own or used in allowed or (used.startswith("module_utils/") and "module_utils" in allowed):
                continue
            found.append("%s:%d imports %s, which %s may not (docs/development.md allows: %s)"
                         % (os.path.relpath(path, root), line, used, own, ", ".join(sorted(allowed)) or "nothing of the collection"))
    return found


def plugin_files():
    return [os.path.join(root, name) for root, _dirs, names in os.walk(os.path.join(REPO, "plugins"))
            for name in names if name.endswith(".py")]


def test_every_import_of_the_plugins_follows_the_map():
    with open(MAP, encoding="utf-8") as handle:
        layers = layer_map(handle.read())
    assert "module_utils/common" in layers and layers["module_utils/common"] == set()
    assert violations(layers, plugin_files()) == []


@pytest.mark.parametrize("source, expected", [
    # The common layer may import nothing of the collection.
    ("from %smodule_utils.k8s.client import KubeClient\n" % PACKAGE, "imports module_utils/k8s, which module_utils/common may not"),
    ("import %smodule_utils.fluid.manifests\n" % PACKAGE, "imports module_utils/fluid, which module_utils/common may not"),
])
def test_an_import_against_the_map_is_named(tmp_path, source, expected):
    path = tmp_path / "plugins" / "module_utils" / "common" / "stray.py"
    path.parent.mkdir(parents=True)
    path.write_text(source)
    layers = {"module_utils/common": set()}
    found = violations(layers, [str(path)], str(tmp_path))
    assert len(found) == 1 and expected in found[0]
