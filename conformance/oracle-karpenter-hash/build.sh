#!/usr/bin/env bash
# Builds the NodePool hash oracle (Karpenter v1.14.1's NodePool.Hash) into
# conformance/oracle-karpenter-hash/oracle. It shares its modules with
# oracle-karpenter, so once that is built this takes seconds.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v go >/dev/null; then
  echo "build.sh: go not found" >&2
  exit 1
fi
export GOFLAGS="${GOFLAGS:-} -mod=mod"
go build -o oracle .
echo "built $(pwd)/oracle ($(go version | awk '{print $3}'))"
