"""Bad input stops the run with a clear message before any host changes.

Real hosts: podman containers from the project's Debian image, one privileged (with
/dev/fuse) and one unprivileged (without it), reached over SSH as a site's GPU nodes are
(tools/hostimage/ssh.sh). Each case runs the whole site.yml and then compares each host's state
with a snapshot taken before.
"""

import os
import subprocess
import uuid

import pytest
import yaml

from playbook import LOCAL_CHARTS, REPO, run_playbook

IMAGE = os.environ.get("FLUIDOPS_HOST_IMAGE")
SSH = os.path.join(REPO, "tools", "hostimage", "ssh.sh")
# What the node role would change on a host: fstab, mounts, FUSE config, limits, sysctls, packages.
SNAPSHOT = (
    "cat /etc/fstab; findmnt -rn -o TARGET,FSTYPE,OPTIONS | sort; cat /etc/fuse.conf 2>/dev/null; "
    "ls -la /etc/security/limits.d /etc/sysctl.d /var/lib/docker 2>&1; "
    "dpkg-query -W -f='${Package} ${Status}\\n' fuse3 libfuse2 2>&1 || true"
)


def podman(*args):
    return subprocess.run(["podman", *args], check=True, capture_output=True, text=True).stdout


class Hosts(dict):
    """{role: container name}, and ssh_dir: where ssh.sh keeps how to reach them."""

    ssh_dir = None


@pytest.fixture(scope="module")
def hosts(tmp_path_factory):
    if not IMAGE:
        pytest.fail("FLUIDOPS_HOST_IMAGE is not set: run through `make integration`, which builds the host image")
    suffix = uuid.uuid4().hex[:6]
    names = Hosts(good="pf-good-" + suffix, nofuse="pf-nofuse-" + suffix)
    names.ssh_dir = ssh_dir = str(tmp_path_factory.mktemp("ssh"))
    try:
        podman("run", "-d", "--name", names["good"], "--privileged", IMAGE)
        podman("run", "-d", "--name", names["nofuse"], IMAGE)
        subprocess.run([SSH, "start", ssh_dir, *("%s=%s" % (name, name) for name in names.values())],
                       check=True, capture_output=True, text=True)
        yield names
    finally:
        subprocess.run([SSH, "stop", ssh_dir], capture_output=True, check=False)
        subprocess.run(["podman", "rm", "-f", "-t", "0", *names.values()], capture_output=True, check=False)


def snapshot(name):
    return podman("exec", name, "sh", "-c", SNAPSHOT)


def connection(ssh_dir):
    """The hosts' connection variables: SSH through ssh.sh's configuration, modules pipelined."""
    return {"ansible_connection": "ssh", "ansible_user": "root", "ansible_ssh_args": "-F " + os.path.join(ssh_dir, "config"),
            "ansible_pipelining": True, "ansible_python_interpreter": "/usr/bin/python3"}


def write_inventory(tmp_path, hosts, *members):  # pylint: disable=redefined-outer-name
    """An inventory whose gpu_nodes are the hosts fixture's MEMBERS ("good", "nofuse")."""
    inventory = {
        "all": {
            "vars": dict(LOCAL_CHARTS, **NO_CLUSTER),
            "children": {
                "gpu_nodes": {
                    "hosts": {hosts[member]: None for member in members},
                    "vars": connection(hosts.ssh_dir) if members else {},
                }
            }
        }
    }
    path = tmp_path / "hosts.yml"
    path.write_text(yaml.safe_dump(inventory))
    return str(path)


def run_site(inventory, extra_vars=None, check=False, playbooks=("site.yml",), env=None):
    """The run (returncode, output; its events), the output's whitespace folded."""
    return run_playbook(*playbooks, inventory=inventory, extra_vars=extra_vars, check=check, env=env).folded()


