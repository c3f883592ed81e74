"""Render mode: the seeds' configurations reproduced field by field, and every rendered object
valid against the real schemas (kubeconform with Kubernetes 1.33's built-ins and the CRDs of
Fluid 1.0.8 and the MPIJob; Helm values through `helm template` of the real charts), and by the
collection's own check (schema_problems), whose shipped schemas must be those the pinned versions give.

Render mode touches no cluster and no host: these tests need neither.
"""

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml

from ansible_collections.fluidops.accel.plugins.plugin_utils.schema_check import problems as schema_problems
from cluster_script import pinned_source
from collection import Installed
from playbook import LOCAL_CHARTS, PARTS, REPO, folded, run_playbook

HERE = os.path.dirname(os.path.abspath(__file__))
KUBECONFORM = os.environ.get("FLUIDOPS_KUBECONFORM")
SCHEMA_LOCATION = os.environ.get("FLUIDOPS_SCHEMA_LOCATION")
CHARTS = {"fluid": os.path.join(PARTS, "fluid", "charts", "fluid", "fluid"), "alluxio": os.path.join(PARTS, "alluxio", "alluxio")}
KUBE_VERSION = "v1.33.13"

SEEDS = ["seed000", "seed001", "seed002", "seed003", "seed004"]
INVENTORIES = dict({seed: os.path.join(HERE, "inventories", seed) for seed in SEEDS},
                   **{name: os.path.join(REPO, "inventory", name) for name in ("v100-cluster", "local", "local-simulated")})
# Key values the inventories hold; none may reach a rendered file or the playbook's output.
SECRET_VALUES = ["render-test-key", "local-cluster-dummy", "CHANGE-ME"]
CREDENTIAL_KEYS = ("fs.oss.accessKeyId", "fs.oss.accessKeySecret")
PLACEHOLDER = re.compile(r"<[^<>]+>")


def render(inventory, directory, extra_vars=None, check=False):
    return run_playbook("playbooks/render.yml", inventory=inventory, check=check,
                        extra_vars=dict(LOCAL_CHARTS, **dict(extra_vars or {}, fluidops_render_dir=str(directory))))


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """{inventory name: (render directory, playbook output)}, each rendered once (three at a time)."""
    directories = {name: tmp_path_factory.mktemp(name) / "rendered" for name in INVENTORIES}
    with ThreadPoolExecutor(max_workers=3) as pool:
        runs = {name: pool.submit(render, INVENTORIES[name], directories[name]) for name in INVENTORIES}
    results = {}
    for name, run in runs.items():
        returncode, output = run.result()
        assert returncode == 0, output
        results[name] = (str(directories[name]), output)
    return results


def load(directory):
    """({(kind, name): object}, {helm values file name: values})."""
    objects, values = {}, {}
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
        if os.path.basename(path).startswith("helm-values_"):
            values[os.path.basename(path)] = document
        else:
            objects[(document["kind"], document["metadata"]["name"])] = document
    return objects, values


def with_secret_keys(dataset):
    """The Dataset with each key an encryptOption brings shown in its mount's options (as
    REDACTED), so a seed's inline keys compare against keys that come from a Secret."""
    result = yaml.safe_load(yaml.safe_dump(dataset))
    for mount in result["spec"]["mounts"]:
        for option in mount.get("encryptOptions", []):
            mount.setdefault("options", {})[option["name"]] = "REDACTED"
    return result


def differences(seed, rendered, path=""):
    """What the rendered object lacks or holds differently from every field the seed sets. A
    seed's <placeholder> matches any value; credentials must be REDACTED."""
    found = []
    if isinstance(seed, dict):
        if not isinstance(rendered, dict):
            return ["%s: %r is not a map" % (path, rendered)]
        for key, value in seed.items():
            where = "%s.%s" % (path, key)
            if key not in rendered:
                found.append("%s is missing" % where)
            elif key in CREDENTIAL_KEYS:
                if rendered[key] != "REDACTED":
                    found.append("%s is not redacted" % where)
            else:
                found.extend(differences(value, rendered[key], where))
    elif isinstance(seed, list):
        if not isinstance(rendered, list) or len(rendered) != len(seed):
            return ["%s: %r has not the seed's %d items" % (path, rendered, len(seed))]
        for index, (item, other) in enumerate(zip(seed, rendered)):
            found.extend(differences(item, other, "%s[%d]" % (path, index)))
    elif isinstance(seed, str) and PLACEHOLDER.search(seed):
        pattern = ".+".join(re.escape(part) for part in PLACEHOLDER.split(seed))
        if rendered in (None, "", [], {}) or (isinstance(rendered, str) and not re.fullmatch(pattern, rendered)):
            found.append("%s=%r does not fill the seed's %s" % (path, rendered, seed))
    elif str(seed) != str(rendered):
        found.append("%s=%r, the seed has %r" % (path, rendered, seed))
    return found


