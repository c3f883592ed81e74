"""Real nodes: the node hosts' kubelets run pods from images built here and served by the local
registry, on a routed pod network with cluster DNS; the GPUs are SIMULATED by a device plugin.
Fluid's chart runs its CSI plugin, and an AlluxioRuntime's master, worker and FUSE pods run
Alluxio from Fluid's runtime chart; a plain pod reads the dataset through CSI and FUSE. The FUSE
runbook's failures are made for real and followed through its commands (test_runbooks.py, the
other runbooks)."""

import json
import os
import re
import subprocess

import yaml
from kubernetes import client

from conftest import NODES, RUN, cluster, host, read_sysctls, standin_bytes, wait_until
from playbook import PARTS, REPO, run_playbook
from pods import BASELINE, DATASET, READ, apply, ended, events, finished, fuse_pods, kubectl, node_without_fuse, pod, pods, read_sums, registry_of, running_pod
from runbook_shell import run
from tools_module import run_module


def test_four_real_nodes_of_containerd_and_the_pinned_kubelet(api):
    nodes = {node.metadata.name: node for node in client.CoreV1Api(api).list_node().items}
    assert sorted(nodes) == NODES
    for node in nodes.values():
        assert node.status.node_info.kubelet_version == "v1.33.13"
        assert node.status.node_info.container_runtime_version.startswith("containerd://1.7.")
        assert {c.type: c.status for c in node.status.conditions}["Ready"] == "True"
        assert node.metadata.labels["aliyun.accelerator/nvidia_name"] == "Tesla-V100-SXM2-16GB"
        assert "kwok.x-k8s.io/node" not in (node.metadata.annotations or {})


def test_each_kubelet_may_change_only_its_own_node(kubeconfig):
    """Node authorization: gpu-node-1's credentials patch gpu-node-1, and are refused gpu-node-2."""
    own = os.path.join(RUN, "nodes", "gpu-node-1", "kubelet.kubeconfig")
    patch = json.dumps({"metadata": {"annotations": {"fluidops.test/touched": "yes"}}})
    assert kubectl(own, "patch", "node", "gpu-node-1", "-p", patch, check=False).returncode == 0
    refused = kubectl(own, "patch", "node", "gpu-node-2", "-p", patch, check=False)
    assert refused.returncode != 0 and "forbidden" in refused.stderr.lower(), refused.stderr
    kubectl(kubeconfig, "annotate", "node", "gpu-node-1", "fluidops.test/touched-")


