# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks Kubernetes objects offline, before anything changes, as the apiserver and the
controllers of the pinned versions would.

First against the JSON schemas shipped in schemas/ beside this file: the kinds the bundle applies,
written by tools/kubeconform/schemas.py from the swagger.json of k8s.io/kubernetes and the CRDs of
Fluid, mpi-operator and the Prometheus Operator (ServiceMonitor), with the transformation the render
tests' kubeconform schemas get (strict like the apiserver's strict field validation; null taken for
any field). schemas/index.json names the versions. Then what the apiserver and the controllers check
in code, which no schema carries: names, namespaces, label and annotation keys, label values, Secret
and ConfigMap keys (see code_problems; each check cites its source).

Each problem is one line an operator can act on, and Secret values never appear in one:

    <Kind> <namespace>/<name>: <field path>=<value> <what is allowed>
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import json
import os
import re

from ansible_collections.fluidops.accel.plugins.module_utils.common.checks import (
    NAME_RULES,
    InputError,
    key_problem,
    label_value_problem,
    name_problem,
    qualified_name_problem,
)

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")
REDACTED = "<redacted>"
QUANTITY_HELP = "is not a Kubernetes quantity such as 100Gi, 1.5G or 500M"
TYPE_NAMES = {"object": "a map", "array": "a list", "string": "a string", "integer": "a whole number", "number": "a number",
              "boolean": "true or false", "null": "null"}

# The grammar of metadata.name per kind (what is not here: "subdomain").
#   Namespace: ValidateNamespaceName = NameIsDNSLabel (k8s.io/apimachinery/pkg/api/validation/generic.go,
#     used by ValidateNamespace in k8s.io/kubernetes/pkg/apis/core/validation/validation.go).
#   Secret, ConfigMap, PersistentVolume (and claims), Node, Pod: ValidateSecretName, ValidateConfigMapName,
#     ValidatePersistentVolumeName, ValidateNodeName, ValidatePodName = NameIsDNSSubdomain (same file).
#   Job: ValidateReplicationControllerName = NameIsDNSSubdomain (pkg/apis/batch/validation/validation.go ValidateJob).
#   Custom resources: NameIsDNSSubdomain (k8s.io/apiextensions-apiserver/pkg/registry/customresource/validator.go).
#   Dataset, AlluxioRuntime, JindoRuntime, ThinRuntime: Fluid 1.0.8's controllers refuse a name that is not a DNS-1035 label
#     and retry forever with a warning event (pkg/controllers/v1alpha1/dataset/dataset_controller.go reconcileDataset
#     step 0; pkg/controllers/runtime_controller.go ReconcileInternal step 2, which every runtime controller runs).
NAME_GRAMMAR = {"Namespace": "label", "Dataset": "dns1035", "AlluxioRuntime": "dns1035", "JindoRuntime": "dns1035",
                "ThinRuntime": "dns1035"}
FLUID_NAMES = ("Dataset", "AlluxioRuntime", "JindoRuntime", "ThinRuntime")
ANNOTATIONS_LIMIT = 256 * 1024  # TotalAnnotationSizeLimitB, k8s.io/apimachinery/pkg/api/validation/objectmeta.go
DATA_LIMIT = 1024 * 1024  # MaxSecretSize, k8s.io/kubernetes/pkg/apis/core/types.go (Secrets and ConfigMaps)
# Helm 3 takes release names of at most 53 characters (helm.sh/helm/v3 pkg/chartutil/validate_name.go).
HELM_RELEASE_LIMIT = 53
# Fields of a Secret whose values may be shown; any other value of a Secret is redacted.
SECRET_SHOWN = ("apiVersion", "kind", "metadata", "type", "immutable")


class SchemaCheckError(Exception):
    """The check cannot run (no jsonschema, unreadable schemas, not a list of objects)."""


_cache = {}


def _jsonschema():
    """The jsonschema package, imported when a check first runs: Ansible imports the filters that
    use this module again in each task's process, and jsonschema's import costs more CPU than most
    tasks; a missing package is reported then, not when Ansible loads the plugins."""
    if "jsonschema" not in _cache:
        try:
            import jsonschema  # pylint: disable=import-outside-toplevel
            import jsonschema.validators  # pylint: disable=import-outside-toplevel
        except ImportError as exc:
            raise SchemaCheckError("the schema checks need the Python package jsonschema on the controller "
                                   "(meta/ee-requirements.txt): %s" % exc) from exc
        _cache["jsonschema"] = jsonschema
    return _cache["jsonschema"]


