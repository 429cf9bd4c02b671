#!/usr/bin/env bash
# Builds the kube-scheduler oracle into conformance/oracle-scheduler/oracle.
# Needs Go >= 1.26 (go.mod says go 1.26.0, as k8s.io/kubernetes v1.37.2 does)
# and the Go module proxy. A cold build takes a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v go >/dev/null; then
  echo "build.sh: go not found" >&2
  exit 1
fi
export GOFLAGS="${GOFLAGS:-} -mod=mod"
go build -o oracle .
echo "built $(pwd)/oracle ($(go version | awk '{print $3}'))"
