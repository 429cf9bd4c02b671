#!/usr/bin/env bash
# Builds the e2e test cluster's binaries from the Go module proxy into
# test/cluster/.bin (git-ignored): etcd, kube-apiserver, kube-scheduler and
# kube-controller-manager (Deployments need their controllers), kubectl (the
# e2e tests compare berth's live read with a real `kubectl get -o yaml` dump; this
# directory's go.mod: k8s.io/kubernetes v1.37.2 with its staging replaces from
# conformance/oracle-scheduler/gen-replace.sh) and kwok (sigs.k8s.io/kwok, its
# own module, so its client-go version does not fight Kubernetes'). Binaries
# already present are kept; FORCE=1 rebuilds. Needs Go >= 1.26, no Docker.
# The Kubernetes binaries get their version stamped in (-ldflags, as the release
# build does), so `kubectl version` and /version say v1.37.2, not v0.0.0-master.
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
KUBE_VERSION="$(awk '$1 == "k8s.io/kubernetes" {print $2; exit}' go.mod)"
major="${KUBE_VERSION#v}"; minor="${major#*.}"; major="${major%%.*}"; minor="${minor%%.*}"
ver=k8s.io/component-base/version
ldflags="-X $ver.gitVersion=$KUBE_VERSION -X $ver.gitMajor=$major -X $ver.gitMinor=$minor -X $ver.gitTreeState=clean -X $ver.buildDate=1970-01-01T00:00:00Z"
if need kube-apiserver || need kube-scheduler || need kube-controller-manager || need kubectl; then
  GOFLAGS="-mod=mod -buildvcs=false" go build -ldflags "$ldflags" -o "$bin/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kubectl
fi
if need etcd; then
  GOFLAGS="-mod=mod -buildvcs=false" go build -o "$bin/etcd" go.etcd.io/etcd/server/v3
fi
if need kwok; then
  # `go install pkg@version` builds kwok with its own go.mod, outside ours.
  GOFLAGS="-buildvcs=false" GOBIN="$bin" go install "sigs.k8s.io/kwok/cmd/kwok@${KWOK_VERSION}"
fi
echo "test/cluster/build.sh: binaries in $bin ($((SECONDS - start)) s, $(go version | awk '{print $3}'))"
