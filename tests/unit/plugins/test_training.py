"""The tf_cnn_benchmarks log reader, the training job's manifest and Arena arguments, DATA_DIR,
the benchmark report and the teardown's pod check. Log fixtures are in tf_cnn_benchmarks' format
(branch cnn_tf_v1.14_compatible), with numbers from seed 003's tables."""

import json
import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.dataset_refs import dataset_refs
from ansible_collections.fluidops.accel.plugins.filter.pods import pods_using_claims
from ansible_collections.fluidops.accel.plugins.filter.training import FilterModule
from ansible_collections.fluidops.accel.plugins.module_utils.training.benchmark_report import chart, document, hms, markdown
from ansible_collections.fluidops.accel.plugins.module_utils.training.tf_cnn_log import parse

FILTERS = FilterModule().filters()
training_job, tf_cnn_benchmarks_log = FILTERS["training_job"], FILTERS["tf_cnn_benchmarks_log"]
LOGS = os.path.join(os.path.dirname(__file__), "..", "fixtures", "logs")


def log(name):
    with open(os.path.join(LOGS, name), encoding="utf-8") as handle:
        return handle.read()


def test_tagged_ranks_are_summed_each_once_and_split_lines_joined():
    # 2 x 4 ranks with --tag-output, each printing its own rate; rank 3's step-200 line is split
    # by rank 5's chunk and finished later (OpenMPI tags both fragments).
    text = log("tagged-2x4-interleaved.log")
    result = tf_cnn_benchmarks_log(text, 100)
    assert result["ranks"] == 8 and result["tagged"] is True
    assert result["images_per_sec_at_step"] == round(640.1 + 652.3 + 650.0 + 649.5 + 651.2 + 647.8 + 653.0 + 648.9, 1)
    assert result["ranks_read_at_step"] == 8
    steps = {s["step"]: s for s in parse(text)["steps"]}
    assert steps[200]["ranks_read"] == 8
    assert steps[200]["images_per_sec"] == round(655.0 + 660.2 + 658.8 + 657.1 + 659.9 + 656.4 + 661.7 + 657.5, 1)
    assert result["last_step"] == 300
    assert result["images_per_sec_at_last_step"] == round(661.3 + 664.0 + 662.2 + 663.8 + 665.1 + 660.9 + 666.6 + 662.4, 1)
    # Every rank prints a job-wide total (its own rate x hvd.size()): the median, never the sum.
    assert result["total_images_per_sec"] == round((5283.90 + 5285.77) / 2, 2)
    assert result["estimated_seconds"] == round(300 * 2048 / result["total_images_per_sec"], 1)


def test_a_fragment_that_starts_with_a_space_is_joined_byte_for_byte():
    # OpenMPI 4 tags each fragment with no space after the colon; the fragment's own space stays.
    text = ("[1,0]<stdout>:100\timages/sec: 650.1 +/-[1,1]<stdout>:100\timages/sec: 651.0 +/- 1.2 (jitter = 8.4)\t6.001\n"
            "[1,0]<stdout>: 1.2 (jitter = 8.4)\t6.000\n")
    steps = parse(text)["steps"]
    assert [(s["step"], s["images_per_sec"], s["ranks_read"]) for s in steps] == [(100, 1301.1, 2)]
    # OpenMPI 5 puts a space after every tag and never splits a line.
    ompi5 = ("[1,1]<stdout>: 100\timages/sec: 651.0 +/- 1.2 (jitter = 8.4)\t6.001\n"
             "[1,0]<stdout>: 100\timages/sec: 650.1 +/- 1.2 (jitter = 8.4)\t6.000\n")
    assert parse(ompi5)["steps"] == steps


def test_a_rank_rate_is_not_the_jobs():
    # The bug this reader had: rank 0's 640.1 reported as the job's rate.
    result = tf_cnn_benchmarks_log(log("tagged-2x4-interleaved.log"), 100)
    assert result["images_per_sec_at_step"] > 8 * 600


def test_untagged_lines_count_one_rank_each_and_the_arena_path_keeps_the_last_line():
    # No --tag-output, read through Ansible's command (no final newline): the accuracy line is
    # the last and still read; the step-1000 line cut by another process's output is not.
    text = log("untagged-1x8-arena.log")
    assert not text.endswith("\n")
    result = tf_cnn_benchmarks_log(text, 1000)
    assert result["ranks"] == 8 and result["tagged"] is False
    assert result["ranks_read_at_step"] == 6
    read = [300.0, 301.2, 299.9, 300.8, 301.5, 300.1]
    assert result["images_per_sec_at_step"] == round(sum(read) / 6 * 8, 1)
    assert result["images_per_sec_at_last_step"] == round(1086.2 + 1087.0 + 1085.9 + 1086.8 + 1087.5 + 1086.0 + 1086.4 + 1086.1, 1)
    assert (result["accuracy_top1"], result["accuracy_top5"]) == (0.7602, 0.9282)
    assert result["total_images_per_sec"] == 8691.19
    # The same log with its newline back reads the same (the MPIJob path).
    assert tf_cnn_benchmarks_log(text + "\n", 1000) == result