MOUNT = {"path": "/ram/alluxio", "fstype": "ramfs", "size": "1Gi"}
# The plays of playbooks/preflight.yml, which change nothing.
PREFLIGHT_PLAYS = {"Check the inventory", "Find the GPU nodes", "Check every GPU node", "Check what the cluster must already serve"}
# These hosts are in no cluster: preflight's questions to an API server are the cluster suites',
# but for the one test of an API server that cannot be reached.
NO_CLUSTER = {"preflight_check_cluster": False}


def dataset(**runtime):
    base = {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}
    base.update(runtime)
    return {"datasets_list": [{"name": "imagenet", "mounts": [{"mount_point": "pvc://nfs-imagenet"}], "runtime": base}],
            "datasets_external_claims": ["nfs-imagenet"]}


def with_item(**fields):
    """dataset() whose datasets_list item has ``fields`` too."""
    variables = dataset()
    variables["datasets_list"][0].update(fields)
    return variables


def oss_dataset(**mount):
    base = {"mount_point": "oss://imagenet/data/", "options": {"fs.oss.endpoint": "oss-cn-shanghai.aliyuncs.com"}}
    base.update(mount)
    return {"datasets_list": [{"name": "imagenet", "mounts": [base],
                               "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}]}}]}


INLINE_KEYS = {"fs.oss.accessKeyId": "inline-id", "fs.oss.accessKeySecret": "inline-secret"}
KEYS = {"access_key_id": "an-id", "access_key_secret": "a-secret"}
STANDALONE = {"fluidops_engine": "alluxio", "alluxio_root_ufs": "oss://imagenet/data/", "alluxio_oss_credentials": KEYS}

BAD_VARIABLES = [
    pytest.param(
        {"gpu_node_cache_mounts": [dict(MOUNT, size="lots")]},
        "gpu_node_cache_mounts[0].size=lots on /ram/alluxio is not a byte quantity above zero",
        id="size-not-a-quantity",
    ),
    pytest.param(
        {"gpu_node_cache_mounts": [dict(MOUNT, size="0Gi")]},
        "gpu_node_cache_mounts[0].size=0Gi on /ram/alluxio is not a byte quantity above zero",
        id="size-zero",
    ),
    pytest.param(
        {"gpu_node_cache_mounts": [dict(MOUNT, path="ram/alluxio")]},
        "gpu_node_cache_mounts[0].path=ram/alluxio is not an absolute path",
        id="relative-mount-path",
    ),
    pytest.param(
        {"gpu_node_tier_dirs": [{"path": "var/lib/docker/alluxio"}]},
        "gpu_node_tier_dirs[0].path=var/lib/docker/alluxio is not an absolute path",
        id="relative-tier-path",
    ),
    pytest.param(
        {"gpu_node_cache_mounts": [dict(MOUNT, fstype="ext4")]},
        "value of fstype must be one of: ramfs, tmpfs, got: ext4 found in gpu_node_cache_mounts",
        id="unknown-fstype",
    ),
    pytest.param(
        {"gpu_node_tier_dirs": [{"path": "/var/lib/docker/jindo", "mode": "rwx"}]},
        'gpu_node_tier_dirs[0].mode=rwx is not a quoted octal mode such as "0750"',
        id="bad-mode",
    ),
    pytest.param(
        {"gpu_node_cache_mounts": [MOUNT], "gpu_node_tier_dirs": [{"path": "/ram/alluxio/"}]},
        "list a path more than once (/ram/alluxio)",
        id="duplicate-path",
    ),
    pytest.param(
        dataset(properties={"alluxio.user.client.cache.store.type": "MEMORY"}),
        "datasets_list[0] (imagenet).runtime.properties[alluxio.user.client.cache.store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; use MEM",
        id="seed-004-store-type",
    ),
    pytest.param(
        dataset(profile="dl-training-client-cache", properties={"alluxio.user.client.cache.size": "14GB"}),
        "datasets_list[0] (imagenet).runtime.properties (or its profile) has alluxio.user.client.cache.size=14GB with store type MEM: "
        "its pages live in the FUSE JVM's heap (16.00GiB)",
        id="client-cache-beyond-the-fuse-heap",
    ),
    pytest.param(
        dataset(fuse_resources={"requests": {"cpu": "4"}}),
        "datasets_list[0] (imagenet).runtime.fuse_resources sets no limits.memory: Fluid 1.0.8 then drops every FUSE resource",
        id="fuse-resources-without-a-memory-limit",
    ),
    pytest.param(
        dataset(replicas=4),
        "datasets_list[0] (imagenet).runtime.replicas=4 must be between 1 and the number of GPU nodes (1)",
        id="replicas-above-gpu-nodes",
    ),
    pytest.param(
        dataset(tiers=[{"medium": "SSD", "path": "/var/lib/docker/alluxio", "quota": "150Gi", "high": "0.8", "low": "0.9"}]),
        "watermarks high=0.8 low=0.9 must satisfy 0 < low < high <= 1",
        id="watermarks",
    ),
    pytest.param(
        dataset(tiers=[{"medium": "MEM", "path": "/dev/shm", "quota": "lots"}]),
        "datasets_list[0] (imagenet).runtime.tiers[0].quota=lots is not a quantity such as 100Gi or 180G",
        id="tier-quota-not-a-quantity",
    ),
    pytest.param(
        dataset(tiers=[{"medium": "RAM", "path": "/dev/shm", "quota": "1Gi"}]),
        "datasets_list[0] (imagenet).runtime.tiers[0].medium=RAM is not one of MEM, SSD, HDD",
        id="medium-type",
    ),
    pytest.param(
        dict(oss_dataset(oss_secret="imagenet-oss", options={"fs.oss.accessKeyId": "inline-id"}), datasets_oss_secrets={"imagenet-oss": KEYS}),
        "sets both oss_secret and inline fs.oss.accessKeyId: OSS keys come both from a Secret or both inline",
        id="oss-keys-mixed",
    ),
    pytest.param(
        oss_dataset(options={"fs.oss.accessKeyId": "inline-id"}),
        "options sets only fs.oss.accessKeyId: set both fs.oss.accessKeyId and fs.oss.accessKeySecret",
        id="oss-key-half-inline",
    ),
    pytest.param(
        oss_dataset(options=INLINE_KEYS),
        "holds OSS keys inline: put them in a Secret (oss_secret), or set allow_inline_credentials: true",
        id="oss-keys-inline-without-opt-in",
    ),
    pytest.param(
        oss_dataset(oss_secret="imagenet-oss"),
        "datasets_list references the Secret(s) imagenet-oss through oss_secret, but datasets_oss_secrets does not define them",
        id="oss-secret-undefined",
    ),
    pytest.param(
        dict(oss_dataset(oss_secret="imagenet-oss"), datasets_oss_secrets={"imagenet-oss": {"access_key_id": "CHANGE-ME", "access_key_secret": "x"}}),
        "The keys of datasets_oss_secrets.imagenet-oss are still placeholders (CHANGE-ME, xxx or <...>)",
        id="oss-key-placeholder",
    ),
    pytest.param(
        dict(oss_dataset(mount_point="s3://imagenet/", s3_secret="imagenet-s3", options={"alluxio.underfs.s3.endpoint": "http://store:7070"}),
             datasets_s3_secrets={"imagenet-s3": {"access_key_id": "<id>", "access_key_secret": "x"}}),
        "The keys of datasets_s3_secrets.imagenet-s3 are still placeholders (CHANGE-ME, xxx or <...>)",
        id="s3-key-placeholder",
    ),
    pytest.param(
        oss_dataset(mount_point="s3://imagenet/", s3_secret="imagenet-s3"),
        "datasets_list references the Secret(s) imagenet-s3 through s3_secret, but datasets_s3_secrets does not define them",
        id="s3-secret-undefined",
    ),
    pytest.param(
        {"datasets_list": [dict(dataset()["datasets_list"][0], name=name) for name in ("imagenet", "imagenet-val")]},
        "datasets_list: imagenet, imagenet-val use Exclusive placement (Fluid's default: one dataset's cache per node) and need 2 of the 1 GPU nodes",
        id="exclusive-datasets-do-not-fit",
    ),
    pytest.param(
        {"datasets_nfs_volumes": [{"name": "nfs-imagenet", "server": "nas", "path": "imagenet"}]},
        "datasets_nfs_volumes[0] (nfs-imagenet).path=imagenet is not an absolute path on the NFS server",
        id="nfs-relative-path",
    ),
    pytest.param(
        {"fluidops_engine": "spark"},
        "fluidops_engine=spark is not one of fluid, alluxio",
        id="unknown-engine",
    ),
    pytest.param(
        dict(STANDALONE, **dataset()),
        "datasets_list holds Fluid datasets, but fluidops_engine=alluxio deploys the standalone chart and no Fluid",
        id="datasets-without-fluid",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_tiers=[{"medium": "MEM", "path": "/ram/alluxio", "quota": "1Gi", "high": "1.5"}]),
        "alluxio_tiers[0] watermarks high=1.5 low=0.8 must satisfy 0 < low < high <= 1",
        id="standalone-watermarks",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_properties={"alluxio.user.client.cache.store.type": "MEMORY"}),
        "alluxio_properties[alluxio.user.client.cache.store.type]=MEMORY is not one of LOCAL, ROCKS, MEM; use MEM",
        id="standalone-seed-004-store-type",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_profile="dl-training-client-cache", alluxio_jvm_options={"fuse": ["-Xmx2G"]}),
        "alluxio_properties (or alluxio_profile dl-training-client-cache) has alluxio.user.client.cache.size=2000MB with store type MEM",
        id="standalone-client-cache-beyond-the-fuse-heap",
    ),
    pytest.param(
        {"datasets_namespace": "team-a", "node_labels_taints": []},
        "datasets_namespace is now fluidops_namespace; node_labels_taints is now fluidops_gpu_node_taints",
        id="renamed-variables",
    ),
    pytest.param(
        {"node_labels_extra": {"gpu pool": "training"}},
        "node_labels_extra keys must be label keys such as example.com/gpu-pool (got gpu pool)",
        id="label-key",
    ),
    # Quantities in a grammar the API refuses.
    pytest.param(
        {"datasets_nfs_volumes": [{"name": "nfs-imagenet", "server": "nas", "path": "/", "capacity": "150 GiB"}]},
        "datasets_nfs_volumes[0] (nfs-imagenet).capacity=150 GiB is not a quantity such as 150Gi",
        id="nfs-capacity-grammar",
    ),
    pytest.param(
        dataset(tiers=[{"medium": "MEM", "path": "/dev/shm", "quota": "1.5 GB"}]),
        "datasets_list[0] (imagenet).runtime.tiers[0].quota=1.5 GB is not a quantity such as 100Gi or 180G",
        id="tier-quota-grammar",
    ),
    # A string where a list or a mapping is expected.
    pytest.param(
        dataset(tiers="MEM:/dev/shm:1Gi"),
        "datasets_list[0] (imagenet).runtime.tiers must be a list, got a string (MEM:/dev/shm:1Gi)",
        id="tiers-as-string",
    ),
    pytest.param(
        dataset(jvm_options={"fuse": "-Xmx16G"}),
        "datasets_list[0] (imagenet).runtime.jvm_options.fuse must be a list, got a string (-Xmx16G)",
        id="jvm-options-as-string",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_s3_credentials=KEYS),
        "alluxio_root_ufs=oss://imagenet/data/ is on OSS, but alluxio_s3_credentials holds keys it would never read",
        id="standalone-keys-of-another-store",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_root_ufs="s3://imagenet/", alluxio_oss_credentials={}, alluxio_s3_credentials={"access_key_id": "id"}),
        "alluxio_s3_credentials must hold both access_key_id and access_key_secret (it has: access_key_id)",
        id="standalone-s3-key-missing",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_fuse_mount_options="kernel_cache,ro"),
        "alluxio_fuse_mount_options must be a list, got a string (kernel_cache,ro)",
        id="standalone-fuse-options-as-string",
    ),
    pytest.param(
        dict(dataset(), training_env="num_batch=1000"),
        "training_env must be a mapping, got a string (num_batch=1000)",
        id="training-env-as-string",
    ),
    # A ThinRuntime: its profile declared, its controller enabled.
    pytest.param(
        dict(dataset(), datasets_list=[{"name": "imagenet", "mounts": [{"mount_point": "pvc://nfs-imagenet"}],
                                        "runtime": {"type": "thin", "thin_profile": "s3fs"}}], fluid_runtimes=["alluxio", "thin"]),
        "datasets_list[0] (imagenet).runtime.thin_profile=s3fs is not a profile of datasets_thin_profiles (none is defined)",
        id="thin-profile-undeclared",
    ),
    pytest.param(
        dict(dataset(), datasets_list=[{"name": "imagenet", "mounts": [{"mount_point": "pvc://nfs-imagenet"}],
                                        "runtime": {"type": "thin", "thin_profile": "s3fs"}}],
             datasets_thin_profiles=[{"name": "s3fs", "file_system_type": "fuse.s3fs", "image": "s3fs-fuse:1.90"}],
             fluid_runtimes=["alluxio"]),
        "datasets_list item default/imagenet has a ThinRuntime, whose controller fluid_runtimes=['alluxio'] does not enable: "
        "add thin to fluid_runtimes.",
        id="thin-controller-not-enabled",
    ),
    # References that do not resolve.
    pytest.param(
        dict(dataset(), datasets_external_claims=[]),
        "datasets_list[0] (imagenet).mounts[0].mount_point=pvc://nfs-imagenet names the claim nfs-imagenet, which nothing "
        "declares in namespace default",
        id="claim-undeclared",
    ),
    pytest.param(
        dict(dataset(), warmup_datasets=[{"name": "imagenett", "namespace": "default", "warmup": {}}]),
        "warmup_datasets names imagenett, which is not a dataset of datasets_list (imagenet)",
        id="warmup-dataset-unknown",
    ),
    pytest.param(
        dict(dataset(), training_data_claim="imagenett"),
        "training_data_claim=imagenett is neither a dataset of datasets_list nor a volume of datasets_nfs_volumes",
        id="training-claim-unknown",
    ),
    # Duplicates.
    pytest.param(
        {"datasets_list": with_item(placement="Shared")["datasets_list"] * 2, "datasets_external_claims": ["nfs-imagenet"]},
        "datasets_list[1].name=imagenet is already used by datasets_list[0] in namespace default",
        id="duplicate-dataset",
    ),
    pytest.param(
        dict(dataset(), datasets_nfs_volumes=[{"name": "imagenet", "server": "nas", "path": "/"}]),
        "datasets_nfs_volumes[0].name=imagenet is already used by datasets_list[0] in namespace default",
        id="dataset-and-nfs-volume-share-a-name",
    ),
    # Names the API would refuse.
    pytest.param(
        {"fluidops_namespace": "Team_A"},
        "fluidops_namespace=Team_A is not a namespace name",
        id="namespace-name",
    ),
    pytest.param(
        with_item(namespace="team.a"),
        "datasets_list[0] (imagenet) would be refused: Dataset team.a/imagenet: metadata.namespace=team.a is not a DNS-1123 label",
        id="dataset-namespace-name",
    ),
    pytest.param(
        with_item(name="1k-imagenet"),
        "datasets_list[0] (1k-imagenet) would be refused: Dataset default/1k-imagenet: metadata.name=1k-imagenet is not a DNS-1035 label",
        id="dataset-name-fluid-refuses",
    ),
    pytest.param(
        {"node_labels_extra": {"example.com/gpu-pool": "pool a"}},
        'would be refused: Node {host}: metadata.labels[example.com/gpu-pool]="pool a" is not a label value',
        id="label-value",
    ),
    pytest.param(
        {"datasets_oss_secrets": {"imagenet-oss": {"access_key_id": "an-id", "access_key_secret": "a-secret", "namespace": "Team_A"}}},
        "datasets_oss_secrets[imagenet-oss] would be refused: Secret Team_A/imagenet-oss: metadata.namespace=Team_A is not a DNS-1123 label",
        id="secret-namespace-name",
    ),
    # Limits of the hardware.
    pytest.param(
        dict(dataset(), training_gpus_per_worker=16, gpu_node_expected_gpus=8),
        "training_gpus_per_worker=16 is more than the GPUs of",
        id="gpus-above-the-node",
    ),
    pytest.param(
        dict(dataset(tiers=[{"medium": "MEM", "path": "/ram/alluxio", "quota": "2Gi"}]), gpu_node_cache_mounts=[MOUNT]),
        "datasets_list[0] (imagenet).runtime.tiers[0].quota=2Gi puts 2.00GiB on /ram/alluxio, more than the cache mount "
        "gpu_node_cache_mounts[0].size=1Gi that the gpu_node role makes there",
        id="tier-above-the-cache-mount",
    ),
    # Values that only the charts' own objects show wrong: each chart is rendered (helm template)
    # and every object it would create checked, before anything changes.
    pytest.param(
        {"fluid_values": {"dataset": {"resources": {"limits": {"memory": "1 GB"}}}}},
        "fluid_values: chart fluid 1.0.8 renders objects the API server would refuse with these values: Deployment "
        'fluid-system/dataset-controller: spec.template.spec.containers[0].resources.limits.memory="1 GB" is not a '
        "Kubernetes quantity",
        id="fluid-values-rendered-bad-quantity",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_values={"master": {"ports": {"rpc": "19998/tcp"}}}),
        "alluxio_values: chart alluxio 0.6.54 renders objects the API server would refuse with these values: StatefulSet "
        "alluxio-master: spec.template.spec.containers[0].ports[0].containerPort=19998/tcp must be a whole number, got a string",
        id="alluxio-values-rendered-bad-port",
    ),
    # Unpinned versions.
    pytest.param(
        {"fluid_chart_version": "latest"},
        "fluid_chart_version=latest is not a pinned version: give an exact one (such as 1.0.8)",
        id="fluid-chart-latest",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_image_tag="latest"),
        "alluxio_image_tag=latest is not a pinned version",
        id="alluxio-image-latest",
    ),
    pytest.param(
        dict(dataset(), training_image="registry.example.com/horovod:latest"),
        "training_image=registry.example.com/horovod:latest does not pin the image",
        id="training-image-latest",
    ),
    # A rule of one engine's path checked on the other's too: FUSE options.
    pytest.param(
        dataset(fuse_args=["fuse", "--fuse-opts=kernel_cache,direct_io"]),
        "datasets_list[0] (imagenet).runtime.fuse_args has direct_io: seed 004 advises against it",
        id="fluid-fuse-direct-io",
    ),
    pytest.param(
        dict(STANDALONE, alluxio_fuse_mount_options=["kernel_cache", "attr_timeout=2h"]),
        "alluxio_fuse_mount_options has attr_timeout=2h: attr_timeout takes a number of seconds",
        id="standalone-fuse-timeout",
    ),
    # Thresholds the warm-up module would refuse, refused before anything changes.
    pytest.param(
        dict(with_item(warmup={}), warmup_cached_percentage=150),
        "The warm-up of imagenet: warmup_cached_percentage=150.0 must be between 0 and 100",
        id="warmup-percentage",
    ),
    pytest.param(
        dict(with_item(warmup={}), warmup_timeout=0),
        "The warm-up of imagenet: warmup_timeout=0 must be 1 or more seconds",
        id="warmup-timeout",
    ),
    # Credentials where they would be shown.
    pytest.param(
        dataset(properties={"fs.oss.accessKeyId": "an-id", "fs.oss.accessKeySecret": "a-secret"}),
        "datasets_list[0] (imagenet).runtime.properties (or its profile) holds fs.oss.accessKeyId, fs.oss.accessKeySecret",
        id="keys-in-runtime-properties",
    ),
]


