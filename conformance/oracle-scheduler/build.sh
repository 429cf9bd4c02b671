#!/usr/bin/env bash
# Builds the kube-scheduler oracle into conformance/oracle-scheduler/oracle.
# Needs Go >= 1.26 (go.mod says go 1.26.0, as k8s.io/kubernetes v1.37.2 does)
# and the Go module proxy. A cold build takes a few minutes on 2 cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../build-oracle.sh" "$here"