def test_a_cut_off_last_line_is_not_read_with_or_without_a_newline():
    text = log("cut-off-timestamped.log")
    assert text.endswith("\n")
    for variant in (text, text.rstrip("\n")):
        steps = parse(variant)["steps"]
        assert [(s["step"], s["images_per_sec"], s["ranks_read"]) for s in steps] == [(1000, 1303.9, 2), (1100, 1304.3, 2)]


def test_a_step_between_printed_steps_reads_the_one_before():
    result = tf_cnn_benchmarks_log(log("tagged-2x4-interleaved.log"), 250)
    assert result["step_read"] == 200
    assert tf_cnn_benchmarks_log("", 1000)["images_per_sec_at_step"] is None


PARAMS = {"launcher": "mpijob", "name": "horovod-resnet50-v2-4x8-fluid", "namespace": "default", "workers": 4, "gpus_per_worker": 8,
          "image": "horovod-benchmark:0.18.1", "working_dir": "/horovod-demo/tensorflow-demo/", "command": "./launch-example.sh 4 8",
          "worker_command": ["/usr/sbin/sshd", "-De"], "env": {"num_batch": "1000", "datasets_num_private_threads": "8"}, "mount_path": "/data", "data_dir": "",
          "datasets": [{"name": "imagenet", "mounts": [{"mount_point": "oss://b/imagenet/", "name": "imagenet"}]},
                       {"name": "fluid-imagenet", "mounts": [{"mount_point": "pvc://nfs-imagenet", "name": "nfs-imagenet"}],
                        "data_subdir": "imagenet"},
                       {"name": "imagenet-baseline", "cache": False, "mounts": [{"mount_point": "s3://imagenet/", "name": "imagenet"}]}],
          "nfs_volumes": [{"name": "nfs-imagenet", "data_subdir": "imagenet"}], "claim": "imagenet",
          "node_selector": {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"},
          "tolerations": [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]}


@pytest.mark.parametrize("claim, expected", [("imagenet", "/data/imagenet"), ("fluid-imagenet", "/data/nfs-imagenet/imagenet"),
                                             ("nfs-imagenet", "/data/imagenet"),
                                             # A ThinRuntime's FUSE program mounts the bucket at the claim's root.
                                             ("imagenet-baseline", "/data")])
def test_data_dir_follows_the_seeds(claim, expected):
    assert training_job(dict(PARAMS, claim=claim), 4)["data_dir"] == expected


def test_the_mpijob_puts_the_claim_and_gpus_on_the_workers_only():
    job = training_job(PARAMS, 4)["mpijob"]
    assert (job["apiVersion"], job["kind"], job["spec"]["slotsPerWorker"]) == ("kubeflow.org/v2beta1", "MPIJob", 8)
    launcher = job["spec"]["mpiReplicaSpecs"]["Launcher"]["template"]["spec"]
    worker = job["spec"]["mpiReplicaSpecs"]["Worker"]
    # Both on the GPU nodes, tolerating the taints node_labels sets there.
    for spec in (launcher, worker["template"]["spec"]):
        assert spec["nodeSelector"] == {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"}
        assert spec["tolerations"] == [{"operator": "Equal", "key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]
    assert "volumes" not in launcher and launcher["containers"][0]["command"] == ["/bin/sh", "-c", "./launch-example.sh 4 8"]
    assert worker["replicas"] == 4
    assert worker["template"]["spec"]["volumes"] == [{"name": "data", "persistentVolumeClaim": {"claimName": "imagenet"}}]
    container = worker["template"]["spec"]["containers"][0]
    # The workers serve SSH, and the launcher starts once they all do: its mpirun reaches each once.
    assert container["command"] == ["/usr/sbin/sshd", "-De"]
    assert job["spec"]["launcherCreationPolicy"] == "WaitForWorkersReady"
    assert container["resources"] == {"limits": {"nvidia.com/gpu": "8"}}
    assert container["volumeMounts"] == [{"name": "data", "mountPath": "/data", "mountPropagation": "HostToContainer"}]
    assert {e["name"]: e["value"] for e in container["env"]} == {"DATA_DIR": "/data/imagenet", "num_batch": "1000",
                                                                 "datasets_num_private_threads": "8"}


def test_arena_arguments_are_the_seeds_command():
    args = training_job(dict(PARAMS, workers=1, command="./launch-example.sh 1 8", claim="nfs-imagenet"), 4)["arena_args"]
    assert args == ["arena", "submit", "mpi", "--name", "horovod-resnet50-v2-4x8-fluid", "--namespace", "default", "--gpus=8",
                    "--workers=1", "--working-dir=/horovod-demo/tensorflow-demo/", "--data", "nfs-imagenet:/data",
                    "-e", "DATA_DIR=/data/imagenet", "-e", "datasets_num_private_threads=8", "-e", "num_batch=1000",
                    "--label=app.kubernetes.io/managed-by=fluidops", "--image=horovod-benchmark:0.18.1",
                    "./launch-example.sh", "1", "8"]


def mpijob_crd(*versions):
    """The CRD mpijobs.kubeflow.org with these (name, served) versions."""
    return {"kind": "CustomResourceDefinition", "metadata": {"name": "mpijobs.kubeflow.org"},
            "spec": {"group": "kubeflow.org", "versions": [{"name": name, "served": served} for name, served in versions]}}


WANTS_V2BETA1 = ("training_launcher=mpijob creates a kubeflow.org/v2beta1 MPIJob, which mpi-operator serves, but the cluster does "
                 "not serve it: %s. Install mpi-operator (v0.7.0: its manifests/overlays/standalone) in its place; or set "
                 "training_launcher=arena")


@pytest.mark.parametrize("launcher, crd, problems", [
    ("mpijob", mpijob_crd(("v2beta1", True)), []),
    ("mpijob", None, [WANTS_V2BETA1 % "it has no CustomResourceDefinition mpijobs.kubeflow.org"
                      + " on a cluster that runs Arena's operator"]),
    ("mpijob", mpijob_crd(("v1alpha1", True)), [WANTS_V2BETA1 % (
        "its CustomResourceDefinition mpijobs.kubeflow.org serves v1alpha1 (Arena's MPIJob operator)")
        + ": the cluster runs Arena's operator"]),
    ("mpijob", mpijob_crd(("v1", True), ("v2beta1", False)), [WANTS_V2BETA1 % (
        "its CustomResourceDefinition mpijobs.kubeflow.org serves v1 (the Kubeflow training operator)")
        + " on a cluster that runs Arena's operator"]),
    ("mpijob", mpijob_crd(("v2beta1", False)), [WANTS_V2BETA1 % "its CustomResourceDefinition mpijobs.kubeflow.org serves no version"
                                                + " on a cluster that runs Arena's operator"]),
    ("arena", None, []),
])
def test_the_cluster_must_serve_the_job_the_launcher_creates(launcher, crd, problems):
    assert FILTERS["training_launcher_problems"](launcher, crd) == problems


@pytest.mark.parametrize("change, message", [
    ({"workers": 5}, "training_workers=5 must be between 1 and the number of GPU nodes (4)"),
    ({"gpus_per_worker": 0}, "training_gpus_per_worker=0 must be between 1 and 16"),
    ({"launcher": "kubectl"}, "training_launcher=kubectl is not one of mpijob, arena"),
    ({"node_names": ["gpu-1", "gpu-2"], "node_gpus": [8, "4"]},
     "training_gpus_per_worker=8 is more than the GPUs of gpu-2 (4) (gpu_node_expected_gpus)"),
    ({"image": "horovod-benchmark:latest"}, "training_image=horovod-benchmark:latest does not pin the image"),
    ({"image": "registry:5000/horovod"}, "training_image=registry:5000/horovod does not pin the image"),
    ({"namespace": "Team_A"}, "training_namespace=Team_A is not a namespace name"),
    ({"env": "num_batch=1000"}, "training_env must be a mapping, got a string (num_batch=1000)"),
    ({"worker_command": "/usr/sbin/sshd -De"}, "training_worker_command=/usr/sbin/sshd -De must be a command as a list of words"),
    ({"worker_command": []}, "training_worker_command=[] must be a command as a list of words"),
    ({"claim": "coco"}, "training_data_claim=coco is neither a dataset of datasets_list nor a volume of datasets_nfs_volumes "
                        "(known: imagenet, fluid-imagenet, imagenet-baseline, nfs-imagenet)"),
])
def test_bad_training_variables_are_named(change, message):
    with pytest.raises(AnsibleFilterError) as error:
        training_job(dict(PARAMS, **change), 4)
    assert message in str(error.value)


RUNS = [{"label": "nfs", "duration_seconds": 8159, "throughput": {"images_per_sec_at_step": 3136.0, "images_per_sec_at_last_step": 15024.0,
                                                                  "last_step": 14070, "accuracy_top5": 0.9228, "simulated": False}},
        {"label": "fluid (cold)", "duration_seconds": 6223, "throughput": {"images_per_sec_at_step": 8889.6,
                                                                           "images_per_sec_at_last_step": 20506.3,
                                                                           "last_step": 14070, "accuracy_top5": 0.9204}},
        {"label": "fluid (warm)", "duration_seconds": 5542, "throughput": {"images_per_sec_at_step": 20859.5,
                                                                           "images_per_sec_at_last_step": 21329.0,
                                                                           "last_step": 14070, "accuracy_top5": 0.9243}}]


def test_the_report_has_the_seeds_rows():
    text = markdown("ResNet-50 4x8", RUNS, 1000)
    assert "| | nfs | fluid (cold) | fluid (warm) |\n|---|---|---|---|" in text
    assert "| Training time | 2h15m59s | 1h43m43s | 1h32m22s |" in text
    assert "| Speed at the 1000 step(images/second) | 3136 | 8889.6 | 20859.5 |" in text
    assert "| Accuracy @ 5 | 0.9228 | 0.9204 | 0.9243 |" in text
    assert "- fluid (warm): training time -32%, speed at step 1000 x6.65" in text
    assert "SIMULATED" not in text
    assert "Speeds are job-wide: the sum of the ranks' images/sec at that step" in text
    assert json.loads(document("t", RUNS, 1000))["runs"][2]["training_time"] == "1h32m22s"
    assert chart("t", RUNS, 1000)[:8] == b"\x89PNG\r\n\x1a\n"
    assert hms(None) == "-"


def test_a_simulated_run_is_reported_in_its_log_s_own_words():
    note = ("SIMULATED GPU: no GPU and no TensorFlow ran; each step computes for batch / 200.0 images/sec. "
            "The reads of /data are real.")
    text = "\n".join(["[1,1]<stdout>:" + note, "[1,0]<stdout>:" + note.replace("/data", "/data/imagenet"),
                      "[1,0]<stdout>:Done warm up", "[1,0]<stdout>:Step\tImg/sec\ttotal_loss"])
    assert parse(text)["simulated_note"] == note
    assert parse("Step\tImg/sec\ttotal_loss")["simulated_note"] is None
    runs = [dict(RUNS[0], throughput=dict(RUNS[0]["throughput"], simulated=True, simulated_note=note)), RUNS[1]]
    report = markdown("t", runs, 1000)
    assert "SIMULATED: no GPU ran. Each run's log says what stood in for it:\n\n- nfs: " + note + "\n" in report
    assert "- fluid (cold):" not in report.split("|", maxsplit=1)[0]


def test_each_rank_s_read_rate_is_read_in_rank_order_and_reported():
    # The training image's last line per rank; rank 1 ends first, and a line cut off is not read.
    tagged = "\n".join(["[1,1]<stdout>:Input: 248 images, 1.9 MiB read from 32 files at 61.5 MiB/s",
                        "[1,0]<stdout>:Input: 248 images, 1.9 MiB read from 32 files at 58.2 MiB/s",
                        "[1,2]<stdout>:Input: 248 images, 1.9 MiB read from 32 files at 6"])
    assert tf_cnn_benchmarks_log(tagged, 10)["read_mib_per_sec"] == [58.2, 61.5]
    plain = "Input: 248 images, 1.9 MiB read from 32 files at 12.0 MiB/s\nInput: 248 images, 1.9 MiB read from 32 files at 9.5 MiB/s"
    assert tf_cnn_benchmarks_log(plain, 10)["read_mib_per_sec"] == [12.0, 9.5]
    assert tf_cnn_benchmarks_log(log("untagged-1x8-arena.log"))["read_mib_per_sec"] == []
    runs = [dict(RUNS[0], throughput=dict(RUNS[0]["throughput"], read_mib_per_sec=[58.2, 61.5]))] + RUNS[1:]
    assert "| Read per rank (MiB/s) | 58.2, 61.5 | - | - |" in markdown("t", runs, 1000)


def test_pods_using_claims():
    pods = [{"metadata": {"name": "a", "namespace": "default"}, "status": {"phase": "Running"},
             "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "imagenet"}}, {"name": "e", "emptyDir": {}}]}},
            {"metadata": {"name": "b", "namespace": "default"}, "spec": {}}]
    assert pods_using_claims(pods, ["imagenet", "nfs-imagenet"]) == [
        {"namespace": "default", "name": "a", "claim": "imagenet", "phase": "Running"}]
    # Refs of fluidops_datasets_model match in their own namespace only.
    assert pods_using_claims(pods, [{"claim": "imagenet", "namespace": "team-a"}]) == []
    assert [p["name"] for p in pods_using_claims(pods, [{"claim": "imagenet", "namespace": "default"}])] == ["a"]


def test_dataset_refs_carry_names_and_namespaces_never_credentials():
    datasets = [{"name": "imagenet", "mounts": [{"mount_point": "oss://b/d/", "name": "imagenet",
                                                 "options": {"fs.oss.accessKeySecret": "s3cr3t"}}],
                 "runtime": {"type": "jindo"}, "warmup": {"targets": []}},
                {"name": "coco", "namespace": "team-a"},
                {"name": "baseline", "mounts": [{"mount_point": "s3://b/", "name": "b", "options": {"aws.secretKey": "s3cr3t"}}],
                 "runtime": {"type": "thin", "thin_profile": "s3fs"}}]
    refs = dataset_refs(datasets, [{"name": "nfs-imagenet", "server": "n", "path": "/x", "data_subdir": "imagenet"}],
                        {"imagenet-oss": {"access_key_id": "id", "access_key_secret": "s3cr3t", "namespace": "team-a"}}, "default",
                        None, [{"name": "s3fs", "image": "s3fs-fuse:1.90", "env": {"TOKEN": "s3cr3t"}}, {"image": "nameless"}])
    assert refs["datasets"] == [
        {"name": "imagenet", "namespace": "default", "runtime_kind": "JindoRuntime", "cache": True, "claim": "imagenet",
         "volume": "default-imagenet", "mounts": [{"name": "imagenet", "mount_point": "oss://b/d/"}], "cache_dirs": [],
         "warmup": {"targets": []}},
        {"name": "coco", "namespace": "team-a", "runtime_kind": "AlluxioRuntime", "cache": True, "claim": "coco", "volume": "team-a-coco",
         "mounts": [], "cache_dirs": []},
        {"name": "baseline", "namespace": "default", "runtime_kind": "ThinRuntime", "cache": False, "claim": "baseline",
         "volume": "default-baseline", "mounts": [{"name": "b", "mount_point": "s3://b/"}], "cache_dirs": []}]
    assert refs["thin_profiles"] == ["s3fs"]
    assert refs["nfs_volumes"] == [{"name": "nfs-imagenet", "namespace": "default", "claim": "nfs-imagenet", "volume": "nfs-imagenet",
                                    "data_subdir": "imagenet"}]
    # What a benchmark can compare a cache with: the NFS volumes first, then the datasets without one.
    assert [(ref["name"], ref["claim"]) for ref in refs["baselines"]] == [("nfs-imagenet", "nfs-imagenet"), ("baseline", "baseline")]
    assert refs["secrets"] == [{"name": "imagenet-oss", "namespace": "team-a"}]
    assert refs["namespaces"] == ["default", "team-a"]
    assert "s3cr3t" not in repr(refs)


def test_a_dataset_s_cache_dirs_are_its_host_path_tiers_under_namespace_and_name_as_fluid_names_them():
    tiers = [{"medium": "MEM", "path": "/dev/shm/", "quota": "2Gi"},
             {"medium": "SSD", "path": "/mnt/a,/mnt/b", "quota": "150Gi", "volume_type": "hostPath"},
             {"medium": "HDD", "path": "/cache", "quota": "1Ti", "volume_type": "emptyDir"},
             {"medium": "HDD", "path": "relative,/", "quota": "1Ti"}]
    refs = dataset_refs([{"name": "imagenet", "namespace": "team", "runtime": {"tiers": tiers}},
                         {"name": "coco", "runtime": {"type": "jindo", "tiers": [{"path": "/dev/shm"}]}}])
    assert [ref["cache_dirs"] for ref in refs["datasets"]] == [
        ["/dev/shm/team/imagenet", "/mnt/a/team/imagenet", "/mnt/b/team/imagenet"], ["/dev/shm/default/coco"]]


def test_dataset_refs_skip_malformed_items_for_the_datasets_checks_to_name():
    refs = dataset_refs([{"mounts": [{"mount_point": "oss://b/"}]}, "imagenet", {"name": "ok", "runtime": "alluxio"}], [{}], None)
    assert [d["name"] for d in refs["datasets"]] == ["ok"] and refs["nfs_volumes"] == [] and refs["secrets"] == []