def seed_documents(seed):
    with open(os.path.join(HERE, "seeds", seed + ".yaml"), encoding="utf-8") as handle:
        return list(yaml.safe_load_all(handle))


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_seed_objects_reproduced_field_by_field(rendered, seed):
    objects, _unused = load(rendered[seed][0])
    found = []
    for document in seed_documents(seed):
        key = (document["kind"], document["metadata"]["name"])
        if key not in objects:
            found.append("%s %s is not rendered (rendered: %s)" % (key + (sorted(objects),)))
            continue
        target = with_secret_keys(objects[key]) if key[0] == "Dataset" else objects[key]
        found.extend(differences(document, target, "%s/%s" % key))
    assert not found, "\n".join(found)


def test_seed_004_chart_values_reproduced(rendered):
    expected = seed_documents("seed004")[0]
    _unused, values = load(rendered["seed004"][0])
    chart_values = values["helm-values_alluxio_alluxio.yaml"]
    assert not differences(expected["values"], chart_values, "values"), differences(expected["values"], chart_values, "values")
    options = chart_values["fuse"]["mountOptions"].split(",")
    assert set(expected["fuse_mount_options"]["include"]) <= set(options)
    assert not set(expected["fuse_mount_options"]["exclude"]) & set(options)


def test_the_seed_store_type_memory_is_caught(rendered):
    # The seed's own value, MEMORY, does not reach the values: the check refuses it.
    _unused, values = load(rendered["seed004"][0])
    assert values["helm-values_alluxio_alluxio.yaml"]["properties"]["alluxio.user.client.cache.store.type"] == "MEM"
    returncode, output = render(INVENTORIES["seed004"], os.path.join(rendered["seed004"][0], "..", "memory"),
                                {"alluxio_properties": {"alluxio.user.client.cache.store.type": "MEMORY"}})
    assert returncode != 0
    assert "alluxio_properties[alluxio.user.client.cache.store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; use MEM" in folded(output)


def test_every_encrypt_option_names_a_rendered_secret_key(rendered):
    for name in ("seed001", "seed002", "v100-cluster", "local-simulated"):
        objects, _unused = load(rendered[name][0])
        refs = [option["valueFrom"]["secretKeyRef"] for (kind, _unused), obj in objects.items() if kind == "Dataset"
                for mount in obj["spec"]["mounts"] for option in mount.get("encryptOptions", [])]
        assert refs, name
        for ref in refs:
            assert ref["key"] in objects[("Secret", ref["name"])]["stringData"], (name, ref)


def test_inline_keys_are_redacted_and_warned_about(rendered):
    directory, output = rendered["seed000"]
    objects, _unused = load(directory)
    options = objects[("Dataset", "imagenet")]["spec"]["mounts"][0]["options"]
    assert options == {key: "REDACTED" for key in CREDENTIAL_KEYS}
    assert "OSS keys are inline in the Dataset (allow_inline_credentials)" in folded(output)


@pytest.mark.parametrize("name", list(INVENTORIES))
def test_no_key_reaches_a_rendered_file_or_the_log(rendered, name):
    directory, output = rendered[name]
    for path in glob.glob(os.path.join(directory, "*.yaml")):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        assert not [value for value in SECRET_VALUES if value in text], path
    assert not [value for value in SECRET_VALUES if value in output]


def kubeconform(*args, stdin=None):
    if not (KUBECONFORM and SCHEMA_LOCATION):
        pytest.fail("FLUIDOPS_KUBECONFORM and FLUIDOPS_SCHEMA_LOCATION are not set: run through `make render-test`")
    command = [KUBECONFORM, "-strict", "-summary", "-schema-location", SCHEMA_LOCATION, *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)


def helm_template(chart, values_path, namespace):
    """The chart's objects for these values, as the apiserver gets them. Helm reads templates
    leniently (a repeated key: the last wins); so does PyYAML, which re-serializes them."""
    result = subprocess.run([os.path.join(PARTS, "helm"), "template", chart, CHARTS[chart], "-n", namespace,
                             "--kube-version", KUBE_VERSION, "-f", values_path], capture_output=True, text=True, check=True)
    return yaml.safe_dump_all([doc for doc in yaml.safe_load_all(result.stdout) if doc])


