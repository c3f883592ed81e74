"""The tf_cnn_benchmarks log reader, the training job's manifest and Arena arguments, DATA_DIR,
the benchmark report and the teardown's pod check. Log fixtures are in tf_cnn_benchmarks' format
(branch cnn_tf_v1.14_compatible), with numbers from seed 003's tables."""

import json
import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.fluidops.accel.plugins.filter.pods import pods_using_claims
from ansible_collections.fluidops.accel.plugins.filter.training import FilterModule
from ansible_collections.fluidops.accel.plugins.module_utils.benchmark_report import chart, document, hms, markdown
from ansible_collections.fluidops.accel.plugins.module_utils.tf_cnn_log import parse

FILTERS = FilterModule().filters()
training_job, tf_cnn_benchmarks_log = FILTERS["training_job"], FILTERS["tf_cnn_benchmarks_log"]
LOGS = os.path.join(os.path.dirname(__file__), "..", "fixtures", "logs")


def log(name):
    with open(os.path.join(LOGS, name), encoding="utf-8") as handle:
        return handle.read()


def test_tagged_ranks_are_counted_once_with_rank_zeros_value():
    result = tf_cnn_benchmarks_log(log("tagged-4x8-cold.log"), 1000)
    assert result["images_per_sec_at_step"] == 8889.6 and result["step_read"] == 1000
    assert result["last_step"] == 14070 and result["images_per_sec_at_last_step"] == 20506.3
    assert result["total_images_per_sec"] == 20498.72
    assert (result["accuracy_top1"], result["accuracy_top5"]) == (0.753, 0.9204)
    assert result["steps_read"] == 4 and not result["simulated"]
    assert result["estimated_seconds"] == round(14070 * 8192 / 20498.72, 1)
    assert [step["ranks"] for step in parse(log("tagged-4x8-cold.log"))["steps"]] == [2, 2, 2, 2]


def test_untagged_output_keeps_the_first_value_of_each_step():
    result = tf_cnn_benchmarks_log(log("untagged-1x8-nfs.log"), 1000)
    assert result["images_per_sec_at_step"] == 2400.8 and result["images_per_sec_at_last_step"] == 8696.8
    assert result["accuracy_top5"] == 0.9282 and result["last_step"] == 56300


def test_interleaved_and_cut_off_lines_are_not_read():
    steps = parse(log("truncated-timestamped.log"))["steps"]
    # The rank-1 line cut by rank 0's is dropped; the last line has no newline: the log ends mid-write.
    assert [(s["step"], s["images_per_sec"]) for s in steps] == [(1000, 20859.5)]


def test_a_step_between_printed_steps_reads_the_one_before():
    result = tf_cnn_benchmarks_log(log("tagged-4x8-cold.log"), 5000)
    assert result["step_read"] == 1000 and result["images_per_sec_at_step"] == 8889.6
    assert tf_cnn_benchmarks_log("", 1000)["images_per_sec_at_step"] is None


PARAMS = {"launcher": "mpijob", "name": "horovod-resnet50-v2-4x8-fluid", "namespace": "default", "workers": 4, "gpus_per_worker": 8,
          "image": "horovod-benchmark", "working_dir": "/horovod-demo/tensorflow-demo/", "command": "./launch-example.sh 4 8",
          "env": {"num_batch": "1000", "datasets_num_private_threads": "8"}, "mount_path": "/data", "data_dir": "",
          "datasets": [{"name": "imagenet", "mounts": [{"mount_point": "oss://b/imagenet/", "name": "imagenet"}]},
                       {"name": "fluid-imagenet", "mounts": [{"mount_point": "pvc://nfs-imagenet", "name": "nfs-imagenet"}],
                        "data_subdir": "imagenet"}],
          "nfs_volumes": [{"name": "nfs-imagenet", "data_subdir": "imagenet"}], "claim": "imagenet",
          "node_selector": {"aliyun.accelerator/nvidia_name": "Tesla-V100-SXM2-16GB"},
          "tolerations": [{"key": "fluidops.io/dedicated", "value": "training", "effect": "NoSchedule"}]}


@pytest.mark.parametrize("claim, expected", [("imagenet", "/data/imagenet"), ("fluid-imagenet", "/data/nfs-imagenet/imagenet"),
                                             ("nfs-imagenet", "/data/imagenet")])
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
    assert container["resources"] == {"limits": {"nvidia.com/gpu": "8"}}
    assert {e["name"]: e["value"] for e in container["env"]} == {"DATA_DIR": "/data/imagenet", "num_batch": "1000",
                                                                 "datasets_num_private_threads": "8"}


def test_arena_arguments_are_the_seeds_command():
    args = training_job(dict(PARAMS, workers=1, command="./launch-example.sh 1 8", claim="nfs-imagenet"), 4)["arena_args"]
    assert args == ["arena", "submit", "mpi", "--name", "horovod-resnet50-v2-4x8-fluid", "--namespace", "default", "--gpus=8",
                    "--workers=1", "--working-dir=/horovod-demo/tensorflow-demo/", "--data", "nfs-imagenet:/data",
                    "-e", "DATA_DIR=/data/imagenet", "-e", "datasets_num_private_threads=8", "-e", "num_batch=1000",
                    "--image=horovod-benchmark", "./launch-example.sh", "1", "8"]


@pytest.mark.parametrize("change, message", [
    ({"workers": 5}, "training_workers=5 must be between 1 and the number of GPU nodes (4)"),
    ({"gpus_per_worker": 0}, "training_gpus_per_worker=0 must be between 1 and 16"),
    ({"launcher": "kubectl"}, "training_launcher=kubectl is not one of mpijob, arena"),
    ({"claim": "coco"}, "training_data_claim=coco is neither a dataset of datasets_list nor a volume of datasets_nfs_volumes "
                        "(known: imagenet, fluid-imagenet, nfs-imagenet)"),
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
    assert json.loads(document("t", RUNS, 1000))["runs"][2]["training_time"] == "1h32m22s"
    assert chart("t", RUNS, 1000)[:8] == b"\x89PNG\r\n\x1a\n"
    assert hms(None) == "-"


def test_pods_using_claims():
    pods = [{"metadata": {"name": "a", "namespace": "default"}, "status": {"phase": "Running"},
             "spec": {"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "imagenet"}}, {"name": "e", "emptyDir": {}}]}},
            {"metadata": {"name": "b", "namespace": "default"}, "spec": {}}]
    assert pods_using_claims(pods, ["imagenet", "nfs-imagenet"]) == ["default/a (imagenet, Running)"]
