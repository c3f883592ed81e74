"""Verify the node role's real effect on the podman hosts (after converge and the resize side effect)."""

import os

import pytest
import yaml

SCENARIO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(SCENARIO))

with open(os.path.join(SCENARIO, "vars", "resize.yml"), encoding="utf-8") as handle:
    MOUNTS = yaml.safe_load(handle)["gpu_node_cache_mounts"]
with open(os.path.join(REPO, "inventory/local/group_vars/gpu_nodes.yml"), encoding="utf-8") as handle:
    NODE_VARS = yaml.safe_load(handle)
with open(os.path.join(REPO, "roles/gpu_node/defaults/main.yml"), encoding="utf-8") as handle:
    DEFAULTS = yaml.safe_load(handle)

MIB = 1024 * 1024


def fstab_entries(host):
    entries = {}
    for line in host.file("/etc/fstab").content_string.splitlines():
        fields = line.split()
        if len(fields) >= 4 and not fields[0].startswith("#"):
            entries[fields[1]] = fields
    return entries


@pytest.mark.parametrize("mount", MOUNTS, ids=lambda m: m["path"])
def test_cache_mount_is_mounted_with_its_type(host, mount):
    mounted = host.mount_point(mount["path"])
    assert mounted.exists
    assert mounted.filesystem == mount["fstype"]


@pytest.mark.parametrize("mount", MOUNTS, ids=lambda m: m["path"])
def test_cache_mount_fstab_line_has_the_resized_size(host, mount):
    size_mib = int(mount["size"][:-2]) * (1024 if mount["size"].endswith("Gi") else 1)
    expected = "%dg" % (size_mib // 1024) if size_mib % 1024 == 0 else "%dm" % size_mib
    entry = fstab_entries(host)[mount["path"]]
    assert entry[0] == mount["fstype"]
    assert entry[2] == mount["fstype"]
    assert entry[3] == "size=" + expected


def test_tmpfs_size_is_enforced_and_resized_in_place(host):
    tmpfs = next(m for m in MOUNTS if m["fstype"] == "tmpfs")
    total_bytes = int(host.check_output(
        "python3 -c \"import os; s = os.statvfs('%s'); print(s.f_blocks * s.f_frsize)\"" % tmpfs["path"]))
    assert total_bytes == int(tmpfs["size"][:-2]) * MIB
    # The side effect wrote this before resizing: a remount must keep the data.
    assert host.file(tmpfs["path"] + "/resize-marker").content_string.strip() == "written before the resize"


@pytest.mark.parametrize("mount", MOUNTS, ids=lambda m: m["path"])
def test_cache_mount_root_owner_and_mode(host, mount):
    root = host.file(mount["path"])
    assert root.is_directory
    assert root.user == DEFAULTS["gpu_node_cache_mount_owner"]
    assert root.mode == int(mount.get("mode", DEFAULTS["gpu_node_cache_mount_mode"]), 8)


@pytest.mark.parametrize("tier", NODE_VARS["gpu_node_tier_dirs"], ids=lambda t: t["path"])
def test_tier_directory_owner_and_mode(host, tier):
    directory = host.file(tier["path"])
    assert directory.is_directory
    assert directory.user == tier.get("owner", DEFAULTS["gpu_node_tier_owner"])
    assert directory.group == tier.get("group", DEFAULTS["gpu_node_tier_group"])
    assert directory.mode == int(tier.get("mode", DEFAULTS["gpu_node_tier_mode"]), 8)


def test_tier_directory_is_writable_by_the_runtime_user(host):
    user = DEFAULTS["gpu_node_tier_owner"]
    for tier in NODE_VARS["gpu_node_tier_dirs"]:
        probe = tier["path"] + "/.write-probe"
        host.run_test("su -s /bin/sh -c 'touch %s && rm %s' %s" % (probe, probe, user))
        assert not host.file(probe).exists


@pytest.mark.parametrize("package", ["fuse3", "libfuse2"])
def test_fuse_packages_installed(host, package):
    assert host.package(package).is_installed


def test_dev_fuse_is_a_usable_character_device(host):
    assert host.check_output("stat -c '%F %t:%T' /dev/fuse") == "character special file a:e5"  # 10:229
    # Opening the device is what a FUSE daemon does first; it fails where the device is not allowed.
    host.run_test("python3 -c \"import os; os.close(os.open('/dev/fuse', os.O_RDWR))\"")


def test_fuse_conf_allows_other_users(host):
    lines = [line.strip() for line in host.file("/etc/fuse.conf").content_string.splitlines()]
    assert "user_allow_other" in lines


def test_limits_file_sets_each_limit_with_its_reason(host):
    content = host.file(DEFAULTS["gpu_node_limits_file"]).content_string
    for limit in DEFAULTS["gpu_node_limits"]:
        assert "%s %s %s %s" % (limit["domain"], limit["type"], limit["item"], limit["value"]) in " ".join(content.split())
        assert limit["why"] in content


def test_sysctl_file_is_written(host):
    content = host.file(DEFAULTS["gpu_node_sysctl_file"]).content_string
    for sysctl in DEFAULTS["gpu_node_sysctls"]:
        assert "%s=%s" % (sysctl["name"], sysctl["value"]) in content.replace(" ", "")
