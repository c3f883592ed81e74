#!/usr/bin/env bash
# Reach running containers of the host image over SSH, as Ansible reaches a site's GPU nodes: as
# root, with a key of DIR's own, each host's key checked, one connection per host kept open.
#   ssh.sh start DIR NAME=CONTAINER...
#       DIR/id_ed25519 (made once) let in as root's key, sshd started, the container's address in
#       DIR/NAME.address and its host key in DIR/known_hosts; then DIR/config, the ssh client's
#       configuration for every NAME with an address in DIR, those of an earlier start too
#       (`ssh -F DIR/config NAME`; an inventory's `ansible_ssh_args: -F DIR/config`).
#   ssh.sh stop DIR
#       the connections kept open (DIR/cp) closed.
# The local cluster's node hosts (tools/localcluster/cluster.sh) and the integration tests' hosts.
set -euo pipefail
# shellcheck source=../lib.sh  # die, ip_of
. "$(dirname "$0")/../lib.sh"

start() {
  local dir=$1 pair name container address
  shift
  mkdir -p "$dir/cp" && chmod 0700 "$dir" "$dir/cp"
  [ -s "$dir/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C "fluidops-hosts" -f "$dir/id_ed25519"
  touch "$dir/known_hosts"
  for pair in "$@"; do
    name=${pair%%=*} container=${pair#*=}
    if [ -z "$name" ] || [ "$name" = "$pair" ]; then die "give NAME=CONTAINER, not $pair"; fi
    # Ansible's remote_tmp made as its user's own: a module sent by pipelining that makes it warns.
    podman exec -i "$container" sh -ec 'umask 077; mkdir -p /root/.ssh /run/sshd /root/.ansible/tmp
      cat > /root/.ssh/authorized_keys; ssh-keygen -q -A; pgrep -x sshd >/dev/null || /usr/sbin/sshd' \
      < "$dir/id_ed25519.pub" || die "sshd did not start in $container"
    address=$(ip_of "$container")
    [ -n "$address" ] || die "$container has no address"
    echo "$address" > "$dir/$name.address"
    # A container started again in place of another may have the same address: its old key goes.
    grep -v "^$address " "$dir/known_hosts" > "$dir/known_hosts.part" || true
    echo "$address $(podman exec "$container" cat /etc/ssh/ssh_host_ed25519_key.pub | cut -d' ' -f1,2)" >> "$dir/known_hosts.part"
    mv "$dir/known_hosts.part" "$dir/known_hosts"
  done
  write_config "$dir"
}

write_config() {
  local dir=$1 file
  {
    for file in "$dir"/*.address; do
      [ -e "$file" ] || continue
      printf 'Host %s\n  HostName %s\n' "$(basename "$file" .address)" "$(cat "$file")"
    done
    # Every host, those an inventory names by address too. %C: a hash of the address, port and
    # user, so that one connection serves each host, whatever its names.
    printf 'Host *\n  User root\n  IdentityFile %s\n  IdentitiesOnly yes\n' "$dir/id_ed25519"
    printf '  UserKnownHostsFile %s\n  StrictHostKeyChecking yes\n' "$dir/known_hosts"
    printf '  ControlMaster auto\n  ControlPersist 60s\n  ControlPath %s\n' "$dir/cp/%C"
  } > "$dir/config.part"
  mv "$dir/config.part" "$dir/config"
}

stop() {
  local socket
  for socket in "$1"/cp/*; do
    if [ -S "$socket" ]; then ssh -o ControlPath="$socket" -O exit host 2>/dev/null || true; fi
  done
}

case ${1:-} in
  start) [ $# -ge 3 ] || die "usage: ssh.sh start DIR NAME=CONTAINER..."; shift; start "$@" ;;
  stop) [ $# -eq 2 ] || die "usage: ssh.sh stop DIR"; stop "$2" ;;
  *) die "usage: ssh.sh start DIR NAME=CONTAINER... | stop DIR" ;;
esac
