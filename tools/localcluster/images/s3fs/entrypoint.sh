#!/usr/bin/env bash
# Mounts a ThinRuntime's S3 bucket with s3fs in the foreground, from the configuration Fluid's
# ThinRuntime controller renders (pkg/ddc/thin/transform_config.go): one mount whose mountPoint is
# s3://bucket[/prefix]; its options become s3fs options (-o name=value, -o name when empty),
# except the two key options, which name the files where Fluid mounted the Secret's keys
# (/etc/fluid/secrets/<secret>/<key>) and go to a passwd file. The FUSE options of the runtime
# (ThinRuntime spec.fuse.options) come after the mount's. Exits when s3fs does: the pod restarts it.
set -euo pipefail
config=${FLUID_THIN_CONFIG:-/etc/fluid/config/config.json}
# The bundle's S3 key names (Alluxio's property names, which the Secret holds).
id_option=aws.accessKeyId
secret_option=aws.secretKey

die() { echo "s3fs-thin: $*" >&2; exit 1; }
[ -r "$config" ] || die "no configuration at $config"
mounts=$(jq '.mounts | length' "$config")
[ "$mounts" = 1 ] || die "$mounts mounts in $config: this image mounts one bucket"
point=$(jq -r '.mounts[0].mountPoint' "$config")
target=$(jq -r '.targetPath // empty' "$config")
[ -n "$target" ] || die "no targetPath in $config"
case $point in
  s3://?*) path=${point#s3://} ;;
  *) die "mountPoint $point is not s3://bucket[/prefix]" ;;
esac
bucket=${path%%/*}
prefix=${path#"$bucket"}
prefix=${prefix%/}

args=()
id_file='' secret_file=''
while IFS=$'\t' read -r name value; do
  case $name in
    "$id_option") id_file=$value ;;
    "$secret_option") secret_file=$value ;;
    *) if [ -n "$value" ]; then args+=(-o "$name=$value"); else args+=(-o "$name"); fi ;;
  esac
done < <(jq -r '(.mounts[0].options // {}), (.runtimeOptions // {}) | to_entries[] | [.key, .value] | @tsv' "$config")

if [ -n "$id_file" ] || [ -n "$secret_file" ]; then
  { [ -r "$id_file" ] && [ -r "$secret_file" ]; } || die "the options $id_option and $secret_option must both name readable key files"
  passwd=$(mktemp)
  chmod 0600 "$passwd"
  printf '%s:%s\n' "$(cat "$id_file")" "$(cat "$secret_file")" > "$passwd"
  args+=(-o "passwd_file=$passwd")
else
  args+=(-o public_bucket=1)
fi

mkdir -p "$target"
echo "s3fs-thin: mounting bucket $bucket${prefix:+ (prefix $prefix)} at $target"
exec s3fs "$bucket${prefix:+:$prefix}" "$target" -f -o allow_other "${args[@]}"
