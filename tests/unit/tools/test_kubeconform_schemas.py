"""tools/kubeconform/schemas.py on a small swagger and CRD of its own: kubeconform's schemas and the
collection's come from the same strict transformation; the collection's files are self-contained,
small and written the same way twice. The shipped files are self-contained too, and carry the
generator's quantity pattern (tests/render regenerates them from the pinned sources)."""

import json
import os

import pytest
import yaml

from kubeconform import schemas

SHIPPED_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "plugins", "plugin_utils", "schemas")
META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
SWAGGER = {
    "definitions": {
        META: {"description": "ObjectMeta", "properties": {"name": {"type": "string", "description": "Name"},
                                                           "labels": {"type": "object", "additionalProperties": {"type": "string"}}},
               "type": "object"},
        "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string", "description": "a quantity"},
        "io.k8s.api.core.v1.ClaimSpec": {"properties": {"storage": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.api.resource.Quantity"},
                                                        "modes": {"type": "array", "items": {"type": "string"}}}, "type": "object"},
        "io.k8s.api.core.v1.Claim": {"properties": {"apiVersion": {"type": "string"}, "kind": {"type": "string"},
                                                    "metadata": {"$ref": "#/definitions/" + META},
                                                    "spec": {"$ref": "#/definitions/io.k8s.api.core.v1.ClaimSpec", "description": "the spec"}},
                                     "type": "object", "x-kubernetes-group-version-kind": [{"group": "", "kind": "Claim", "version": "v1"}]},
        "io.k8s.api.core.v1.Unrelated": {"properties": {"x": {"type": "string"}}, "type": "object"},
    },
    "paths": {"/api/v1/namespaces/{namespace}/claims": {"post": {"x-kubernetes-group-version-kind": {"group": "", "kind": "Claim", "version": "v1"}}}},
}
CRD = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "spec": {
    "group": "data.example.io", "names": {"kind": "Cache"}, "scope": "Cluster", "versions": [{"name": "v1", "schema": {"openAPIV3Schema": {
        "type": "object", "properties": {
            "metadata": {"type": "object"},
            "spec": {"type": "object", "description": "Spec", "properties": {
                "quota": {"anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": schemas.QUANTITY_PATTERN, "x-kubernetes-int-or-string": True},
                "options": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                "description": {"type": "string", "default": "a field named description"}}}}}}}]}}
SHIPPED = [("kubernetes", "", "v1", "Claim"), ("example", "data.example.io", "v1", "Cache")]
VERSIONS = {"kubernetes": "v1.33.13", "example": "v0.1.0"}


@pytest.fixture
def sources(tmp_path):
    swagger = tmp_path / "swagger.json"
    swagger.write_text(json.dumps(SWAGGER))
    crd = tmp_path / "cache-crd.yaml"
    crd.write_text(yaml.safe_dump(CRD))
    return str(swagger), str(crd)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def local_refs_resolve(schema):
    text = json.dumps(schema)
    names = {ref.rsplit("/", 1)[1] for ref in _refs(schema)}
    return all(ref.startswith("#/definitions/") for ref in _refs(schema)) and names <= set(schema.get("definitions", {})) and "../" not in text


