#!/usr/bin/env bash
# The local cluster's certificates, as kubeadm lays them out: one CA signs the API server's serving
# certificate and every client certificate the API server trusts (--client-ca-file). Each node's
# kubelet gets system:node:<name> in system:nodes, which the Node authorizer and NodeRestriction
# hold to its own node and pods; kube-proxy is system:kube-proxy; the API server reaches the
# kubelets as a member of system:masters.
#   pki.sh server ADDRESS...   the CA and the API server's certificate for these IP addresses
#   pki.sh client DIR NAME CN [ORGANIZATION]   DIR/NAME.crt and DIR/NAME.key signed by the CA
# Writes under $run/pki; a certificate already there is kept (up is harmless when repeated).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
log_name='localcluster pki'
# shellcheck source=../lib.sh  # what instance.sh needs
. "$here/../lib.sh"
# shellcheck source=instance.sh  # cache, run
. "$here/instance.sh"
pki=$run/pki
days=3650

sign() {  # sign DIR NAME SUBJECT [EXTENSIONS]: a key and a certificate the CA signs
  local dir=$1 name=$2 subject=$3 extensions=${4:-}
  [ -s "$dir/$name.crt" ] && return 0
  mkdir -p "$dir"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$dir/$name.key" -subj "$subject" -out "$dir/$name.csr" 2>/dev/null
  local extfile; extfile=$(mktemp)
  printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n%s\n' "$extensions" > "$extfile"
  openssl x509 -req -in "$dir/$name.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
    -days "$days" -extfile "$extfile" -out "$dir/$name.crt.part" 2>/dev/null
  rm -f "$extfile" "$dir/$name.csr"
  chmod 600 "$dir/$name.key"
  mv "$dir/$name.crt.part" "$dir/$name.crt"
}

ca() {
  [ -s "$pki/ca.crt" ] && return 0
  mkdir -p "$pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$pki/ca.key" -subj "/CN=fluidops-local-ca" \
    -days "$days" -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$pki/ca.crt.part" 2>/dev/null
  chmod 600 "$pki/ca.key"
  mv "$pki/ca.crt.part" "$pki/ca.crt"
}

server() {  # the API server's names: its Service's, loopback and the addresses the nodes use
  ca
  local address names="DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  names+=",DNS:kubernetes.default.svc.cluster.local,IP:127.0.0.1,IP:10.96.0.1"
  for address in "$@"; do names+=",IP:$address"; done
  sign "$pki" apiserver "/CN=kube-apiserver" "extendedKeyUsage=serverAuth
subjectAltName=$names"
  sign "$pki" apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" "extendedKeyUsage=clientAuth"
}

client() {  # client DIR NAME CN [ORGANIZATION]
  ca
  local subject="/CN=$3"
  [ -z "${4:-}" ] || subject="/O=$4$subject"
  sign "$1" "$2" "$subject" "extendedKeyUsage=clientAuth,serverAuth"
}

case ${1:-} in
  server) shift; server "$@" ;;
  client) shift; [ $# -ge 3 ] || { echo "usage: $0 client DIR NAME CN [ORGANIZATION]" >&2; exit 2; }; client "$@" ;;
  *) echo "usage: $0 server ADDRESS... | client DIR NAME CN [ORGANIZATION]" >&2; exit 2 ;;
esac