# Render mode refuses bad input with the same preflight role (playbooks/render.yml) and one flag
# off: preflight_check_credentials, as it writes REDACTED for every key (it accepts placeholders on
# purpose). One case for each of the role's checks, and the node play's, is rendered too.
RENDER_CHECKED = {
    "size-not-a-quantity", "label-value",  # the GPU nodes' variables
    "renamed-variables", "unknown-engine",  # preflight's own asserts
    "standalone-watermarks", "fluid-chart-latest",  # each engine's validate
    "medium-type", "oss-keys-inline-without-opt-in",  # the datasets' validate
    "warmup-timeout",  # the warm-ups'
    "tier-above-the-cache-mount", "duplicate-dataset",  # inventory_problems
    "training-image-latest",  # the training job's
    "fluid-values-rendered-bad-quantity",  # the chart's objects
}


def test_every_case_rendered_is_a_case():
    assert RENDER_CHECKED <= {case.id for case in BAD_VARIABLES} - {"oss-key-placeholder"}


@pytest.mark.parametrize("extra_vars, message", BAD_VARIABLES)
def test_bad_variable_stops_before_anything_changes(request, hosts, tmp_path, extra_vars, message):
    inventory = write_inventory(tmp_path, hosts, "good")
    message = message.replace("{host}", hosts["good"])
    before = snapshot(hosts["good"])
    run = run_site(inventory, extra_vars)
    returncode, output = run
    assert returncode != 0
    assert message in output
    # No play after preflight's began: no host, cluster object or release was touched.
    assert set(run.plays()) <= PREFLIGHT_PLAYS
    assert snapshot(hosts["good"]) == before
    if request.node.callspec.id not in RENDER_CHECKED:
        return
    # Render mode refuses the same input before it writes anything, its marker included.
    render_dir = tmp_path / "rendered"
    returncode, output = run_site(inventory, dict(extra_vars, fluidops_render_dir=str(render_dir)), playbooks=("playbooks/render.yml",))
    assert returncode != 0
    assert message in output
    assert not render_dir.exists()