def index():
    """schemas/index.json: {"kinds": {"<apiVersion>/<kind>": {"file", "namespaced", "source"}}, "sources": ...}."""
    if "index" not in _cache:
        try:
            with open(os.path.join(SCHEMAS, "index.json"), encoding="utf-8") as handle:
                _cache["index"] = json.load(handle)
        except (OSError, ValueError) as exc:
            raise SchemaCheckError("cannot read the shipped schemas' index %s: %s" % (os.path.join(SCHEMAS, "index.json"), exc)) from exc
    return _cache["index"]


def _go_pattern(validator, pattern, instance, schema):
    """pattern as the apiserver reads it (Go's RE2): '$' ends the text. Python's '$' also matches
    before a final newline, so "10Gi\\n" would pass."""
    if not validator.is_type(instance, "string"):
        return
    compiled = _cache.get(("pattern", pattern))
    if compiled is None:
        compiled = _cache[("pattern", pattern)] = re.compile(re.sub(r"(?<!\\)\$$", r"\\Z", pattern))
    if not compiled.search(instance):
        yield _jsonschema().ValidationError("%r does not match %r" % (instance, pattern))


def validator(api_version, kind):
    """The jsonschema validator of a shipped kind, or None when it is not shipped."""
    key = "%s/%s" % (api_version, kind)
    entry = index()["kinds"].get(key)
    if entry is None:
        return None
    if ("validator", key) not in _cache:
        jsonschema = _jsonschema()
        with open(os.path.join(SCHEMAS, entry["file"]), encoding="utf-8") as handle:
            schema = json.load(handle)
        # Draft 4: the OpenAPI v2 and v3.0 schema objects the swagger and the CRDs use are based on it.
        cls = jsonschema.validators.extend(jsonschema.Draft4Validator, {"pattern": _go_pattern})
        _cache[("validator", key)] = cls(schema)
    return _cache[("validator", key)]


def describe(obj):
    """<Kind> <namespace>/<name>, as the problems start."""
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = metadata.get("name") or metadata.get("generateName") or "(no name)"
    namespace = metadata.get("namespace")
    return "%s %s" % (obj.get("kind") or "(no kind)", "%s/%s" % (namespace, name) if namespace else name)


_PLAIN_KEY = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*\Z")


def field_path(parts):
    """spec.tieredstore.levels[0].quota; a key that is not a plain word in brackets (labels[app.kubernetes.io/name])."""
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += "[%d]" % part
        elif _PLAIN_KEY.match(str(part)):
            text += ("." if text else "") + str(part)
        else:
            text += "[%s]" % part
    return text


