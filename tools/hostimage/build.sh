#!/usr/bin/env bash
# Builds the podman image that stands in for a GPU node's OS: Debian bookworm made with
# debootstrap from Debian's own mirror (no registry images are reachable here), imported
# into podman. The image tag carries a hash of this script, so a changed recipe builds anew
# and an unchanged one is reused. Prints the image name on stdout.
#   build.sh        the node host image (fluidops-host)
#   build.sh base   the base of the images pods run (fluidops-base: minbase and CA certificates)
set -euo pipefail
log_name=hostimage
# shellcheck source=../lib.sh  # log, cache_root
. "$(dirname "$0")/../lib.sh"
kind=${1:-host}

suite=${FLUIDOPS_HOST_SUITE:-bookworm}
mirror=${FLUIDOPS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# What a node host needs so Ansible can manage it; the FUSE packages are left out on purpose:
# installing them is the node role's job and the tests check it does. A Kubernetes node's runtime
# parts from Debian: runc, the CNI plugins (/usr/lib/cni), iptables and conntrack for kube-proxy
# (containerd, the kubelet and kube-proxy are mounted in by tools/localcluster/nodes.sh). Ansible
# reaches a node host as a site's GPU node: over SSH (tools/localcluster/cluster.sh starts sshd).
packages=python3,python3-apt,sudo,procps,kmod,iproute2,ca-certificates,tini,util-linux,openssh-server
packages+=,runc,containernetworking-plugins,iptables,conntrack
case $kind in
  host) name=fluidops-host ;;
  base) name=fluidops-base packages=ca-certificates ;;
  *) echo "usage: $0 [base]" >&2; exit 2 ;;
esac

recipe=$(cat "$0"; echo "$suite $mirror $packages")
tag="$suite-$(printf '%s' "$recipe" | sha256sum | cut -c1-10)"
image="localhost/$name:$tag"

# make test builds it from suites side by side: one build at a time, the others then reuse it
# (two at once wrote the same tarball, and an import read it half-written).
mkdir -p "$cache_root/hostimage"
exec 9>"$cache_root/hostimage/.$name.lock"
flock 9

if podman image exists "$image"; then
  log "reusing $image"
  echo "$image"
  exit 0
fi

rootfs_tar="$cache_root/hostimage/$tag.tar"
if [ ! -s "$rootfs_tar" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/fluidops-rootfs.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  log "debootstrap $suite into $work (first run only; about a minute)"
  debootstrap --variant=minbase --include="$packages" "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # Package lists stay, as on a real host, so check mode can plan the FUSE package install.
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
  # Each host makes its own SSH host keys when it starts, as a machine does on its first boot.
  rm -f "$work/rootfs/etc/ssh/ssh_host_"*
  tar -C "$work/rootfs" -cf "$rootfs_tar.part" .
  mv "$rootfs_tar.part" "$rootfs_tar"
fi

log "importing $rootfs_tar as $image"
if [ "$kind" = host ]; then
  # tini as PID 1 forwards SIGTERM, so containers stop at once instead of after podman's 10 s.
  podman import --change 'CMD ["/usr/bin/tini", "--", "sleep", "infinity"]' "$rootfs_tar" "$image" >&2
else
  podman import "$rootfs_tar" "$image" >&2
fi
echo "$image"
