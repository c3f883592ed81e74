#!/usr/bin/env python
"""The data-path bench's Alluxio configured as Fluid configures it, for processes in a host container.

Fluid's AlluxioRuntime controller turns a runtime into the values of its own runtime chart
(pkg/ddc/alluxio/transform*.go) and installs that chart (charts/alluxio) with them;
tools/bench/fluid_values.py has the real controller render the values. Helm renders Fluid's chart
with them here, and this script writes what the chart hands its pods:

- conf/alluxio-env.sh: the chart's `<name>-config` ConfigMap (ALLUXIO_JAVA_OPTS, then one
  ALLUXIO_<PROCESS>_JAVA_OPTS per process) and the FUSE container's own environment, sourced by
  tools/alluxio/bin/alluxio as the image's entrypoint sources its environment; then what differs
  on this machine (DIFFERENCES), each line saying why;
- fuse.args: the FUSE DaemonSet's container args (`fuse --fuse-opts=... <mount point> /`);
- layout.env: what alluxio.sh needs of the pods' layout: the master's web port, the FUSE mount
  point, the tier and journal directories (hostPaths and volumes in the pods);
- values.yaml: Fluid's values, for reading.

Short-circuit reads stay as Fluid sets them: with policy `local` the chart gives the FUSE pod the
worker's tier hostPaths; here FUSE and worker share the host container's file system.
Usage (PYTHONPATH=.collections:tools, as alluxio.sh runs it):
  python -m alluxio.localconf --values FILE --out DIR --master-host IP --helm HELM --chart FLUID/charts/alluxio
"""

import argparse
import os
import shlex
import shutil
import subprocess

import yaml

from ansible_collections.fluidops.accel.plugins.module_utils.common.quantity import parse_bytes

HERE = os.path.dirname(os.path.abspath(__file__))

# The profiles size the JVMs for 336 GiB, 82-core nodes; this machine has a few GiB per process
# and 2 cores. These caps come after the profile's options (the JVM takes the last -Xmx).
HEAP_CAPS = {
    "ALLUXIO_MASTER_JAVA_OPTS": ["-Xms128m", "-Xmx1g"],
    "ALLUXIO_JOB_MASTER_JAVA_OPTS": ["-Xms64m", "-Xmx384m"],
    "ALLUXIO_WORKER_JAVA_OPTS": ["-Xms128m", "-Xmx1g", "-XX:MaxDirectMemorySize=1g"],
    "ALLUXIO_JOB_WORKER_JAVA_OPTS": ["-Xms64m", "-Xmx512m"],
    "ALLUXIO_FUSE_JAVA_OPTS": ["-Xms128m", "-Xmx1g", "-XX:MaxDirectMemorySize=1g"],
}
# Where the host processes still differ from Fluid's pods (the bench's report lists them).
DIFFERENCES = [
    "the master's address: Fluid's values name the master's pod by cluster DNS (<name>-master-0.<namespace>); "
    "here it is the host container's address",
    "heaps: capped for a few GiB per process and this machine's cores (localconf.py HEAP_CAPS)",
    "the ports: Alluxio's defaults, set in the runtime's spec, where Fluid allocates ports from its host-network range",
    "processes, not pods: one host container runs master, job master, worker, job worker and FUSE, with no "
    "resource limits; the store is mounted with `alluxio fs mount` by the bench, where Fluid's master runs its mount script",
]
CONTAINERS = ("alluxio-master", "alluxio-job-master", "alluxio-worker", "alluxio-job-worker", "alluxio-fuse")