@pytest.mark.parametrize("name", list(INVENTORIES))
def test_kubeconform_accepts_every_rendered_object(rendered, name):
    directory = rendered[name][0]
    manifests = [path for path in glob.glob(os.path.join(directory, "*.yaml")) if not os.path.basename(path).startswith("helm-values_")]
    result = kubeconform(*manifests)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Invalid: 0, Errors: 0, Skipped: 0" in result.stdout
    for path in glob.glob(os.path.join(directory, "helm-values_*.yaml")):
        _unused, namespace, release = os.path.basename(path)[:-len(".yaml")].split("_")
        result = kubeconform(stdin=helm_template(release, path, namespace))
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Invalid: 0, Errors: 0, Skipped: 0" in result.stdout


def test_kubeconform_refuses_what_the_apiserver_would(tmp_path):
    # The schemas are live: an unknown Dataset field and a wrongly typed PVC field fail.
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: data.fluid.io/v1alpha1\nkind: Dataset\nmetadata: {name: x}\n"
                   "spec: {mounts: [{mountPoint: 'pvc://x', mountpoint: typo}]}\n---\n"
                   "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: x}\nspec: {volumeMode: 3}\n")
    result = kubeconform(str(bad))
    assert result.returncode != 0
    assert "additional properties 'mountpoint' not allowed" in result.stdout
    assert "/spec/volumeMode" in result.stdout


@pytest.mark.parametrize("name", list(INVENTORIES))
def test_schema_problems_finds_none_in_every_rendered_object(rendered, name):
    # The collection's own check (filter schema_problems, shipped schemas) agrees with kubeconform.
    objects, _unused = load(rendered[name][0])
    assert schema_problems(list(objects.values())) == []


def test_schema_problems_refuses_what_kubeconform_refuses():
    bad = list(yaml.safe_load_all("apiVersion: data.fluid.io/v1alpha1\nkind: Dataset\nmetadata: {name: x}\n"
                                  "spec: {mounts: [{mountPoint: 'pvc://x', mountpoint: typo}]}\n---\n"
                                  "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: x}\nspec: {volumeMode: 3}\n"))
    found = schema_problems(bad)
    assert [line.split("=")[0] for line in found] == ["Dataset x: spec.mounts[0].mountpoint", "PersistentVolumeClaim x: spec.volumeMode"]


