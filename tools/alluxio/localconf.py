#!/usr/bin/env python
"""Configuration of a real Alluxio from the bundle's tuning profiles, the way a cluster gets it.

The standalone chart's values come from the collection's own code (module_utils/alluxio_chart.py
build_values, which checks the properties and merges the profile); Helm renders the real Alluxio
chart with them; this script writes what that chart hands its pods:

- conf/alluxio-env.sh: the chart's `alluxio-config` ConfigMap (ALLUXIO_JAVA_OPTS, then one
  ALLUXIO_<PROCESS>_JAVA_OPTS per process), sourced by tools/alluxio/bin/alluxio as the image's
  entrypoint sources its environment; then what differs on this machine, each line saying why;
- fuse.args: the FUSE DaemonSet's container args (`fuse --fuse-opts=... <mount point> <path>`);
- values.yaml: the values, for reading.

So a property name or value Alluxio rejects stops the processes started from it, as it would
stop the pods. Usage:
  localconf.py --out DIR --master-host IP [--profile dl-training] [--root-ufs /underFSStorage]
"""

import argparse
import os
import shlex
import shutil
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, ".collections"))
# pylint: disable=wrong-import-position
from ansible_collections.fluidops.accel.plugins.module_utils.alluxio_chart import build_values  # noqa: E402
from ansible_collections.fluidops.accel.plugins.module_utils.fluid_manifests import DatasetError  # noqa: E402
from ansible_collections.fluidops.accel.plugins.module_utils.quantity import parse_bytes  # noqa: E402

# The profiles size the JVMs for 336 GiB, 82-core nodes; this machine has a few GiB per process
# and 2 cores. These caps come after the profile's options (the JVM takes the last -Xmx).
HEAP_CAPS = {
    "ALLUXIO_MASTER_JAVA_OPTS": ["-Xms128m", "-Xmx1g"],
    "ALLUXIO_JOB_MASTER_JAVA_OPTS": ["-Xms64m", "-Xmx384m"],
    "ALLUXIO_WORKER_JAVA_OPTS": ["-Xms128m", "-Xmx1g", "-XX:MaxDirectMemorySize=1g"],
    "ALLUXIO_JOB_WORKER_JAVA_OPTS": ["-Xms64m", "-Xmx512m"],
    "ALLUXIO_FUSE_JAVA_OPTS": ["-Xms128m", "-Xmx1g", "-XX:MaxDirectMemorySize=1g"],
}


def local_settings():
    """The standalone path's settings of the simulated cluster's inventory (tiers on the nodes' ramfs)."""
    with open(os.path.join(REPO, "inventory", "local-simulated", "group_vars", "all", "deployment.yml"), encoding="utf-8") as handle:
        inventory = yaml.safe_load(handle)
    with open(os.path.join(REPO, "roles", "alluxio", "defaults", "main.yml"), encoding="utf-8") as handle:
        defaults = yaml.safe_load(handle)
    with open(os.path.join(REPO, "roles", "fluidops", "defaults", "main", "tuning_profiles.yml"), encoding="utf-8") as handle:
        profiles = yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"]
    return inventory, defaults, profiles


def chart_values(profile, root_ufs, image_tag):
    inventory, defaults, profiles = local_settings()
    if profile not in profiles:
        raise SystemExit("FLUIDOPS_ALLUXIO_PROFILE=%s is not a built-in profile (roles/fluidops/defaults/main/tuning_profiles.yml) (%s)"
                         % (profile, ", ".join(sorted(profiles))))
    params = {
        "profile": profile, "profiles": profiles, "image": defaults["alluxio_image"], "image_tag": image_tag,
        "tiers": inventory.get("alluxio_tiers", defaults["alluxio_tiers"]),
        "root_ufs": root_ufs, "journal": {"type": "NOOP"},
        # Short-circuit reads need the domain socket the chart shares over a hostPath; the FUSE
        # clients here read through the worker's gRPC port instead.
        "short_circuit": {"enabled": False},
        "fuse_mount_point": defaults["alluxio_fuse_mount_point"], "oss_secret": "",
    }
    try:
        built = build_values(params)
    except DatasetError as error:
        raise SystemExit("profile %s: %s" % (profile, error)) from None
    values = built["values"]
    # The FUSE process serves its metrics (client cache hit rate) as in the chart's pods with
    # alluxio.fuse.web.enabled; the master's web server serves /api/v1/master/info.
    values["properties"]["alluxio.fuse.web.enabled"] = "true"
    return values, built["warnings"]


