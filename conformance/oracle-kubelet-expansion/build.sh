#!/usr/bin/env bash
# Builds the kubelet expansion check (k8s.io/kubernetes v1.37.2's $(VAR) expansion
# and downward-API field reader) into conformance/oracle-kubelet-expansion/oracle.
# Its packages are a small part of what the test cluster's build compiles.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../build-oracle.sh" "$here"