def test_the_shipped_schemas_are_those_of_the_pinned_versions(tmp_path):
    """plugins/plugin_utils/schemas regenerated from the pinned swagger and CRDs (tools/kubeconform/ship.sh, which
    finds them as setup.sh does for kubeconform) is the same, file for file."""
    shipped_dir = os.path.join(REPO, "plugins", "plugin_utils", "schemas")
    result = subprocess.run([os.path.join(REPO, "tools", "kubeconform", "ship.sh"), str(tmp_path)], capture_output=True, text=True,
                            env=dict(os.environ, PYTHON=sys.executable), check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    contents = {}
    for directory in (str(tmp_path), shipped_dir):
        for file_name in os.listdir(directory):
            with open(os.path.join(directory, file_name), encoding="utf-8") as handle:
                contents.setdefault(file_name, {})[directory] = handle.read()
    stale = sorted(name for name, versions in contents.items() if versions.get(str(tmp_path)) != versions.get(shipped_dir))
    assert not stale, "plugins/plugin_utils/schemas is not what the pinned versions give (run make schemas): %s" % ", ".join(stale)


def test_the_service_monitor_crd_tests_install_is_the_one_its_shipped_schema_comes_from():
    path = pinned_source("monitoring.coreos.com_servicemonitors.yaml")
    with open(os.path.join(REPO, "plugins", "plugin_utils", "schemas", "index.json"), encoding="utf-8") as handle:
        shipped = json.load(handle)["sources"]["prometheus-operator"]["files"]
    with open(path, "rb") as handle:
        assert {os.path.basename(path): hashlib.sha256(handle.read()).hexdigest()} == shipped


def earlier_render(rendered, directory, name="local"):
    """A copy of an inventory's render (the rendered fixture's): what an earlier run left."""
    shutil.copytree(rendered[name][0], directory)
    return directory


def test_a_second_render_changes_nothing_and_removes_what_is_gone(rendered, tmp_path):
    # The simulated cluster's inventory: its baseline NFS volume is not one of the datasets.
    directory = earlier_render(rendered, tmp_path / "out", "local-simulated")
    before = {path: open(path, encoding="utf-8").read() for path in glob.glob(str(directory / "*.yaml"))}
    second = render(INVENTORIES["local-simulated"], directory)
    assert second.returncode == 0, second.output
    assert set(second.changed_per_host().values()) == {0}, second.tasks("changed")
    assert {path: open(path, encoding="utf-8").read() for path in glob.glob(str(directory / "*.yaml"))} == before
    # Without the datasets their files go; the rest stays.
    returncode, output = render(INVENTORIES["local-simulated"], directory, {"datasets_list": []})
    assert returncode == 0, output
    names = sorted(os.path.basename(path) for path in glob.glob(str(directory / "*.yaml")))
    assert "dataset_default_imagenet.yaml" not in names and "alluxioruntime_default_imagenet.yaml" not in names
    assert "persistentvolume_nfs-imagenet.yaml" in names and "helm-values_fluid-system_fluid.yaml" in names


def test_check_mode_writes_and_removes_nothing(rendered, tmp_path):
    fresh = tmp_path / "fresh"
    run = render(INVENTORIES["local"], fresh, check=True)
    assert run.returncode == 0, run.output
    assert sum(run.changed_per_host().values()) > 0  # it says what it would write
    assert not fresh.exists()
    # Over an earlier render: a file this one would remove stays, the others are untouched.
    earlier = earlier_render(rendered, tmp_path / "earlier")
    (earlier / "dataset_default_gone.yaml").write_text("kind: Dataset\n")
    before = {path.name: path.read_text() for path in earlier.iterdir()}
    returncode, output = render(INVENTORIES["local"], earlier, {"datasets_list": []}, check=True)
    assert returncode == 0, output
    assert {path.name: path.read_text() for path in earlier.iterdir()} == before


def test_render_refuses_a_directory_it_did_not_write(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    returncode, output = render(INVENTORIES["local"], tmp_path)
    assert returncode != 0
    assert "fluidops_render_dir=%s holds files fluidops did not write" % tmp_path in folded(output)
    assert sorted(os.listdir(tmp_path)) == ["notes.txt"]


def test_inventory_tuning_profiles_add_to_the_built_in_ones_and_win_on_a_shared_name(tmp_path):
    # fluidops_tuning_profiles (inventory) over fluidops_builtin_tuning_profiles (roles/fluidops).
    with open(os.path.join(INVENTORIES["local"], "group_vars", "all", "deployment.yml"), encoding="utf-8") as handle:
        imagenet = dict(yaml.safe_load(handle)["datasets_list"][0], placement="Shared")  # two share the nodes
    coco = dict(imagenet, name="coco", runtime=dict(imagenet["runtime"], profile="site-small-files"))
    profiles = {"site-small-files": {"properties": {"alluxio.user.block.size.bytes.default": "4MB"}},
                "dl-training": {"properties": {"alluxio.user.block.size.bytes.default": "8MB"}}}
    directory = tmp_path / "out"
    returncode, output = render(INVENTORIES["local"], directory, {"fluidops_tuning_profiles": profiles,
                                                                  "datasets_list": [imagenet, coco]})
    assert returncode == 0, output
    objects, _unused = load(str(directory))
    block_size = {name: objects[("AlluxioRuntime", name)]["spec"]["properties"].get("alluxio.user.block.size.bytes.default")
                  for name in ("imagenet", "coco")}
    assert block_size == {"imagenet": "8MB", "coco": "4MB"}
    # The inventory's dl-training replaced the built-in one whole: none of its other keys is left.
    assert "alluxio.fuse.jnifuse.enabled" not in objects[("AlluxioRuntime", "imagenet")]["spec"]["properties"]


def test_the_installed_collection_renders_the_same_by_its_collection_name(rendered, tmp_path):
    """The collection built, installed into an empty collections path and run as
    fluidops.accel.render from a directory outside the repository (tests/collection.py): every
    role, entry point, template and vars file it includes on the way is the installed copy's, and
    it writes the same files as in place."""
    installed = Installed(tmp_path / "collection")
    directory = tmp_path / "rendered"
    returncode, output = installed.playbook("render", inventory=INVENTORIES["local"], verbosity=1,
                                            extra_vars=dict(LOCAL_CHARTS, fluidops_render_dir=str(directory)))
    assert returncode == 0, output[-3000:]
    installed.check_roles_installed(output)
    in_place = rendered["local"][0]
    assert sorted(os.listdir(directory)) == sorted(os.listdir(in_place))
    for name in os.listdir(in_place):
        with open(os.path.join(in_place, name), encoding="utf-8") as theirs, open(directory / name, encoding="utf-8") as ours:
            assert ours.read() == theirs.read(), name