def show(value):
    """A value as a problem line shows it: scalars as written, maps and lists as short JSON."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return value if value and not re.search(r"\s", value) else json.dumps(value)
    if isinstance(value, (int, float)):
        return str(value)
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def type_name(value):
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    return "null" if value is None else type(value).__name__


def _types(expected):
    names = [TYPE_NAMES.get(name, name) for name in ([expected] if isinstance(expected, str) else expected) if name != "null"]
    return " or ".join(names) or "null"


def _is_quantity(schema):
    """Whether a schema is a quantity's: it carries the quantity pattern (controller-gen's, which the
    generator also gives the built-ins; index.json holds it), itself or in a branch."""
    pattern = index()["quantity_pattern"]
    return isinstance(schema, dict) and (schema.get("pattern") == pattern or any(
        isinstance(branch, dict) and branch.get("pattern") == pattern for branch in schema.get("oneOf", []) + schema.get("anyOf", [])))


class _Reporter(object):
    """Turns jsonschema's errors for one object into problem lines."""

    def __init__(self, obj):
        self.obj = obj
        self.prefix = describe(obj)
        self.secret = obj.get("kind") == "Secret"

    def value(self, path, value):
        if self.secret and (not path or path[0] not in SECRET_SHOWN):
            return REDACTED
        return show(value)

    def line(self, path, text, value=None, with_value=True):
        where = field_path(path)
        if with_value:
            return "%s: %s=%s %s" % (self.prefix, where or "(the object)", self.value(path, value), text)
        return "%s: %s %s" % (self.prefix, where or "(the object)", text)

    def problems(self, error):
        """The lines for one of jsonschema's errors, looking into anyOf/oneOf for the branch meant."""
        keyword, path, instance, schema = error.validator, list(error.absolute_path), error.instance, error.schema
        if keyword in ("anyOf", "oneOf"):
            if _is_quantity(schema) and not isinstance(instance, (dict, list)):
                return [self.line(path, QUANTITY_HELP, instance)]
            branches = {}
            for sub in error.context:
                branches.setdefault(sub.relative_schema_path[0], []).append(sub)
            # A branch whose only complaint is the value's own type is not the one meant.
            meant = [errors for errors in branches.values()
                     if not (len(errors) == 1 and errors[0].validator == "type" and not errors[0].relative_path)]
            if meant and len(branches) == len(schema.get(keyword, [])):
                lines = []
                for sub in min(meant, key=len):
                    lines.extend(self.problems(sub))
                return lines
            if _is_quantity(schema):
                return [self.line(path, QUANTITY_HELP, instance)]
            if len(branches) < len(schema.get(keyword, [])):
                return [self.line(path, "matches more than one of the forms this field takes", instance)]
            if keyword == "oneOf" and not meant:
                expected = [branch.get("type") for branch in schema[keyword] if isinstance(branch, dict) and "type" in branch]
                if len(expected) == len(schema[keyword]):
                    return [self.line(path, "must be %s, got %s" % (_types(expected), type_name(instance)), instance)]
            return [self.line(path, "matches none of the forms this field takes", instance)]
        if keyword == "type":
            if _is_quantity(schema):
                return [self.line(path, QUANTITY_HELP, instance)]
            return [self.line(path, "must be %s, got %s" % (_types(error.validator_value), type_name(instance)), instance)]
        if keyword == "additionalProperties":
            allowed = sorted(schema.get("properties", {}))
            patterns = [re.compile(pattern) for pattern in schema.get("patternProperties", {})]
            extra = [key for key in instance if key not in allowed and not any(p.search(key) for p in patterns)]
            where = field_path(path)
            return [self.line(path + [key], "is not a field of %s%s (allowed: %s)" % (self.obj.get("kind"), " " + where if where else "",
                                                                                      ", ".join(allowed)), instance[key])
                    for key in extra]
        if keyword == "required":
            return [self.line(path + [name], "is required", with_value=False)
                    for name in error.validator_value if isinstance(instance, dict) and name not in instance]
        if keyword == "enum":
            return [self.line(path, "is not one of %s" % ", ".join(show(choice) for choice in error.validator_value if choice is not None),
                              instance)]
        if keyword == "pattern":
            if error.validator_value == index()["quantity_pattern"]:
                return [self.line(path, QUANTITY_HELP, instance)]
            return [self.line(path, "does not match the pattern %s" % error.validator_value, instance)]
        if keyword == "minimum":
            exclusive = schema.get("exclusiveMinimum") is True
            return [self.line(path, "must be %s %s" % ("more than" if exclusive else "at least", show(error.validator_value)), instance)]
        if keyword == "maximum":
            exclusive = schema.get("exclusiveMaximum") is True
            return [self.line(path, "must be %s %s" % ("less than" if exclusive else "at most", show(error.validator_value)), instance)]
        limits = {"minItems": "must have at least %s items", "maxItems": "must have at most %s items",
                  "minLength": "must be at least %s characters long", "maxLength": "must be at most %s characters long",
                  "minProperties": "must have at least %s entries", "maxProperties": "must have at most %s entries"}
        if keyword in limits:
            return [self.line(path, limits[keyword] % error.validator_value, instance)]
        if keyword == "uniqueItems":
            return [self.line(path, "must not repeat an item", instance)]
        return [self.line(path, "is not allowed by the schema's %s: %s" % (keyword, show(error.validator_value)), instance)]


