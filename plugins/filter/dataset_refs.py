# -*- coding: utf-8 -*-
# Copyright: fluidops contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filter: dataset_refs, the shared data model of what the datasets role creates.

The common role exposes it as ``fluidops_datasets_model``; warm-up, training, benchmark, status
and teardown read it instead of the datasets role's own variables, so each object's name and
namespace are worked out in one place. It carries names and namespaces only, never a credential.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.fluidops.accel.plugins.module_utils.fluid.manifests import CACHELESS, RUNTIMES, node_cache_dirs


def dataset_refs(datasets, nfs_volumes=None, oss_secrets=None, namespace="default", s3_secrets=None, thin_profiles=None):
    """``{datasets, nfs_volumes, baselines, secrets, thin_profiles, namespaces}``: each dataset as ``{name,
    namespace, runtime_kind, cache, claim, volume, mounts, cache_dirs, data_subdir, warmup}`` (Fluid
    names its PVC like the dataset and its PV ``<namespace>-<name>``; cache: whether its runtime
    keeps one, a ThinRuntime does not; mounts without their options; cache_dirs: where its workers
    keep blocks on a node), each NFS baseline as ``{name, namespace, claim, volume, data_subdir}``,
    the baselines a benchmark can compare a cache with (the NFS volumes, then the datasets without a
    cache), each declared Secret of OSS or S3 keys as ``{name, namespace}``, each ThinRuntime
    profile's name (cluster-wide), and every namespace any of them lives in."""
    refs = {"datasets": [], "nfs_volumes": [], "secrets": []}
    # Malformed items are skipped here: the datasets role's checks name them (preflight).
    for item in [i for i in datasets or [] if isinstance(i, dict) and i.get("name")]:
        space = item.get("namespace") or namespace
        runtime = item.get("runtime") if isinstance(item.get("runtime"), dict) else {}
        kind = runtime.get("type") if runtime.get("type") in RUNTIMES else "alluxio"
        ref = {"name": item["name"], "namespace": space, "runtime_kind": RUNTIMES[kind], "cache": kind not in CACHELESS,
               "claim": item["name"],
               "volume": "%s-%s" % (space, item["name"]),
               # Where the data is in the dataset's volume (the training job's DATA_DIR); a mount's
               # options can hold credentials and stay out.
               "mounts": [{key: mount[key] for key in ("name", "mount_point", "path") if key in mount}
                          for mount in item.get("mounts") or [] if isinstance(mount, dict)],
               "cache_dirs": node_cache_dirs(runtime.get("tiers"), space, item["name"])}
        if item.get("data_subdir"):
            ref["data_subdir"] = item["data_subdir"]
        if item.get("warmup") is not None:
            ref["warmup"] = item["warmup"]
        refs["datasets"].append(ref)
    for item in [i for i in nfs_volumes or [] if isinstance(i, dict) and i.get("name")]:
        ref = {"name": item["name"], "namespace": item.get("namespace") or namespace, "claim": item["name"], "volume": item["name"]}
        if item.get("data_subdir"):
            ref["data_subdir"] = item["data_subdir"]
        refs["nfs_volumes"].append(ref)
    for name, credentials in sorted(list((oss_secrets or {}).items()) + list((s3_secrets or {}).items())):
        space = credentials.get("namespace") if isinstance(credentials, dict) else None
        refs["secrets"].append({"name": str(name), "namespace": space or namespace})
    refs["namespaces"] = sorted({ref["namespace"] for group in refs.values() for ref in group})
    refs["baselines"] = refs["nfs_volumes"] + [ref for ref in refs["datasets"] if not ref["cache"]]
    refs["thin_profiles"] = [str(item["name"]) for item in thin_profiles or [] if isinstance(item, dict) and item.get("name")]
    return refs


class FilterModule(object):
    def filters(self):
        return {"dataset_refs": dataset_refs}