# helm runs on the controller for either engine's chart: on a PATH without it, preflight names the
# variable that points at it and how to install it before anything changes, and render mode before
# it renders or pulls a chart (the tests' inventories point the variables at the local cluster's helm).
@pytest.mark.parametrize("extra_vars, variable", [pytest.param({}, "fluid_helm_binary", id="fluid"),
                                                  pytest.param(STANDALONE, "alluxio_helm_binary", id="alluxio")])
def test_helm_missing_on_the_controller_is_named_before_anything_changes(hosts, tmp_path, extra_vars, variable):
    inventory = write_inventory(tmp_path, hosts, "good")
    path = os.pathsep.join(directory for directory in os.environ["PATH"].split(os.pathsep)
                           if not os.path.exists(os.path.join(directory, "helm")))
    extra_vars = dict(extra_vars, **{variable: "helm"})
    message = ("%s=helm is in no directory of the controller's PATH (%s): the engine's chart is pulled, rendered and "
               "installed with Helm 3 on the controller. Install Helm 3 there (https://helm.sh/docs/intro/install/), or set "
               "%s to its path." % (variable, path, variable))
    before = snapshot(hosts["good"])
    run = run_site(inventory, extra_vars, env=dict(os.environ, PATH=path))
    assert run.returncode != 0
    assert message in run.output, run.output[-3000:]
    assert set(run.plays()) <= PREFLIGHT_PLAYS
    assert snapshot(hosts["good"]) == before
    render_dir = tmp_path / "rendered"
    returncode, output = run_site(inventory, dict(extra_vars, fluidops_render_dir=str(render_dir)), playbooks=("playbooks/render.yml",),
                                  env=dict(os.environ, PATH=path))
    assert returncode != 0
    assert message in output
    assert not render_dir.exists()


