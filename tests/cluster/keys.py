"""Distinctive OSS key values for the leak tests, one pair per mode, so a leak says which mode
leaked: keys in datasets_oss_secrets (plain and vault-encrypted) and inline in a Dataset. A run's
private data directory (ansible-runner's artifacts: stdout, job_events, command) is searched too."""

import os
import subprocess

import yaml

from conftest import INVENTORY, SETTINGS

PLAIN = {"access_key_id": "LEAK-plain-id-5e0c", "access_key_secret": "LEAK-plain-secret-5e0c"}
VAULTED = {"access_key_id": "LEAK-vault-id-5e0c", "access_key_secret": "LEAK-vault-secret-5e0c"}
INLINE = {"fs.oss.accessKeyId": "LEAK-inline-id-5e0c", "fs.oss.accessKeySecret": "LEAK-inline-secret-5e0c"}
VALUES = list(PLAIN.values()) + list(VAULTED.values()) + list(INLINE.values())


def leaks(text, values=None):
    return [value for value in (VALUES if values is None else values) if value in text]


def leaks_in_run(directory, *more):
    """{file (relative): [values]} for each file under a run's private data directory that holds a
    key value, or one of more (a vault password); files read as bytes, so none is passed over."""
    found = {}
    for root, _dirs, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            with open(path, "rb") as handle:
                held = leaks(handle.read().decode("utf-8", "replace"), VALUES + list(more))
            if held:
                found[os.path.relpath(path, directory)] = held
    return found


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


def local_datasets_with_inline_keys():
    """The local inventory's datasets_list with imagenet's keys inline in its mount instead of in
    its Secret (allow_inline_credentials)."""
    with open(os.path.join(INVENTORY, SETTINGS), encoding="utf-8") as handle:
        datasets = yaml.safe_load(handle)["datasets_list"]
    mount = datasets[0]["mounts"][0]
    del mount["oss_secret"]
    mount.update(allow_inline_credentials=True, options=dict(mount["options"], **INLINE))
    return datasets
