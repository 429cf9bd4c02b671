#!/usr/bin/env bash
# Regenerates the replace block of go.mod: every k8s.io/* module that
# k8s.io/kubernetes@$K8S_VERSION requires at v0.0.0 (its staging repos) is
# pinned to the matching published staging tag v0.$MINOR.$PATCH.
# Usage: gen-replace.sh [module-dir]   (default: this oracle's directory;
# test/cluster/ reuses it for the apiserver/scheduler/etcd build module).
set -euo pipefail
cd "${1:-$(dirname "$0")}"
K8S_VERSION="${K8S_VERSION:-v1.37.2}"
STAGING_VERSION="v0.${K8S_VERSION#v1.}"
modfile="$(go env GOMODCACHE)/k8s.io/kubernetes@${K8S_VERSION}/go.mod"
if [[ ! -f "$modfile" ]]; then
  go mod download "k8s.io/kubernetes@${K8S_VERSION}"
fi
{
  sed '/^\/\/ Staging modules required/,$d' go.mod
  echo "// Staging modules required by k8s.io/kubernetes at v0.0.0, pinned to their published ${STAGING_VERSION} tags"
  echo "// (generated from k8s.io/kubernetes@${K8S_VERSION}/go.mod by gen-replace.sh)."
  echo "replace ("
  awk -v v="$STAGING_VERSION" '
    /^require \(/ { r = 1; next }
    r && /^\)/    { r = 0 }
    r && $1 ~ /^k8s\.io\// && $2 == "v0.0.0" { printf "\t%s => %s %s\n", $1, $1, v }
  ' "$modfile"
  echo ")"
} > go.mod.new
mv go.mod.new go.mod