def test_unknown_alluxio_property_is_warned_about_and_goes_through(hosts, tmp_path):
    inventory = write_inventory(tmp_path, hosts, "good")
    returncode, output = run_site(inventory, dataset(properties={"alluxio.user.client.cache.sizee": "1GB"}),
                                  playbooks=("playbooks/preflight.yml",))
    assert returncode == 0, output
    assert "WARNING datasets_list[0] (imagenet).runtime.properties[alluxio.user.client.cache.sizee]" in output


# An inventory with no host at all: ansible-playbook says so before the preflight does.
@pytest.mark.expected_warnings(r"\[WARNING\]: provided hosts list is empty, only localhost is available")
def test_empty_gpu_nodes_group_is_refused(tmp_path):
    inventory = write_inventory(tmp_path, None)
    returncode, output = run_site(inventory)
    assert returncode != 0
    assert "The inventory group gpu_nodes (fluidops_gpu_nodes_group) is empty" in output


def test_the_gpu_node_group_is_the_one_the_inventory_names(hosts, tmp_path):
    # A play's hosts line cannot read the inventory: playbooks/gpu_nodes.yml groups the hosts of
    # fluidops_gpu_nodes_group as fluidops_gpu_nodes, which the plays target.
    inventory = {"all": {"vars": dict(LOCAL_CHARTS, fluidops_gpu_nodes_group="v100", **NO_CLUSTER), "children": {"v100": {
        "hosts": {hosts["good"]: None}, "vars": connection(hosts.ssh_dir)}}}}
    path = tmp_path / "hosts.yml"
    path.write_text(yaml.safe_dump(inventory))
    run = run_site(str(path), playbooks=("playbooks/preflight.yml",))
    assert run.returncode == 0, run.output
    assert run.tasks("ok", play="Check every GPU node").get(hosts["good"]), run.output


