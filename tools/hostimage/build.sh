#!/usr/bin/env bash
# Builds the podman image that stands in for a GPU node's OS: Debian bookworm made with
# debootstrap from Debian's own mirror (no registry images are reachable here), imported
# into podman. The image tag carries a hash of this script, so a changed recipe builds anew
# and an unchanged one is reused. Prints the image name on stdout.
set -euo pipefail

suite=${FLUIDOPS_HOST_SUITE:-bookworm}
mirror=${FLUIDOPS_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache_dir=${FLUIDOPS_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/fluidops}
# What a node host needs so Ansible can manage it; the FUSE packages are left out on purpose:
# installing them is the node role's job and the tests check it does.
packages=python3,python3-apt,sudo,procps,kmod,iproute2,ca-certificates,tini,util-linux

recipe=$(cat "$0"; echo "$suite $mirror $packages")
tag="$suite-$(printf '%s' "$recipe" | sha256sum | cut -c1-10)"
image="localhost/fluidops-host:$tag"

log() { printf '[hostimage] %s\n' "$*" >&2; }

if podman image exists "$image"; then
  log "reusing $image"
  echo "$image"
  exit 0
fi

rootfs_tar="$cache_dir/hostimage/$tag.tar"
if [ ! -s "$rootfs_tar" ]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/fluidops-rootfs.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  log "debootstrap $suite into $work (first run only; about a minute)"
  debootstrap --variant=minbase --include="$packages" "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # Package lists stay, as on a real host, so check mode can plan the FUSE package install.
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb
  mkdir -p "$(dirname "$rootfs_tar")"
  tar -C "$work/rootfs" -cf "$rootfs_tar.part" .
  mv "$rootfs_tar.part" "$rootfs_tar"
fi

log "importing $rootfs_tar as $image"
# tini as PID 1 forwards SIGTERM, so containers stop at once instead of after podman's 10 s.
podman import --change 'CMD ["/usr/bin/tini", "--", "sleep", "infinity"]' "$rootfs_tar" "$image" >&2
echo "$image"
