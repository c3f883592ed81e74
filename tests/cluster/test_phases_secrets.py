"""No OSS key reaches the output at -vvv, a rendered file or the status JSON: keys in Secrets,
vault-encrypted keys, and keys inline in a Dataset (allow_inline_credentials). Real apiserver,
Fluid controllers and ansible-vault; simulated kubelets.

Each mode has values of its own, so a leak says which mode leaked. The Secrets' keys are applied
to the local cluster and read back (the test fails if the mode was not exercised); the inline keys
go through every check and render mode, but are not applied: the local dataset is Exclusive on
every GPU node, so a second dataset could not be placed."""

import base64
import os
import subprocess

import pytest
import yaml
from kubernetes import client

from conftest import POOL
from playbook import run_playbook

PLAIN = {"access_key_id": "LEAK-plain-id-5e0c", "access_key_secret": "LEAK-plain-secret-5e0c"}
VAULTED = {"access_key_id": "LEAK-vault-id-5e0c", "access_key_secret": "LEAK-vault-secret-5e0c"}
INLINE = {"fs.oss.accessKeyId": "LEAK-inline-id-5e0c", "fs.oss.accessKeySecret": "LEAK-inline-secret-5e0c"}
VALUES = list(PLAIN.values()) + list(VAULTED.values()) + list(INLINE.values())


def leaks(text):
    return [value for value in VALUES if value in text]


def vaulted_vars(tmp_path):
    """A vars file whose imagenet-oss keys are vault-encrypted strings, and its password file."""
    password = tmp_path / "vault-password"
    password.write_text("fluidops-test-vault\n")
    encrypted = {}
    for field, value in VAULTED.items():
        text = subprocess.run(["ansible-vault", "encrypt_string", "--vault-password-file", str(password), value, "--name", field],
                              capture_output=True, text=True, check=True).stdout
        encrypted.update(yaml.safe_load(text.replace("!vault", "")))
    lines = ["datasets_oss_secrets:", "  imagenet-oss:"]
    for field, text in encrypted.items():
        lines += ["    %s: !vault |" % field] + ["      " + line for line in text.strip().splitlines()]
    lines += ["  leakcheck-oss:"] + ["    %s: %s" % item for item in PLAIN.items()]
    path = tmp_path / "vaulted.yml"
    path.write_text("\n".join(lines) + "\n")
    return path, password


def secret_value(api, name, key):
    data = client.CoreV1Api(api).read_namespaced_secret(name, "default").data
    return base64.b64decode(data[key]).decode()


@pytest.fixture
def secrets_put_back(api):
    """The local inventory's Secret as it was, and no Secret of this test's left, whatever happens."""
    core = client.CoreV1Api(api)
    data = core.read_namespaced_secret("imagenet-oss", "default").data
    yield
    core.patch_namespaced_secret("imagenet-oss", "default", {"data": data})
    if any(item.metadata.name == "leakcheck-oss" for item in core.list_namespaced_secret("default").items):
        core.delete_namespaced_secret("leakcheck-oss", "default")


def test_no_key_in_the_output_at_vvv_nor_in_the_status_json(api, site_run, secrets_put_back, tmp_path):
    path, password = vaulted_vars(tmp_path)
    status = tmp_path / "status.json"
    env = dict(os.environ, ANSIBLE_VAULT_PASSWORD_FILE=str(password))
    returncode, output = run_playbook("playbooks/datasets.yml", "playbooks/status.yml", extra_vars=dict(
        POOL, cache_status_json_path=str(status)), extra_files=[str(path)], verbosity=3, env=env)
    assert returncode == 0, output[-3000:]
    # Both modes reached the cluster: the keys are in the Secrets, and nowhere else.
    assert secret_value(api, "imagenet-oss", "fs.oss.accessKeyId") == VAULTED["access_key_id"]
    assert secret_value(api, "leakcheck-oss", "fs.oss.accessKeySecret") == PLAIN["access_key_secret"]
    assert leaks(output) == []
    assert status.exists() and leaks(status.read_text()) == []


def test_no_inline_key_in_the_checks_output_at_vvv_nor_in_rendered_files(tmp_path):
    path, password = vaulted_vars(tmp_path)
    inline = {"datasets_list": [{"name": "imagenet", "mounts": [{
        "mount_point": "oss://imagenet/data/", "name": "imagenet", "allow_inline_credentials": True,
        "options": dict(INLINE, **{"fs.oss.endpoint": "oss-cn-shanghai-internal.aliyuncs.com"})}],
        "runtime": {"tiers": [{"medium": "MEM", "path": "/dev/shm", "quota": "1Gi"}], "profile": "dl-training"}}]}
    rendered = tmp_path / "rendered"
    env = dict(os.environ, ANSIBLE_VAULT_PASSWORD_FILE=str(password))
    returncode, output = run_playbook("playbooks/preflight.yml", "playbooks/render.yml", extra_vars=dict(
        inline, fluidops_render_dir=str(rendered)), extra_files=[str(path)], verbosity=3, env=env)
    assert returncode == 0, output[-3000:]
    assert "OSS keys are inline in the Dataset (allow_inline_credentials)" in output  # the mode was exercised
    assert leaks(output) == []
    files = sorted(rendered.glob("*.yaml"))
    assert files and {str(f): leaks(f.read_text()) for f in files if leaks(f.read_text())} == {}