def render(helm, chart, values, workdir):
    path = os.path.join(workdir, "values.yaml")
    with open(path, "w", encoding="utf-8") as handle:
        yaml.safe_dump(values, handle, sort_keys=True)
    done = subprocess.run([helm, "template", "alluxio", chart, "-f", path], capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit("helm template of %s failed: %s" % (chart, done.stderr.strip()))
    documents = [d for d in yaml.safe_load_all(done.stdout) if d]
    config = next(d for d in documents if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "alluxio-config")
    fuse = next(d for d in documents if d["kind"] == "DaemonSet" and d["metadata"]["name"] == "alluxio-fuse")
    container = fuse["spec"]["template"]["spec"]["containers"][0]
    return config["data"], container["args"], {e["name"]: e.get("value", "") for e in container.get("env", []) if "value" in e}


def shell_value(text):
    """A double-quoted shell word that keeps ${VAR} references (the chart leaves them for the
    entrypoint to expand from the pod's environment) and nothing else active."""
    return '"%s"' % " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")


def client_cache_bytes(values):
    properties = values["properties"]
    if properties.get("alluxio.user.client.cache.enabled") == "true" and properties.get("alluxio.user.client.cache.store.type") == "MEM":
        return parse_bytes(properties.get("alluxio.user.client.cache.size", "512MB"))
    return 0


def env_file(config, master_host, values):
    lines = ["# The Alluxio chart's alluxio-config ConfigMap, rendered by Helm from the bundle's values."]
    lines += ["export %s=%s" % (key, shell_value(value)) for key, value in sorted(config.items())]
    lines += ["", "# This machine: no cluster DNS, so the master's Service name becomes its host's address."]
    lines += ['ALLUXIO_JAVA_OPTS="$ALLUXIO_JAVA_OPTS -Dalluxio.master.hostname=%s"' % master_host]
    lines += ["# This machine: heaps for a few GiB per process and its own cores (see localconf.py HEAP_CAPS)."]
    cpus = os.cpu_count() or 2
    for key, caps in sorted(HEAP_CAPS.items()):
        caps = list(caps)
        cache = client_cache_bytes(values) if key == "ALLUXIO_FUSE_JAVA_OPTS" else 0
        if cache:
            # The MEM page store lives in the FUSE heap and takes a whole page-size array for every
            # page, however short (Alluxio 2.9.3 MemoryPageStore.PagePool.acquire), while the cache
            # counts only the bytes: a 110 KB file costs 2 MB of heap at 2MB pages. A capped heap
            # runs out (seen at 3.5 GB for 2,200 small files); the profile's own -Xmx stays.
            caps = [c for c in caps if not c.startswith("-Xmx")]
        lines += ['%s="$%s %s -XX:ActiveProcessorCount=%d"' % (key, key, " ".join(caps), cpus)]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--master-host", required=True)
    parser.add_argument("--profile", default=os.environ.get("FLUIDOPS_ALLUXIO_PROFILE", "dl-training"))
    parser.add_argument("--root-ufs", default="file:///underFSStorage")
    parser.add_argument("--image-tag", default="2.9.3")
    parser.add_argument("--helm", required=True)
    parser.add_argument("--chart", required=True)
    args = parser.parse_args()
    conf = os.path.join(args.out, "conf")
    os.makedirs(conf, exist_ok=True)
    values, warnings = chart_values(args.profile, args.root_ufs, args.image_tag)
    for warning in warnings:
        print("localconf: warning: %s" % warning, file=sys.stderr)
    config, fuse_args, fuse_env = render(args.helm, args.chart, values, args.out)
    with open(os.path.join(conf, "alluxio-env.sh"), "w", encoding="utf-8") as handle:
        handle.write(env_file(config, args.master_host, values))
        for key, value in sorted(fuse_env.items()):  # the FUSE container's own env (MAX_IDLE_THREADS)
            handle.write("export %s=%s\n" % (key, shlex.quote(value)))
    shutil.copy(os.path.join(HERE, "conf", "log4j.properties"), conf)
    if fuse_args[0] != "fuse":
        raise SystemExit("the chart's FUSE container runs %r, not the entrypoint's fuse command" % fuse_args)
    with open(os.path.join(args.out, "fuse.args"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(fuse_args[1:]) + "\n")
    print(args.out)


if __name__ == "__main__":
    main()