def render(helm, chart, values_path, name, namespace):
    """The chart's objects for release ``name``, as Fluid's controller installs it."""
    done = subprocess.run([helm, "template", name, chart, "-f", values_path, "--namespace", namespace],
                          capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit("helm template of %s failed: %s" % (chart, done.stderr.strip()))
    return [d for d in yaml.safe_load_all(done.stdout) if d]


def pod_settings(documents):
    """(the config ConfigMap's data, {container: spec}) of the rendered chart."""
    config = next((d["data"] for d in documents if d["kind"] == "ConfigMap" and "ALLUXIO_JAVA_OPTS" in (d.get("data") or {})), None)
    if config is None:
        raise SystemExit("the rendered chart has no ConfigMap with ALLUXIO_JAVA_OPTS")
    containers = {}
    for document in documents:
        if document["kind"] in ("StatefulSet", "DaemonSet"):
            for container in document["spec"]["template"]["spec"]["containers"]:
                if container["name"] in CONTAINERS:
                    containers[container["name"]] = container
    missing = [name for name in CONTAINERS if name not in containers]
    if missing:
        raise SystemExit("the rendered chart has no container %s" % ", ".join(missing))
    return config, containers


def literal_env(containers):
    """The containers' own variables with values (fieldRefs are alluxio.sh's to give), one value per name."""
    env = {}
    for name, container in sorted(containers.items()):
        for item in container.get("env") or []:
            if "value" not in item:
                continue
            if env.get(item["name"], item["value"]) != item["value"]:
                raise SystemExit("%s sets %s=%r, another container %r: the host's processes share one environment"
                                 % (name, item["name"], item["value"], env[item["name"]]))
            env[item["name"]] = item["value"]
    return env


def shell_value(text):
    """A double-quoted shell word that keeps ${VAR} references (the chart leaves them for the
    entrypoint to expand from the pod's environment) and nothing else active."""
    return '"%s"' % " ".join(text.split()).replace("\\", "\\\\").replace('"', '\\"').replace("`", "\\`")


def client_cache_bytes(config):
    """The FUSE client's MEM page store size, if the options turn it on (the JVM takes the last -D)."""
    options = {}
    for key in ("ALLUXIO_JAVA_OPTS", "ALLUXIO_FUSE_JAVA_OPTS"):
        for word in config.get(key, "").split():
            if word.startswith("-D") and "=" in word:
                name, value = word[2:].split("=", 1)
                options[name] = value
    if options.get("alluxio.user.client.cache.enabled") == "true" and options.get("alluxio.user.client.cache.store.type") == "MEM":
        return parse_bytes(options.get("alluxio.user.client.cache.size", "512MB"))
    return 0


def env_file(config, env, master_host):
    lines = ["# Fluid's runtime chart's ConfigMap, rendered by Helm from the values Fluid's controller wrote."]
    lines += ["export %s=%s" % (key, shell_value(value)) for key, value in sorted(config.items())]
    lines += ["# The containers' own variables."]
    lines += ["export %s=%s" % (key, shlex.quote(value)) for key, value in sorted(env.items())]
    lines += ["", "# This machine: no cluster DNS, so the master's pod name becomes its host's address."]
    lines += ['ALLUXIO_JAVA_OPTS="$ALLUXIO_JAVA_OPTS -Dalluxio.master.hostname=%s"' % master_host]
    lines += ["# This machine: heaps for a few GiB per process and its own cores (see localconf.py HEAP_CAPS)."]
    cpus = os.cpu_count() or 2
    for key, caps in sorted(HEAP_CAPS.items()):
        caps = list(caps)
        if key == "ALLUXIO_FUSE_JAVA_OPTS" and client_cache_bytes(config):
            # The MEM page store lives in the FUSE heap and takes a whole page-size array for every
            # page, however short (Alluxio 2.9.3 MemoryPageStore.PagePool.acquire), while the cache
            # counts only the bytes: a 110 KB file costs 2 MB of heap at 2MB pages. A capped heap
            # runs out (seen at 3.5 GB for 2,200 small files); the profile's own -Xmx stays.
            caps = [c for c in caps if not c.startswith("-Xmx")]
        lines += ['%s="$%s %s -XX:ActiveProcessorCount=%d"' % (key, key, " ".join(caps), cpus)]
    return "\n".join(lines) + "\n"


def layout(values, containers):
    """alluxio.sh's variables: where the pods' hostPaths and volumes are, the master's web port, and
    what is formatted first: the journal by the chart's init container (journal.format.runFormat) or
    by the image's entrypoint (master args without --no-format), the worker's tiers by the entrypoint."""
    tiers = " ".join(path for level in (values.get("tieredstore") or {}).get("levels") or [] for path in str(level["path"]).split(","))
    journal = values.get("journal") or {}
    journal_mounts = [m["mountPath"] for m in containers["alluxio-master"].get("volumeMounts") or [] if m["name"] == "alluxio-journal"]
    master_args = containers["alluxio-master"].get("args") or []
    worker_args = containers["alluxio-worker"].get("args") or []
    settings = {"MASTER_WEB_PORT": values["master"]["ports"]["web"], "FUSE_MOUNT": containers["alluxio-fuse"]["args"][-2],
                "TIER_PATHS": tiers, "JOURNAL_FOLDER": journal_mounts[0] if journal_mounts else "",
                "FORMAT_JOURNAL": str(bool((journal.get("format") or {}).get("runFormat")) or "--no-format" not in master_args).lower(),
                "FORMAT_WORKER": str("--no-format" not in worker_args).lower()}
    return "".join("%s=%s\n" % (key, shlex.quote(str(value))) for key, value in settings.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", required=True, help="Fluid's values (the data of <name>-alluxio-values)")
    parser.add_argument("--out", required=True)
    parser.add_argument("--master-host", required=True)
    parser.add_argument("--helm", required=True)
    parser.add_argument("--chart", required=True, help="Fluid's runtime chart, charts/alluxio")
    args = parser.parse_args()
    with open(args.values, encoding="utf-8") as handle:
        values = yaml.safe_load(handle)
    identity = values.get("runtimeIdentity") or {}
    if not identity.get("name"):
        raise SystemExit("%s has no runtimeIdentity.name: not the values Fluid's controller writes" % args.values)
    conf = os.path.join(args.out, "conf")
    os.makedirs(conf, exist_ok=True)
    shutil.copy(args.values, os.path.join(args.out, "values.yaml"))
    config, containers = pod_settings(render(args.helm, args.chart, args.values, identity["name"], identity.get("namespace", "default")))
    fuse_args = containers["alluxio-fuse"].get("args") or []
    if not fuse_args or fuse_args[0] != "fuse":
        raise SystemExit("the chart's FUSE container runs %r, not the entrypoint's fuse command" % fuse_args)
    with open(os.path.join(conf, "alluxio-env.sh"), "w", encoding="utf-8") as handle:
        handle.write(env_file(config, literal_env(containers), args.master_host))
    shutil.copy(os.path.join(HERE, "conf", "log4j.properties"), conf)
    with open(os.path.join(args.out, "fuse.args"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(fuse_args[1:]) + "\n")
    with open(os.path.join(args.out, "layout.env"), "w", encoding="utf-8") as handle:
        handle.write(layout(values, containers))
    print(args.out)


if __name__ == "__main__":
    main()
