#!/usr/bin/env bash
# Builds the Go oracle in the folder given (its main package) into <folder>/oracle.
# Each oracle's build.sh calls this; the Go module proxy supplies the modules.
set -euo pipefail
cd "$1"
if ! command -v go >/dev/null; then
  echo "build.sh: go not found" >&2
  exit 1
fi
export GOFLAGS="${GOFLAGS:-} -mod=mod"
go build -o oracle .
echo "built $(pwd)/oracle ($(go version | awk '{print $3}'))"
