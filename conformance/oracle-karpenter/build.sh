#!/usr/bin/env bash
# Builds the Karpenter provisioning oracle into conformance/oracle-karpenter/oracle.
# sigs.k8s.io/karpenter v1.14.1 declares go 1.26.6, so Go 1.26.8 builds it with no
# GOTOOLCHAIN switch. Needs the Go module proxy. A cold build takes a few minutes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../build-oracle.sh" "$here"