def test_an_api_server_that_cannot_be_reached_stops_the_run_naming_its_kubeconfig(hosts, tmp_path):
    # A kubeconfig whose server refuses connections: preflight's last play asks it whether it
    # serves the training's MPIJob, after the inventory's and the nodes' checks passed.
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Config", "current-context": "gone", "clusters": [
        {"name": "gone", "cluster": {"server": "https://127.0.0.1:1"}}], "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "gone", "context": {"cluster": "gone", "user": "u"}}]}))
    inventory = write_inventory(tmp_path, hosts, "good")
    before = snapshot(hosts["good"])
    run = run_site(inventory, dict(dataset(), preflight_check_cluster=True, fluidops_kubeconfig=str(kubeconfig)))
    assert run.returncode != 0
    assert ("The API server of fluidops_kubeconfig=%s could not be asked whether it serves the MPIJob kind the training "
            "creates: " % kubeconfig) in run.output, run.output[-3000:]
    assert set(run.plays()) <= PREFLIGHT_PLAYS
    assert snapshot(hosts["good"]) == before


def test_host_without_dev_fuse_stops_every_host(hosts, tmp_path):
    inventory = write_inventory(tmp_path, hosts, "good", "nofuse")
    before = {name: snapshot(name) for name in hosts.values()}
    run = run_site(inventory)
    returncode, output = run
    assert returncode != 0
    assert hosts["nofuse"] + " has no usable /dev/fuse. It is a podman container: start it with --device /dev/fuse" in output
    assert "Prepare the GPU nodes" not in run.plays()
    assert {name: snapshot(name) for name in hosts.values()} == before


def test_check_mode_on_a_fresh_host_changes_nothing(hosts, tmp_path):
    inventory = write_inventory(tmp_path, hosts, "good")
    before = snapshot(hosts["good"])
    node_vars = {"gpu_node_cache_mounts": [MOUNT], "gpu_node_tier_dirs": [{"path": "/var/lib/docker/alluxio"}]}
    # The node phases only: the cluster phases of site.yml need a cluster these hosts are not in.
    run = run_site(inventory, node_vars, check=True, playbooks=("playbooks/preflight.yml", "playbooks/nodes.yml"))
    assert run.returncode == 0, run.output
    # Check mode reports what it would change on the fresh host, and changes none of it.
    assert run.changed_per_host()[hosts["good"]] > 0
    assert snapshot(hosts["good"]) == before
