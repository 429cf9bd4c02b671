#!/usr/bin/env bash
# Builds the Karpenter disruption oracle into conformance/oracle-karpenter-disruption/oracle.
# Same module set as oracle-karpenter (sigs.k8s.io/karpenter v1.14.1), plus its
# berthit package through a replace directive; reuses that build's module cache.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../build-oracle.sh" "$here"