def schema_problems(obj):
    """The problems the shipped schema of the object's apiVersion and kind finds in it."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    check = validator(api_version, kind) if isinstance(api_version, str) and isinstance(kind, str) else None
    if check is None:
        known = sorted(index()["kinds"])
        same_kind = [key.rsplit("/", 1)[0] for key in known if key.rsplit("/", 1)[1] == kind]
        hint = "; %s is %s" % (kind, " or ".join(same_kind)) if same_kind else ""
        return ["%s: apiVersion=%s kind=%s is not a kind fluidops knows the schema of%s (known: %s)"
                % (describe(obj), show(api_version), show(kind), hint, ", ".join(known))]
    reporter = _Reporter(obj)
    # In the order of the fields they name (each line starts "<Kind> <namespace>/<name>: <field>").
    return sorted({line for error in check.iter_errors(obj) for line in reporter.problems(error)})


def _metadata_problems(line, metadata, path):
    """Labels and annotations of an object or a pod template (ValidateLabels in
    k8s.io/apimachinery/pkg/apis/meta/v1/validation, ValidateAnnotations in .../pkg/api/validation/objectmeta.go)."""
    found = []
    labels = metadata.get("labels")
    if isinstance(labels, dict):
        for key, value in labels.items():
            problem = qualified_name_problem(str(key))
            if problem:
                found.append(line(path + ["labels"], "has the label key %s, which %s" % (show(str(key)), problem)))
            problem = label_value_problem(value) if isinstance(value, str) else None
            if problem:
                found.append(line(path + ["labels", key], "=%s %s" % (show(value), problem)))
    annotations = metadata.get("annotations")
    if isinstance(annotations, dict):
        for key in annotations:
            problem = qualified_name_problem(str(key).lower())
            if problem:
                found.append(line(path + ["annotations"], "has the annotation key %s, which %s" % (show(str(key)), problem)))
        size = sum(len(str(key).encode()) + len(str(value).encode()) for key, value in annotations.items() if isinstance(value, str))
        if size > ANNOTATIONS_LIMIT:
            found.append(line(path + ["annotations"], "hold %d bytes; keys and values together may hold at most %d" % (size, ANNOTATIONS_LIMIT)))
    return found


def code_problems(obj):
    """What the apiserver and the controllers check in code and the schemas do not carry."""
    prefix = describe(obj)

    def line(path, text):
        where = field_path(path)
        return "%s: %s%s%s" % (prefix, where, "" if text.startswith("=") else " ", text)

    found = []
    kind = obj.get("kind")
    entry = index()["kinds"].get("%s/%s" % (obj.get("apiVersion"), kind), {})
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = metadata.get("name")
    # metadata.name (ValidateObjectMetaAccessor in k8s.io/apimachinery/pkg/api/validation/objectmeta.go: name or
    # generateName is required; the grammar per kind is NAME_GRAMMAR's).
    if not name and not metadata.get("generateName"):
        found.append(line(["metadata", "name"], "is required"))
    elif isinstance(name, str) and name:
        problem = name_problem(name, NAME_GRAMMAR.get(kind, "subdomain"))
        if problem and kind in FLUID_NAMES:
            found.append(line(["metadata", "name"], "=%s %s; Fluid 1.0.8's controller refuses any other %s name and retries forever"
                              % (show(name), problem, kind)))
        elif problem:
            found.append(line(["metadata", "name"], "=%s %s" % (show(name), problem)))
        elif kind == "Job" and len(name) > 63:
            # The apiserver copies a Job's name into its pod template's label batch.kubernetes.io/job-name
            # (pkg/registry/batch/job/strategy.go generateSelector), and a label value holds at most 63 characters.
            found.append(line(["metadata", "name"], "=%s is longer than 63 characters: the apiserver makes it the value of the "
                                                    "label batch.kubernetes.io/job-name of the Job's pods" % show(name)))
        elif kind == "DataLoad" and len(name) > HELM_RELEASE_LIMIT - len("-loader"):
            # Fluid installs a DataLoad's loader as the Helm release <name>-loader (pkg/utils/dataload.go
            # GetDataLoadReleaseName, used by pkg/controllers/v1alpha1/dataload/implement.go).
            found.append(line(["metadata", "name"], "=%s is longer than %d characters: Fluid installs the loader as the Helm release "
                                                    "%s-loader, and Helm takes at most %d" % (show(name), HELM_RELEASE_LIMIT - 7, name,
                                                                                              HELM_RELEASE_LIMIT)))
    # metadata.namespace: a DNS-1123 label (ValidateNamespaceName, k8s.io/apimachinery/pkg/api/validation/generic.go).
    # On a cluster-scoped kind the apiserver clears it (EnsureObjectNamespaceMatchesRequestNamespace,
    # k8s.io/apiserver/pkg/registry/rest/create.go): no problem there.
    namespace = metadata.get("namespace")
    if entry.get("namespaced") and namespace is not None:
        problem = name_problem(namespace, "label")
        if problem:
            found.append(line(["metadata", "namespace"], "=%s %s" % (show(namespace), problem)))
    found.extend(_metadata_problems(line, metadata, ["metadata"]))
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if kind == "Secret":
        found.extend(_secret_problems(line, obj))
    elif kind == "ConfigMap":
        found.extend(_config_map_problems(line, obj))
    elif kind == "Job":
        # ValidatePodTemplateSpec (k8s.io/kubernetes/pkg/apis/core/validation/validation.go) checks the template's labels.
        template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
        if isinstance(template.get("metadata"), dict):
            found.extend(_metadata_problems(line, template["metadata"], ["spec", "template", "metadata"]))
    elif kind == "MPIJob":
        found.extend(_mpijob_problems(line, obj, spec))
    return found


def _secret_problems(line, obj):
    """ValidateSecret (k8s.io/kubernetes/pkg/apis/core/validation/validation.go): every key of data is
    IsConfigMapKey and the values hold at most MaxSecretSize bytes. stringData's keys are data's too: the
    apiserver merges stringData into data before it validates (Convert_v1_Secret_To_core_Secret,
    pkg/apis/core/v1/conversion.go). data's values are base64 (its JSON decoding of []byte). Values are never shown."""
    found, size = [], 0
    for field in ("data", "stringData"):
        values = obj.get(field)
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            problem = key_problem(str(key))
            if problem:
                found.append(line([field], "has the key %s, which %s" % (show(str(key)), problem)))
            if not isinstance(value, str):
                continue
            if field == "data":
                try:
                    size += len(base64.b64decode(re.sub(r"[\r\n]", "", value), validate=True))
                except (binascii.Error, ValueError):
                    found.append(line([field, key], "=%s is not base64 (data takes base64; stringData takes plain text)" % REDACTED))
            else:
                size += len(value.encode())
    if size > DATA_LIMIT:
        found.append(line(["data"], "holds %d bytes; a Secret holds at most %d" % (size, DATA_LIMIT)))
    return found


