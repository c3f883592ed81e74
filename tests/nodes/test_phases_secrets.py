"""No key of an object store reaches the output at -vvv, the run's artifacts (ansible-runner's job
events, stdout, command), a rendered file or the status JSON: keys in Secrets, vault-encrypted
keys, and keys inline in a Dataset (allow_inline_credentials); nor does the vault password reach
the artifacts. On the real nodes, whose dataset reads the S3 stand-in with its keys in the Secret
imagenet-s3; the OSS keys' Secrets the same way in tests/cluster (the benchmark's test applies
them inline).

Each mode has values of its own (keys.py), so a leak says which mode leaked. The Secrets' keys are
applied to the cluster and read back (the test fails if the mode was not exercised), then put
back: Fluid reads them again whenever the dataset's master starts. The inline keys go through
every check and render mode here."""

import base64
import json
import os

import pytest
from kubernetes import client

from keys import INLINE, PLAIN, VAULTED, leaks, leaks_in_run, vaulted_vars
from playbook import run_playbook


def secret_value(api, name, key):
    data = client.CoreV1Api(api).read_namespaced_secret(name, "default").data
    return base64.b64decode(data[key]).decode()


@pytest.fixture
def secrets_put_back(api):
    """The Secrets as they were, whatever happens: the inventory's with its data, if it was there,
    and none of this test's left."""
    core = client.CoreV1Api(api)
    before = {item.metadata.name: item.data for item in core.list_namespaced_secret("default").items}
    yield
    for name in ("imagenet-s3", "leakcheck-s3"):
        if name in before:
            core.patch_namespaced_secret(name, "default", {"data": before[name]})
        elif name in {item.metadata.name for item in core.list_namespaced_secret("default").items}:
            core.delete_namespaced_secret(name, "default")


def test_no_key_in_the_output_at_vvv_nor_in_the_status_json(api, site_run, secrets_put_back, tmp_path):  # pylint: disable=unused-argument
    path, password = vaulted_vars(tmp_path, "s3")
    status = tmp_path / "status.json"
    env = dict(os.environ, ANSIBLE_VAULT_PASSWORD_FILE=str(password))
    returncode, output = run_playbook("playbooks/datasets.yml", "playbooks/status.yml", extra_vars={
        "cache_status_json_path": str(status)}, extra_files=[str(path)], verbosity=3, env=env, data_dir=tmp_path / "run")
    assert returncode == 0, output[-3000:]
    # Both modes reached the cluster: the keys are in the Secrets, and nowhere else.
    assert secret_value(api, "imagenet-s3", "aws.accessKeyId") == VAULTED["access_key_id"]
    assert secret_value(api, "leakcheck-s3", "aws.secretKey") == PLAIN["access_key_secret"]
    assert leaks(output) == []
    assert os.listdir(tmp_path / "run" / "artifacts")  # the artifacts are there to search
    assert leaks_in_run(tmp_path / "run", password.read_text().strip()) == {}
    assert status.exists() and leaks(status.read_text()) == []


# Each store's inline keys, by Alluxio's names for them, with the values of keys.INLINE.
INLINE_MOUNTS = {
    "OSS": {"mount_point": "oss://imagenet/data/", "options": dict(INLINE, **{"fs.oss.endpoint": "oss-cn-shanghai-internal.aliyuncs.com"})},
    "S3": {"mount_point": "s3://imagenet/", "options": {"aws.accessKeyId": INLINE["fs.oss.accessKeyId"],
                                                        "aws.secretKey": INLINE["fs.oss.accessKeySecret"],
                                                        "alluxio.underfs.s3.endpoint": "http://s3.object-store.svc.cluster.local:7070"}},
}


@pytest.mark.parametrize("store", sorted(INLINE_MOUNTS))
def test_no_inline_key_in_the_checks_output_at_vvv_nor_in_rendered_files(store, tmp_path):
    path, password = vaulted_vars(tmp_path, "s3")
    inline = {"datasets_list": [{"name": "imagenet", "mounts": [dict(INLINE_MOUNTS[store], name="imagenet", allow_inline_credentials=True)],
                                 "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}], "profile": "dl-training",
                                             "replicas": 1}}]}
    # In a vars file, as a site would keep them: extra vars given inline are in the run's command artifact.
    inline_file = tmp_path / "inline.json"
    inline_file.write_text(json.dumps(inline))
    rendered = tmp_path / "rendered"
    env = dict(os.environ, ANSIBLE_VAULT_PASSWORD_FILE=str(password))
    returncode, output = run_playbook("playbooks/preflight.yml", "playbooks/render.yml", extra_vars={"fluidops_render_dir": str(rendered)},
                                      extra_files=[str(path), str(inline_file)], verbosity=3, env=env, data_dir=tmp_path / "run")
    assert returncode == 0, output[-3000:]
    assert "%s keys are inline in the Dataset (allow_inline_credentials)" % store in output  # the mode was exercised
    assert leaks(output) == []
    assert os.listdir(tmp_path / "run" / "artifacts")
    assert leaks_in_run(tmp_path / "run", password.read_text().strip()) == {}
    files = sorted(rendered.glob("*.yaml"))
    assert files and {str(f): leaks(f.read_text()) for f in files if leaks(f.read_text())} == {}
