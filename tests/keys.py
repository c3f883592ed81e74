"""Distinctive key values for the leak tests, one pair per mode, so a leak says which mode leaked:
keys in datasets_oss_secrets or datasets_s3_secrets (plain and vault-encrypted) and inline in a
Dataset. A run's private data directory (ansible-runner's artifacts: stdout, job_events, command)
is searched too."""

import os
import subprocess

import yaml

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


def vaulted_vars(tmp_path, store="oss"):
    """A vars file of the store's Secrets (datasets_oss_secrets or datasets_s3_secrets): the
    inventory's, imagenet-STORE, with vault-encrypted keys, and leakcheck-STORE with plain ones;
    and its password file."""
    password = tmp_path / "vault-password"
    password.write_text("fluidops-test-vault\n")
    encrypted = {}
    for field, value in VAULTED.items():
        text = subprocess.run(["ansible-vault", "encrypt_string", "--vault-password-file", str(password), value, "--name", field],
                              capture_output=True, text=True, check=True).stdout
        encrypted.update(yaml.safe_load(text.replace("!vault", "")))
    lines = ["datasets_%s_secrets:" % store, "  imagenet-%s:" % store]
    for field, text in encrypted.items():
        lines += ["    %s: !vault |" % field] + ["      " + line for line in text.strip().splitlines()]
    lines += ["  leakcheck-%s:" % store] + ["    %s: %s" % item for item in PLAIN.items()]
    path = tmp_path / "vaulted.yml"
    path.write_text("\n".join(lines) + "\n")
    return path, password