def _config_map_problems(line, obj):
    """ValidateConfigMap (k8s.io/kubernetes/pkg/apis/core/validation/validation.go): data and binaryData keys
    are IsConfigMapKey, none in both, at most MaxSecretSize bytes of values."""
    found, size = [], 0
    data = obj.get("data") if isinstance(obj.get("data"), dict) else {}
    binary = obj.get("binaryData") if isinstance(obj.get("binaryData"), dict) else {}
    for field, values in (("data", data), ("binaryData", binary)):
        for key, value in values.items():
            problem = key_problem(str(key))
            if problem:
                found.append(line([field], "has the key %s, which %s" % (show(str(key)), problem)))
            if field == "data" and key in binary:
                found.append(line([field], "has the key %s, which binaryData has too" % show(str(key))))
            if isinstance(value, str):
                size += len(value.encode()) if field == "data" else len(value) * 3 // 4
    if size > DATA_LIMIT:
        found.append(line([], "holds %d bytes of data; a ConfigMap holds at most %d" % (size, DATA_LIMIT)))
    return found


def _mpijob_problems(line, obj, spec):
    """What mpi-operator v0.7.0 checks before it runs an MPIJob (pkg/apis/kubeflow/validation/validation.go
    ValidateMPIJob, after the defaults of pkg/apis/kubeflow/v2beta1/default.go); it refuses the job with a
    warning event and does not retry. The CRD's schema carries none of it."""
    found = []
    replica_specs = spec.get("mpiReplicaSpecs")
    replica_specs = replica_specs if isinstance(replica_specs, dict) else {}
    # validateMPIJobName: the last worker's pod and host name, <name>-worker-<replicas - 1>, is a DNS-1035 label.
    worker = replica_specs.get("Worker") if isinstance(replica_specs.get("Worker"), dict) else {}
    replicas = worker.get("replicas")
    name = (obj.get("metadata") or {}).get("name")
    if isinstance(name, str) and name:
        hostname = "%s-worker-%d" % (name, replicas - 1 if isinstance(replicas, int) and replicas > 0 else 0)
        if name_problem(hostname, "dns1035"):
            found.append(line(["metadata", "name"], "=%s makes the last worker's host name %s, which is not %s"
                              % (show(name), hostname, NAME_RULES["dns1035"][2])))
    for key in replica_specs:
        if key not in ("Launcher", "Worker"):
            found.append(line(["spec", "mpiReplicaSpecs", key], "is not a replica type mpi-operator runs (Launcher, Worker)"))
    if "Launcher" not in replica_specs:
        found.append(line(["spec", "mpiReplicaSpecs", "Launcher"], "is required"))
    defaults = {"Launcher": (1, "OnFailure"), "Worker": (0, "Never")}
    for key in ("Launcher", "Worker"):
        replica = replica_specs.get(key)
        if not isinstance(replica, dict):
            continue
        path = ["spec", "mpiReplicaSpecs", key]
        count = replica.get("replicas", defaults[key][0])
        if key == "Launcher" and isinstance(count, int) and count != 1:
            found.append(line(path + ["replicas"], "=%s must be 1" % show(count)))
        if key == "Worker" and isinstance(count, int) and count < 1:
            found.append(line(path + ["replicas"], "=%s must be at least 1 (unset is 0)" % show(count)))
        restart = replica.get("restartPolicy") or defaults[key][1]
        if restart not in ("Never", "OnFailure"):
            found.append(line(path + ["restartPolicy"], "=%s is not one of Never, OnFailure" % show(restart)))
        template = replica.get("template") if isinstance(replica.get("template"), dict) else {}
        pod_spec = template.get("spec") if isinstance(template.get("spec"), dict) else {}
        if not pod_spec.get("containers"):
            found.append(line(path + ["template", "spec", "containers"], "must list at least one container"))
        if isinstance(template.get("metadata"), dict):
            # The operator creates the pods with these labels: the apiserver checks them there.
            found.extend(_metadata_problems(line, template["metadata"], path + ["template", "metadata"]))
    run_policy = spec.get("runPolicy") if isinstance(spec.get("runPolicy"), dict) else {}
    clean = run_policy.get("cleanPodPolicy") or "None"
    if clean not in ("None", "Running", "All"):
        found.append(line(["spec", "runPolicy", "cleanPodPolicy"], "=%s is not one of None, Running, All" % show(clean)))
    for field in ("ttlSecondsAfterFinished", "activeDeadlineSeconds", "backoffLimit"):
        if isinstance(run_policy.get(field), int) and run_policy[field] < 0:
            found.append(line(["spec", "runPolicy", field], "=%s must not be negative" % show(run_policy[field])))
    managed_by = run_policy.get("managedBy")
    if managed_by is not None and managed_by not in ("kubeflow.org/mpi-operator", "kueue.x-k8s.io/multikueue"):
        found.append(line(["spec", "runPolicy", "managedBy"], "=%s is not one of kubeflow.org/mpi-operator, kueue.x-k8s.io/multikueue"
                          % show(managed_by)))
    if isinstance(spec.get("slotsPerWorker"), int) and spec["slotsPerWorker"] < 0:
        found.append(line(["spec", "slotsPerWorker"], "=%s must not be negative" % show(spec["slotsPerWorker"])))
    return found


def problems(objects):
    """Every problem in a list of objects: the schema's first, then the checks in code (which an
    object of an unknown kind does not get)."""
    if not isinstance(objects, (list, tuple)):
        raise SchemaCheckError("expected a list of Kubernetes objects, got %s" % type_name(objects))
    _jsonschema()
    found = []
    for number, obj in enumerate(objects):
        if not isinstance(obj, dict):
            found.append("item %d: %s is not a Kubernetes object (a map with apiVersion, kind and metadata)" % (number, type_name(obj)))
            continue
        lines = schema_problems(obj)
        if "%s/%s" % (obj.get("apiVersion"), obj.get("kind")) in index()["kinds"]:
            lines += [line for line in code_problems(obj) if line not in lines]
        found.extend(lines)
    return found


def require_accepted(objects, where):
    """The objects built from one variable, as the API server and Fluid would take them: what they
    refuse raises InputError naming the variable ``where``."""
    found = problems(objects)
    if found:
        raise InputError("%s would be refused: %s" % (where, "; ".join(found)))
