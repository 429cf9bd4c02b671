#!/usr/bin/env bash
# Builds the e2e test cluster's binaries from the Go module proxy into
# test/cluster/.bin (git-ignored): etcd, kube-apiserver, kube-scheduler and
# kube-controller-manager (Deployments need their controllers; this
# directory's go.mod: k8s.io/kubernetes v1.37.2 with its staging replaces from
# conformance/oracle-scheduler/gen-replace.sh) and kwok (sigs.k8s.io/kwok, its
# own module, so its client-go version does not fight Kubernetes'). Binaries
# already present are kept; FORCE=1 rebuilds. Needs Go >= 1.26, no Docker.
set -euo pipefail
cd "$(dirname "$0")"
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
bin="$PWD/.bin"
mkdir -p "$bin"
if ! command -v go >/dev/null; then
  echo "build.sh: go not found" >&2
  exit 1
fi
need() { [[ "${FORCE:-}" == 1 || ! -x "$bin/$1" ]]; }
start=$SECONDS
if need kube-apiserver || need kube-scheduler || need kube-controller-manager; then
  GOFLAGS="-mod=mod -buildvcs=false" go build -o "$bin/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-controller-manager
fi
if need etcd; then
  GOFLAGS="-mod=mod -buildvcs=false" go build -o "$bin/etcd" go.etcd.io/etcd/server/v3
fi
if need kwok; then
  # `go install pkg@version` builds kwok with its own go.mod, outside ours.
  GOFLAGS="-buildvcs=false" GOBIN="$bin" go install "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
fi
echo "test/cluster/build.sh: binaries in $bin ($((SECONDS - start)) s, $(go version | awk '{print $3}'))"