# site_run: Fluid's controllers deployed, whose placement the test reads.
def test_simulated_nodes_beyond_the_hosts_are_kwok_s_tainted_and_the_real_ones_stay_their_kubelets(kubeconfig, site_run):  # pylint: disable=unused-argument
    """`cluster.sh nodes COUNT` beside the real nodes, as make bench grows the cluster: the nodes
    beyond the four hosts are kwok's, Ready, with kwok's NoSchedule taint, so that only a pod that
    tolerates every taint goes where no container runs (Fluid's CSI plugin, as node agents do), and
    labelled as virtual nodes, which Fluid's controllers, tolerating every taint too, keep off by
    their chart's own affinity; the hosts' nodes keep their kubelets. Back to four, the simulated
    ones go, and the pods kwok played on them with them (the pod garbage collector's, for the tests
    after this one)."""
    def nodes():
        return {node["metadata"]["name"]: node for node in json.loads(kubectl(kubeconfig, "get", "nodes", "-o", "json").stdout)["items"]}

    cluster("nodes", "6")
    try:
        grown = nodes()
        assert sorted(grown) == NODES + ["gpu-node-5", "gpu-node-6"]
        for name, node in grown.items():
            simulated = name not in NODES
            assert ("kwok.x-k8s.io/node" in node["metadata"].get("annotations", {})) == simulated, name
            taints = [(taint["key"], taint["effect"]) for taint in node["spec"].get("taints", [])]
            assert taints == ([("kwok.x-k8s.io/node", "NoSchedule")] if simulated else []), (name, taints)
            assert {c["type"]: c["status"] for c in node["status"]["conditions"]}["Ready"] == "True", name
        # Each of Fluid's controllers may go to a node only where its required affinity holds.
        controllers = json.loads(kubectl(kubeconfig, "get", "deployments", "-n", "fluid-system", "-o", "json").stdout)["items"]
        assert controllers
        for deployment in controllers:
            terms = deployment["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
                "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
            allowed = {name for name, node in grown.items() if any(all(
                (node["metadata"]["labels"].get(rule["key"]) in rule["values"]) == (rule["operator"] == "In")
                for rule in term["matchExpressions"]) for term in terms)}
            assert allowed == set(NODES), (deployment["metadata"]["name"], allowed)
        on_simulated = pods(kubeconfig, "--all-namespaces", "--field-selector", "spec.nodeName=gpu-node-5")
        tolerating = [item["metadata"]["name"] for item in on_simulated if any(
            toleration.get("operator") == "Exists" and not toleration.get("key") and not toleration.get("effect")
            for toleration in item["spec"].get("tolerations", []))]
        assert [item["metadata"]["name"] for item in on_simulated] == tolerating
    finally:
        # Whether the test passed or not: the tests after it see the four hosts' nodes and their pods only.
        cluster("nodes", str(len(NODES)))
        wait_until(lambda: not [item for item in pods(kubeconfig, "--all-namespaces") if item["spec"].get("nodeName", NODES[0]) not in NODES],
                   120, every=2, what="no pod left on the simulated nodes")
    assert sorted(nodes()) == NODES


def test_the_kubelets_left_the_machines_sysctls_alone(kubeconfig, sysctls_before):  # pylint: disable=unused-argument
    assert read_sysctls() == sysctls_before


def test_simulated_gpus_are_allocated_to_a_pod(kubeconfig, images):
    allocatable = kubectl(kubeconfig, "get", "nodes", "-o", r"jsonpath={.items[*].status.allocatable.nvidia\.com/gpu}").stdout
    assert allocatable.split() == ["8"] * 4
    apply(kubeconfig, pod("gpus", images["alluxio"], "echo $NVIDIA_VISIBLE_DEVICES", limits={"nvidia.com/gpu": 2}))
    devices = finished(kubeconfig, "gpus").strip().split(",")
    assert len(devices) == 2 and all(device.startswith("GPU-simulated-gpu-node-") for device in devices), devices


def test_pods_on_two_nodes_reach_each_other_and_the_api_server_by_name(kubeconfig, images):
    """Cluster DNS names the kubernetes Service; kube-proxy takes its ClusterIP to the API server
    through the nodes' masquerade; a pod on gpu-node-3 reaches CoreDNS wherever it runs."""
    command = ("getent hosts kubernetes.default.svc.cluster.local && "
               "timeout 10 bash -c 'exec 3<>/dev/tcp/kubernetes.default.svc.cluster.local/443' && echo reached")
    apply(kubeconfig, pod("reach", images["alluxio"], command, node="gpu-node-3"))
    log = finished(kubeconfig, "reach")
    assert "10.96.0.1" in log and "reached" in log, log


def test_every_pod_runs_an_image_built_here_from_the_local_registry(kubeconfig, images):
    """Every container comes from the local registry and runs an image built here (its digest is
    one cluster.sh pushed). The cluster's own pods (DNS, the device plugin, mpi-operator, the S3 stand-in) name
    theirs by digest; the bundle's, as a site's mirror holds them (fluidops_image_registry)."""
    running = pods(kubeconfig, "--all-namespaces")
    digests = {ref.split("@", 1)[1] for ref in images.values()}
    registry = registry_of(images)
    assert running
    for item in running:
        for container in item["spec"]["containers"]:
            assert container["image"].startswith(registry + "/"), container["image"]
            if item["metadata"]["namespace"] in ("kube-system", "mpi-operator", "object-store"):
                assert container["image"].startswith(registry + "/fluidops/") and "@sha256:" in container["image"], container["image"]
        # A container not started yet has no image ID; every started one runs an image pushed here.
        for status in item["status"].get("containerStatuses", []):
            assert "@" in status["imageID"] or "running" not in status["state"] and "terminated" not in status["state"], status
            assert not status["imageID"] or status["imageID"].rsplit("@", 1)[1] in digests, status


def test_the_controllers_run_in_pods_and_fluid_s_csi_plugin_on_every_node(kubeconfig, fluid, images):  # pylint: disable=unused-argument
    """Fluid's controllers are its chart's pods and mpi-operator's its manifests' (none runs out of
    cluster), each running the image built here, and the kubelets registered Fluid's CSI plugin."""
    for namespace, deployment, image in (("fluid-system", "dataset-controller", "fluid-controllers"),
                                         ("fluid-system", "alluxioruntime-controller", "fluid-controllers"),
                                         ("fluid-system", "fluidapp-controller", "fluid-controllers"),
                                         ("mpi-operator", "mpi-operator", "mpi-operator")):
        ready = kubectl(kubeconfig, "get", "deployment", deployment, "-n", namespace, "-o", "jsonpath={.status.readyReplicas}").stdout
        assert ready == "1", (deployment, ready)
        ran = {status["imageID"].rsplit("@", 1)[1] for item in pods(kubeconfig, "-n", namespace) if item["metadata"]["name"].startswith(deployment + "-")
               for status in item["status"].get("containerStatuses", [])}
        assert ran == {images[image].split("@", 1)[1]}, (deployment, ran)
    status = cluster("status").stdout
    for process in ("fluid-dataset-controller", "fluid-alluxioruntime-controller", "mpi-operator"):
        assert process + ": stopped" in status, status
    for node in NODES:
        drivers = kubectl(kubeconfig, "get", "csinode", node, "-o", "jsonpath={.spec.drivers[*].name}").stdout
        assert drivers.split() == ["fuse.csi.fluid.io"], (node, drivers)


def test_site_yml_prepared_every_real_node_s_host(site_run):
    """site.yml's node phase reached this cluster's node hosts (the local inventory's containers
    for FLUIDOPS_CLUSTER_INSTANCE), where the kubelets run: each got the inventory's ramfs cache
    mount and tier directories."""
    changed = site_run.changed_per_host()
    for node in NODES:
        assert changed.get(node, 0) > 0, changed
        mounted = subprocess.run(["podman", "exec", host(node), "findmnt", "-n", "-o", "FSTYPE", "/ram/alluxio"], capture_output=True,
                                 text=True, check=False).stdout.strip()
        assert mounted == "ramfs", (node, mounted)
        assert subprocess.run(["podman", "exec", host(node), "test", "-d", "/var/lib/docker/alluxio"], check=False).returncode == 0, node


def test_a_pod_reads_the_dataset_through_csi_and_fuse_byte_for_byte(kubeconfig, fluid, images):
    # On the FUSE crash test's node: the ContainerCreating test needs one where no pod mounted the claim.
    apply(kubeconfig, pod("reader", images["alluxio"], READ, node="gpu-node-3", volumes=[("data", DATASET)]))
    read = read_sums(finished(kubeconfig, "reader", 600))
    assert read == fluid
    # Fluid's controllers learnt the dataset's size from the real master's `alluxio fs count` (exec).
    ufs_total = kubectl(kubeconfig, "get", "dataset", DATASET, "-o", "jsonpath={.status.ufsTotal}").stdout
    assert ufs_total and ufs_total != "0.00B", ufs_total
    # The claim the pod mounted is the one the runtime controller made once the dataset was Ready.
    ready = kubectl(kubeconfig, "get", "dataset", DATASET, "-o", "jsonpath={.status.conditions[?(@.type=='Ready')].reason}").stdout
    assert ready == "DatasetReady", ready
    assert kubectl(kubeconfig, "get", "pvc", DATASET, "-o", "jsonpath={.spec.volumeName}").stdout == "default-" + DATASET


def test_a_pod_reads_the_baseline_through_s3fs_with_no_cache_byte_for_byte(kubeconfig, fluid, images):
    """inventory/local's imagenet-baseline, the stand-in for the seeds' NFS baseline: Fluid's
    ThinRuntime controller runs the profile's FUSE program (Debian's s3fs-fuse, in the image built
    here) on the reader's node, which reads the bucket's files through Fluid's CSI plugin, byte for
    byte, from an s3fs mount; the dataset keeps no cache."""
    apply(kubeconfig, pod("baseline-reader", images["alluxio"], "cd /data/train && md5sum * && grep ' /data ' /proc/mounts",
                          node="gpu-node-3", volumes=[("data", BASELINE)]))
    *sums, mount = finished(kubeconfig, "baseline-reader", 600).strip().splitlines()
    assert read_sums("\n".join(sums)) == fluid
    assert mount.split()[2] == "fuse.s3fs", mount
    [fuse] = pods(kubeconfig, "-l", "release=%s,role=thin-fuse" % BASELINE)
    assert fuse["spec"]["nodeName"] == "gpu-node-3" and fuse["spec"]["containers"][0]["image"].endswith("/fluidops/s3fs-fuse:1.90"), fuse
    cached = kubectl(kubeconfig, "get", "dataset", BASELINE, "-o", "jsonpath={.status.runtimes[0].type} {.status.cacheStates.cached}").stdout
    assert cached == "thin N/A", cached


def test_the_bundle_s_images_come_from_the_local_registry_as_from_a_mirror(  # pylint: disable=unused-argument
        kubeconfig, fluid, images, tmp_path):
    """Every image the pods of the bundle's Fluid run (its controllers and CSI plugin, the runtime's
    master, worker and, once the reader has mounted the claim, FUSE; the baseline's s3fs FUSE) is
    on the list the bundle gives an operator to mirror (playbooks/images.yml with the same
    settings), and is an image built here, by its digest."""
    listed = tmp_path / "images.txt"
    done = run_playbook("playbooks/images.yml", extra_vars={"fluidops_images_file": str(listed)})
    assert done.returncode == 0, done.output[-3000:]
    mirror = set(listed.read_text(encoding="utf-8").split())
    assert mirror and all(image.startswith(registry_of(images) + "/") for image in mirror), mirror
    built = {ref.split("@", 1)[1] for ref in images.values()}
    roles = set()
    for item in pods(kubeconfig, "-n", "fluid-system") + pods(kubeconfig, "-l", "release in (%s,%s)" % (DATASET, BASELINE)):
        for container in item["spec"]["containers"] + item["spec"].get("initContainers", []):
            assert container["image"] in mirror, (item["metadata"]["name"], container["image"])
        for status in item["status"].get("containerStatuses", []):
            assert status["imageID"].rsplit("@", 1)[1] in built, (item["metadata"]["name"], status["imageID"])
        roles.add(item["metadata"]["labels"].get("role") or item["metadata"]["labels"].get("app"))
    assert {"alluxio-master", "alluxio-worker", "alluxio-fuse", "thin-fuse"} <= roles, roles


def java_argv(kubeconfig, pod_name, container):
    """The command line of the container's JVM."""
    return kubectl(kubeconfig, "exec", pod_name, "-c", container, "--", "sh", "-c",
                   "tr '\\0' '\\n' < /proc/$(pgrep -f java | head -1)/cmdline").stdout.splitlines()


def alluxio_processes(kubeconfig):
    """{master, worker, fuse, job_master, job_worker: argv} of the dataset's Alluxio pods."""
    fuse_pod = next(iter(fuse_pods(kubeconfig).values()))["metadata"]["name"]
    return {"master": java_argv(kubeconfig, DATASET + "-master-0", "alluxio-master"),
            "worker": java_argv(kubeconfig, DATASET + "-worker-0", "alluxio-worker"), "fuse": java_argv(kubeconfig, fuse_pod, "alluxio-fuse"),
            "job_master": java_argv(kubeconfig, DATASET + "-master-0", "alluxio-job-master"),
            "job_worker": java_argv(kubeconfig, DATASET + "-worker-0", "alluxio-job-worker")}


def test_alluxio_runs_with_the_tuning_profile_s_settings_in_its_processes(kubeconfig, fluid):  # pylint: disable=unused-argument
    """The dataset's dl-training profile (roles/fluidops/defaults/main/tuning_profiles.yml), read
    from the running JVMs' command lines, not from the manifests: every property in each process
    (Fluid's chart passes them as -D options), each component's JVM options, the FUSE options, the
    worker's tier; and the local inventory's JVM options for all, in the job master and job worker too."""
    with open(os.path.join(REPO, "roles", "fluidops", "defaults", "main", "tuning_profiles.yml"), encoding="utf-8") as handle:
        profile = yaml.safe_load(handle)["fluidops_builtin_tuning_profiles"]["dl-training"]
    with open(os.path.join(REPO, "inventory", "local", "group_vars", "all", "deployment.yml"), encoding="utf-8") as handle:
        [every] = [item["runtime"]["jvm_options"]["all"] for item in yaml.safe_load(handle)["datasets_list"] if item["name"] == DATASET]

    processes = alluxio_processes(kubeconfig)
    for component, main_class in (("job_master", "alluxio.master.AlluxioJobMaster"), ("job_worker", "alluxio.worker.AlluxioJobWorker")):
        assert main_class in processes[component], (component, processes[component])
    assert {component: [option for option in every if option not in argv] for component, argv in processes.items()} == dict.fromkeys(processes, [])
    for component, main_class in (("master", "alluxio.master.AlluxioMaster"), ("worker", "alluxio.worker.AlluxioWorker"),
                                  ("fuse", "alluxio.fuse.AlluxioFuse")):
        argv = processes[component]
        assert main_class in argv, (component, argv)
        missing = ["-D%s=%s" % item for item in profile["properties"].items() if "-D%s=%s" % item not in argv]
        assert missing == [], (component, missing)
        assert [option for option in profile["jvm_options"][component] if option not in argv] == [], (component, argv)
    fuse_options = next(arg for arg in profile["fuse_args"] if arg.startswith("--fuse-opts=")).split("=", 1)[1].split(",")
    mounted = " ".join(processes["fuse"])
    assert [option for option in fuse_options if option not in mounted] == [], processes["fuse"]
    assert "/runtime-mnt/alluxio/default/%s/alluxio-fuse" % DATASET in processes["fuse"], processes["fuse"]
    # The worker's tier: the runtime's level, under the directory Fluid gives the dataset in it.
    [level] = json.loads(kubectl(kubeconfig, "get", "alluxioruntime", DATASET, "-o", "json").stdout)["spec"]["tieredstore"]["levels"]
    assert "-Dalluxio.worker.tieredstore.level0.dirs.path=%s/default/%s" % (level["path"], DATASET) in processes["worker"], processes["worker"]


def properties(words):
    """The -D properties of a JVM's options, as the JVM takes them (the last of a name wins)."""
    return dict(word[2:].split("=", 1) for word in words if word.startswith("-D") and "=" in word)


# The pods' own addresses (fieldRefs and the master's DNS name), which the bench's host gives its own.
ADDRESSES = {"alluxio.master.hostname", "alluxio.worker.hostname", "alluxio.worker.container.hostname", "alluxio.user.hostname"}


def test_the_data_path_bench_s_alluxio_gets_the_options_fluid_s_pods_run_with(kubeconfig, fluid, tmp_path):  # pylint: disable=unused-argument
    """make bench-datapath runs Alluxio as processes in a host container, configured from the values
    Fluid's controller writes (tools/alluxio/localconf.py). Given this dataset's values, what it
    would give each process equals what the pods' JVMs run with, property by property, short-circuit
    included, the addresses apart; its layout is the pods' (FUSE mount point, tier directory)."""
    values = tmp_path / "values.yaml"
    values.write_text(json.loads(kubectl(kubeconfig, "get", "configmap", DATASET + "-alluxio-values", "-o", "json").stdout)["data"]["data"])
    out = tmp_path / "bench"
    run_module("alluxio.localconf", "--values", str(values), "--out", str(out), "--master-host", "192.0.2.1",
               "--helm", os.path.join(PARTS, "helm"), "--chart", os.path.join(PARTS, "fluid", "charts", "alluxio"), check=True)
    processes = alluxio_processes(kubeconfig)
    for component, variable in (("master", "ALLUXIO_MASTER_JAVA_OPTS"), ("worker", "ALLUXIO_WORKER_JAVA_OPTS"), ("fuse", "ALLUXIO_FUSE_JAVA_OPTS")):
        # The host's addresses, as tools/alluxio/alluxio.sh gives its processes what the pods' fieldRefs give.
        host = {name: "192.0.2.1" for name in ("ALLUXIO_MASTER_HOSTNAME", "ALLUXIO_WORKER_HOSTNAME", "ALLUXIO_WORKER_CONTAINER_HOSTNAME",
                                               "ALLUXIO_CLIENT_HOSTNAME")}
        words = subprocess.run(["bash", "-c", 'set +u; . "$1/conf/alluxio-env.sh"; printf "%s\\n" $ALLUXIO_JAVA_OPTS ${!2}', "-", str(out), variable],
                               check=True, capture_output=True, text=True, env=dict(os.environ, **host)).stdout.split()
        bench, pod_options = properties(words), properties(processes[component])
        assert bench["alluxio.master.hostname"] == bench["alluxio.user.hostname"] == "192.0.2.1", bench
        differing = {key: (value, pod_options.get(key)) for key, value in bench.items() if key not in ADDRESSES and pod_options.get(key) != value}
        assert differing == {}, (component, differing)
        assert pod_options.get("alluxio.user.short.circuit.enabled") != "false", pod_options
    layout = dict(line.split("=", 1) for line in (out / "layout.env").read_text().splitlines())
    assert "/runtime-mnt/alluxio/default/%s/alluxio-fuse" % DATASET == layout["FUSE_MOUNT"] and layout["FUSE_MOUNT"] in processes["fuse"], layout
    assert properties(processes["worker"])["alluxio.worker.tieredstore.level0.dirs.path"] == layout["TIER_PATHS"], layout
    assert properties(processes["master"])["alluxio.master.web.port"] == layout["MASTER_WEB_PORT"], layout
    assert properties(processes["master"])["alluxio.master.journal.folder"] == layout["JOURNAL_FOLDER"], layout


def test_a_fuse_crash_fuse_recovery_and_the_runbook_s_fix(kubeconfig, fluid, images, shell):
    """docs/runbooks/troubleshooting/fuse-pod-or-container-creating.md: the FUSE JVM killed on a
    node, as the OOM killer would, under two pods that mount the claim. The FUSE container
    restarts in its pod and mounts again (over what the dead one left). With FUSE recovery on
    (fluid_fuse_recovery, the fixture's chart) the CSI plugin binds the new mount into the pod that
    mounts the claim HostToContainer, which reads the same bytes again without a restart. The other
    pod (mountPropagation None, as every pod has it where recovery is off, the chart's default)
    keeps `Transport endpoint is not connected` until the runbook's fix: the node's pods that use
    the dataset stopped, its FUSE pod started again, the pods started again."""
    node = "gpu-node-3"
    with running_pod(kubeconfig, pod("steady", images["alluxio"], "sleep infinity", node=node, volumes=[("data", DATASET)],
                                     propagation="HostToContainer")), \
            running_pod(kubeconfig, pod("holder", images["alluxio"], "sleep infinity", node=node, volumes=[("data", DATASET)])):
        for name in ("steady", "holder"):
            kubectl(kubeconfig, "wait", "--for=condition=Ready", "pod/" + name, "--timeout=300s")
        before = fuse_pods(kubeconfig)[node]
        subprocess.run(["podman", "exec", host(node), "pkill", "-KILL", "-f", "alluxio.fuse.AlluxioFuse"], check=True)

        def restarted():
            after = fuse_pods(kubeconfig).get(node)
            return (after and after["metadata"]["uid"] == before["metadata"]["uid"]
                    and after["status"]["containerStatuses"][0]["restartCount"] > 0)
        wait_until(restarted, 180, every=1, what="the FUSE container restarted in its pod")

        def reads():
            done = kubectl(kubeconfig, "exec", "steady", "--", "sh", "-c", READ, check=False)
            return done.returncode == 0 and read_sums(done.stdout) == fluid
        wait_until(reads, 180, every=2, what="the HostToContainer pod reading the dataset again")
        assert "FuseRecoverSucceed" in events(kubeconfig, "Dataset", DATASET)
        assert kubectl(kubeconfig, "get", "pod", "steady", "-o", "jsonpath={.status.containerStatuses[0].restartCount}").stdout == "0"
        broken = kubectl(kubeconfig, "exec", "holder", "--", "ls", "/data/%s/train" % DATASET, check=False)
        assert broken.returncode != 0 and "Transport endpoint is not connected" in broken.stderr, broken
    # The runbook's fix: the pods stopped (above), the node's FUSE pod started again, the pod again.
    run(dict(shell, NODE=node), "fuse-restart")
    with running_pod(kubeconfig, pod("reader-again", images["alluxio"], READ + " && sleep infinity",
                                     node=node, volumes=[("data", DATASET)])):
        kubectl(kubeconfig, "wait", "--for=condition=Ready", "pod/reader-again", "--timeout=600s")
        run(dict(shell, POD="reader-again", NODE=node), "fuse-app-pod")
        wait_until(lambda: read_sums(kubectl(kubeconfig, "logs", "reader-again").stdout) == fluid, 120, every=1,
                   what="the pod's md5sum of the dataset")


def test_the_bundle_s_warmup_runs_a_loader_pod_that_fills_the_cache_with_distributed_load(
        kubeconfig, site_run):
    """site.yml's warm-up (playbooks/warmup.yml) made the dataset's DataLoad; Fluid's DataLoad
    controller ran its chart's loader Job, whose pod, on a real node, ran alluxio_dataload.sh with
    the Alluxio image's CLI against the runtime's real master; the warm-up waited until the cache
    held 100%."""
    assert "Warm the dataset caches" in site_run.plays(), site_run.plays()
    assert ended(kubeconfig, "dataload", DATASET + "-warmup", ("Complete", "Failed"), 5) == "Complete"
    conditions = json.loads(kubectl(kubeconfig, "get", "dataload", DATASET + "-warmup", "-o", "jsonpath={.status.conditions}").stdout)
    assert [(condition["type"], condition["status"]) for condition in conditions] == [("Complete", "True")], conditions
    loader = pods(kubeconfig, "-l", "role=dataload-pod")
    assert loader and loader[0]["spec"]["nodeName"] in NODES and loader[0]["status"]["phase"] == "Succeeded", loader
    assert kubectl(kubeconfig, "get", "job", DATASET + "-warmup-loader-job", "-o", "jsonpath={.status.succeeded}").stdout == "1"
    log = kubectl(kubeconfig, "logs", loader[0]["metadata"]["name"]).stdout
    assert "distributedLoad" in log or "Successfully loaded" in log, log
    assert kubectl(kubeconfig, "get", "dataset", DATASET, "-o", "jsonpath={.status.cacheStates.cachedPercentage}").stdout == "100.0%"


def test_the_status_report_gives_the_numbers_of_alluxio_in_pods(fluid, tmp_path):  # pylint: disable=unused-argument
    """playbooks/status.yml after the warm-up: the dataset Bound, its runtime's master and worker
    ready, the cache's capacity the one worker's tier, and every byte of the files cached, as the
    real Alluxio counted them (Fluid reads them from the master)."""
    report = tmp_path / "status.json"
    done = run_playbook("playbooks/status.yml", extra_vars={"cache_status_json_path": str(report)})
    assert done.returncode == 0, done.output[-3000:]
    [dataset] = [item for item in json.loads(report.read_text(encoding="utf-8"))["datasets"] if item["name"] == DATASET]
    assert dataset["phase"] == "Bound" and dataset["runtime_kind"] == "AlluxioRuntime", dataset
    runtime = dataset["runtime"]
    assert (runtime["master"]["phase"], runtime["worker"]["phase"], runtime["worker"]["ready"]) == ("Ready", "Ready", 1), runtime
    assert dataset["cached_percentage"] == 100.0, dataset
    assert dataset["cache_capacity_bytes"] == 32 * 1024 * 1024, dataset
    size = standin_bytes()
    # Fluid writes sizes with two decimals (1.75MiB): within that rounding.
    assert abs(dataset["cached_bytes"] - size) <= 0.01 * size, (dataset["cached_bytes"], size)
    assert DATASET in done.output and "100.0%" in done.output, done.output[-3000:]


def fsadmin_summary(kubeconfig, master):
    """The master's own report, read with its own words (not the module's parser)."""
    text = kubectl(kubeconfig, "exec", master, "-c", "alluxio-master", "--", "alluxio", "fsadmin", "report", "summary").stdout
    field = {key.strip(): value.strip() for key, value in (line.split(":", 1) for line in text.splitlines() if ":" in line)}
    units = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
    number, unit = re.match(r"([0-9.]+)([KMGT]?B)", field["Total Capacity"]).groups()
    return {"total": int(float(number) * units[unit]), "live": int(field["Live Workers"]), "lost": int(field["Lost Workers"]),
            "version": field["Version"]}


def test_alluxio_cluster_info_reads_the_live_master_as_its_own_report_says(kubeconfig, fluid, tmp_path):  # pylint: disable=unused-argument
    """The alluxio_cluster_info module on the dataset's master pod (release and namespace Fluid's):
    its REST API through the API server's proxy to the master's Service, on the web port Fluid gave
    it, and fsadmin in the pod, each equal to the master's own report."""
    master = DATASET + "-master-0"
    ports = json.loads(kubectl(kubeconfig, "get", "service", master, "-o", "json").stdout)["spec"]["ports"]
    web = next(port["port"] for port in ports if port["name"] == "web")
    path = tmp_path / "play.yml"
    tasks = [{"name": source, "fluidops.accel.alluxio_cluster_info": {
        "kubeconfig": "{{ fluidops_kubeconfig }}", "release": DATASET, "namespace": "default", "source": source, "master_web_port": web},
        "register": source} for source in ("rest", "fsadmin")]
    tasks.append({"ansible.builtin.copy": {"content": "{{ {'rest': rest, 'fsadmin': fsadmin} | to_json }}",
                                           "dest": str(tmp_path / "info.json"), "mode": "0600"}})
    path.write_text(yaml.safe_dump([{"hosts": "localhost", "gather_facts": False, "tasks": tasks}]))
    returncode, output = run_playbook(str(path))
    assert returncode == 0, output[-3000:]
    report = fsadmin_summary(kubeconfig, master)
    for source, info in json.loads((tmp_path / "info.json").read_text(encoding="utf-8")).items():
        assert (info["capacity"]["total"], info["live_workers"], info["lost_workers"], info["version"]) == (
            report["total"], report["live"], report["lost"], report["version"]), source
        assert info["tiers"]["MEM"]["total"] == report["total"], source
    assert report["total"] == 32 * 1024 * 1024 and report["live"] == 1, report  # the inventory's one worker's tier


def test_the_bundle_s_mpijob_runs_its_ranks_over_ssh_on_the_workers_reading_the_dataset(
        kubeconfig, fluid, site_run):
    """site.yml's training (playbooks/train.yml) with the training image built here: mpi-operator
    started the launcher once the workers' sshd ran; its mpirun started one rank per (SIMULATED)
    GPU on the workers over SSH, two workers of two; each rank read the dataset's files through the
    claim, and the job's rate, read by the module from the real log, stays within the simulated
    GPUs' (4 x 200 images/sec)."""
    [result] = site_run.results(task="Run the training as an MPIJob and read its throughput")
    outcome = result["res"]
    assert outcome["state"] == "Succeeded", outcome
    throughput = outcome["throughput"]
    assert (throughput["ranks"], throughput["tagged"], throughput["simulated"]) == (4, True, True), throughput
    assert throughput["last_step"] == 30 and 0 < throughput["images_per_sec_at_step"] <= 4 * 200, throughput
    assert 0 < throughput["total_images_per_sec"] <= 4 * 200, throughput
    assert len(throughput["read_mib_per_sec"]) == 4 and min(throughput["read_mib_per_sec"]) > 0, throughput
    job = outcome["mpijob"]["metadata"]["name"]
    [launcher] = pods(kubeconfig, "-l", "training.kubeflow.org/job-name=%s,training.kubeflow.org/job-role=launcher" % job)
    log = kubectl(kubeconfig, "logs", launcher["metadata"]["name"]).stdout
    hosts = sorted(re.findall(r"<stdout>:Rank: +\d of 4 on (\S+)", log))
    assert hosts == [job + "-worker-0"] * 2 + [job + "-worker-1"] * 2, log[-3000:]
    reads = re.findall(r"<stdout>:Input: .*", log)
    assert len(reads) == 4 and all("read from %d files" % len(fluid) in line for line in reads), reads
    # cleanPodPolicy Running: the workers went with the job's end, so none holds the claim.
    assert not pods(kubeconfig, "-l", "training.kubeflow.org/job-name=%s,training.kubeflow.org/job-role=worker" % job)


# The launcher's command as mpi-operator's examples/v2beta1/tensorflow-benchmarks writes it: mpirun
# without --tag-output, so no line says which rank printed it. The program and its settings are the
# training image's (launch-example.sh's), from the job's environment.
PLAIN_MPIRUN = (
    "mpirun --allow-run-as-root -np 4 -bind-to none -map-by slot -x PATH -mca pml ob1 -mca btl ^openib "
    "python3 -u /horovod-demo/tensorflow-demo/simulated_tf_cnn_benchmarks.py --model=resnet50 --variable_update=horovod "
    "--data_name=imagenet --data_dir=$DATA_DIR --batch_size=$batch_size --num_batches=$num_batch "
    "--display_every=$display_every --datasets_num_private_threads=$datasets_num_private_threads "
    "--image_bytes=$image_bytes --gpu_images_per_sec=$gpu_images_per_sec")


def test_the_plain_launcher_path_is_read_one_rank_a_step_line(kubeconfig, fluid, site_run):  # pylint: disable=unused-argument
    """train.yml with the launcher's command as mpi-operator's own example writes it (no
    --tag-output): the module reads the real untagged log, each step line one rank's, to the same
    job-wide figures as the tagged path (4 ranks, 30 steps, within the SIMULATED GPUs' rate)."""
    name = "plain-mpirun"
    try:
        run = run_playbook("playbooks/train.yml", extra_vars={"training_name": name, "training_command": PLAIN_MPIRUN})
        assert run.returncode == 0, run.output[-3000:]
        [result] = run.results(task="Run the training as an MPIJob and read its throughput")
        throughput = result["res"]["throughput"]
        assert (throughput["ranks"], throughput["tagged"], throughput["simulated"]) == (4, False, True), throughput
        assert throughput["last_step"] == 30 and 0 < throughput["images_per_sec_at_step"] <= 4 * 200, throughput
        [launcher] = pods(kubeconfig, "-l", "training.kubeflow.org/job-name=%s,training.kubeflow.org/job-role=launcher" % name)
        log = kubectl(kubeconfig, "logs", launcher["metadata"]["name"]).stdout
        assert "<stdout>" not in log and len(re.findall(r"^Input: .*read from %d files" % len(fluid), log, flags=re.M)) == 4, log[-3000:]
    finally:
        kubectl(kubeconfig, "delete", "mpijob", name, "--ignore-not-found", "--wait=true")


def test_a_worker_whose_command_is_not_in_the_image_fails_the_training_at_once(kubeconfig, site_run):  # pylint: disable=unused-argument
    """train.yml with workers whose command the image does not have, as an image made for Arena's
    older launcher may have no sshd: containerd cannot start the worker, which mpi-operator v2beta1
    does not replace (the launcher would never start). The task fails once mpi-operator counts the
    failed worker, not at training_timeout, naming the pod and containerd's reason."""
    name = "no-sshd"
    command = "/usr/sbin/sshd-not-in-the-image"
    try:
        run = run_playbook("playbooks/train.yml", extra_vars={
            "training_name": name, "training_workers": 1, "training_worker_command": [command, "-De"]})
        assert run.returncode != 0, run.output[-3000:]
        [result] = run.results(task="Run the training as an MPIJob and read its throughput")
        outcome = result["res"]
        assert not outcome["timed_out"], outcome
        assert re.search(r"MPIJob \S+/%s cannot start: worker %s-worker-0 \(worker: StartError, exit code 128: .*%s.*no such file"
                         % (name, name, command), outcome["msg"]), outcome["msg"]
        assert "The workers run %s -De: the launcher's mpirun reaches them over SSH" % command in outcome["msg"]
    finally:
        kubectl(kubeconfig, "delete", "mpijob", name, "--ignore-not-found", "--wait=true")


def test_a_pod_waits_in_container_creating_while_the_master_is_down_and_the_runbook_s_fix(
        kubeconfig, fluid, images, shell):
    """docs/runbooks/troubleshooting/fuse-pod-or-container-creating.md: the dataset's master
    scaled to 0, a pod that mounts the claim on a node with no FUSE pod yet waits in
    ContainerCreating (the FUSE pod started there never mounts); Confirm's commands show it, the
    Fix deletes the pod, starts the master, frees every block and makes the dataset again
    (docs/runbooks/recreate-dataset.md), and the pod, started again, runs with the dataset's
    bytes. Each half of the fix alone left the old master's state: started again only, a new FUSE
    pod read 2 of 32 files with other files' bytes (the new master, its journal in an emptyDir,
    numbers the blocks afresh) and, once the cache was freed, a warm-up's loader failed every file
    (the job workers' metadata cache); made again with the master at 0, the new worker loaded the
    old blocks left in its node's tier directory, and a pod read 2 of 32 files with validation
    files' bytes (test_runbooks.py's FUSE test caught it). Last of this file: making the dataset
    again deletes the bundle's finished training job."""
    node = node_without_fuse(kubeconfig, NODES)
    kubectl(kubeconfig, "scale", "statefulset", DATASET + "-master", "--replicas=0")
    kubectl(kubeconfig, "wait", "--for=delete", "pod/%s-master-0" % DATASET, "--timeout=300s")
    with running_pod(kubeconfig, pod("waiting", images["alluxio"], READ + " && sleep infinity",
                                     node=node, volumes=[("data", DATASET)])):
        wait_until(lambda: "timeout waiting for FUSE mount point to be ready" in events(kubeconfig, "Pod", "waiting"), 300, every=2,
                   what="the pod's FailedMount event")
        reason = kubectl(kubeconfig, "get", "pod", "waiting", "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason}").stdout
        assert reason == "ContainerCreating", reason
        stuck = dict(shell, POD="waiting", NODE=node)
        run(stuck, "fuse-describe-pod", state="symptom")
        on_node = run(stuck, "fuse-on-node")
        assert on_node.splitlines()[0] == "true" and DATASET + "-fuse-" in on_node and "Running" in on_node, on_node
        run(stuck, "fuse-master", state="symptom")
        run(stuck, "fuse-master-start")
        run(stuck, "fuse-master-clear")
    for block_id in ("recreate-delete", "recreate-make", "recreate-check"):
        run(shell, block_id)
    assert kubectl(kubeconfig, "get", "dataset", DATASET, "-o", "jsonpath={.status.cacheStates.cachedPercentage}").stdout == "100.0%"
    with running_pod(kubeconfig, pod("waiting", images["alluxio"], READ + " && sleep infinity", node=node, volumes=[("data", DATASET)])):
        kubectl(kubeconfig, "wait", "--for=condition=Ready", "pod/waiting", "--timeout=600s")
        run(stuck, "fuse-app-pod")
        wait_until(lambda: read_sums(kubectl(kubeconfig, "logs", "waiting").stdout) == fluid, 120, every=1,
                   what="the pod's md5sum of the dataset")