def _refs(node):
    if isinstance(node, dict):
        if "$ref" in node:
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def test_the_collection_is_self_contained_compact_and_the_same_twice(sources, tmp_path):
    swagger, crd = sources
    out = tmp_path / "shipped"
    schemas.collection(str(out), swagger, [crd], VERSIONS, SHIPPED)
    first = {name: (out / name).read_bytes() for name in os.listdir(out)}
    assert sorted(first) == ["core_v1_claim.json", "data.example.io_v1_cache.json", "index.json"]
    claim = load(out / "core_v1_claim.json")
    # Only what the kind references, its refs local; no descriptions; strict and nullable.
    assert sorted(claim["definitions"]) == sorted([META, "io.k8s.api.core.v1.ClaimSpec", "io.k8s.apimachinery.pkg.api.resource.Quantity"])
    assert local_refs_resolve(claim) and "description" not in json.dumps(claim) and "x-kubernetes" not in json.dumps(claim)
    assert claim["additionalProperties"] is False
    assert claim["properties"]["spec"] == {"anyOf": [{"$ref": "#/definitions/io.k8s.api.core.v1.ClaimSpec"}, {"type": "null"}]}
    assert claim["definitions"]["io.k8s.apimachinery.pkg.api.resource.Quantity"] == {
        "oneOf": [{"type": "string", "pattern": schemas.QUANTITY_PATTERN}, {"type": "number"}]}
    # A custom resource: its metadata is ObjectMeta, int-or-string rewritten, a property named description kept.
    cache = load(out / "data.example.io_v1_cache.json")
    assert local_refs_resolve(cache) and sorted(cache["definitions"]) == [META]
    assert cache["properties"]["metadata"] == {"anyOf": [{"$ref": "#/definitions/" + META}, {"type": "null"}]}
    spec = cache["properties"]["spec"]
    assert spec["properties"]["quota"] == {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}], "pattern": schemas.QUANTITY_PATTERN}
    assert spec["properties"]["description"] == {"type": ["string", "null"]}
    assert "additionalProperties" not in spec["properties"]["options"]
    index = load(out / "index.json")
    assert index["kinds"] == {"v1/Claim": {"file": "core_v1_claim.json", "namespaced": True,
                                           "source": "kubernetes v1.33.13 k8s.io/kubernetes/api/openapi-spec/swagger.json"},
                              "data.example.io/v1/Cache": {"file": "data.example.io_v1_cache.json", "namespaced": False,
                                                           "source": "example v0.1.0 cache-crd.yaml"}}
    assert index["quantity_pattern"] == schemas.QUANTITY_PATTERN and sorted(index["sources"]) == ["example", "kubernetes"]
    # The same sources give the same bytes; a file of a kind no longer shipped goes.
    (out / "core_v1_gone.json").write_text("{}")
    schemas.collection(str(out), swagger, [crd], VERSIONS, SHIPPED)
    assert {name: (out / name).read_bytes() for name in os.listdir(out)} == first


def test_kubeconform_gets_the_same_strict_schemas(sources, tmp_path):
    swagger, crd = sources
    schemas.kubeconform(str(tmp_path / "kc"), swagger, [crd])
    claim = load(tmp_path / "kc" / "v1" / "claim_v1.json")
    assert claim["properties"]["spec"]["anyOf"] == [{"$ref": "../_definitions.json#/definitions/io.k8s.api.core.v1.ClaimSpec"}, {"type": "null"}]
    definitions = load(tmp_path / "kc" / "_definitions.json")["definitions"]
    assert definitions[META]["description"] == "ObjectMeta"  # kubeconform's keep what the collection's drop
    assert definitions["io.k8s.apimachinery.pkg.api.resource.Quantity"]["oneOf"][0]["pattern"] == schemas.QUANTITY_PATTERN
    cache = load(tmp_path / "kc" / "data.example.io" / "cache_v1.json")
    assert cache["properties"]["metadata"]["anyOf"][0] == {"$ref": "../_definitions.json#/definitions/" + META}
    shipped_cache = schemas.compact(json.loads(json.dumps(cache)))
    assert shipped_cache["properties"]["spec"]["properties"]["quota"]["pattern"] == schemas.QUANTITY_PATTERN


def test_crds_without_the_quantity_pattern_stop_the_generator(sources, tmp_path):
    swagger, _unused = sources
    crd = json.loads(json.dumps(CRD))
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["quota"]["pattern"] = "^[0-9]+$"
    path = tmp_path / "other-crd.yaml"
    path.write_text(yaml.safe_dump(crd))
    with pytest.raises(SystemExit, match="no CRD carries QUANTITY_PATTERN"):
        schemas.collection(str(tmp_path / "out"), swagger, [str(path)], VERSIONS, SHIPPED)


def test_the_shipped_files_are_self_contained_and_carry_the_generators_quantity_pattern():
    index = load(os.path.join(SHIPPED_DIR, "index.json"))
    assert index["quantity_pattern"] == schemas.QUANTITY_PATTERN
    shipped = {("%s/%s" % (group, version) if group else version) + "/" + kind for _unused, group, version, kind in schemas.SHIPPED}
    assert set(index["kinds"]) == shipped
    assert sorted(os.listdir(SHIPPED_DIR)) == sorted(["index.json"] + [entry["file"] for entry in index["kinds"].values()])
    for entry in index["kinds"].values():
        assert local_refs_resolve(load(os.path.join(SHIPPED_DIR, entry["file"]))), entry["file"]
