#!/usr/bin/env bash
# Builds the NodePool hash oracle (Karpenter v1.14.1's NodePool.Hash) into
# conformance/oracle-karpenter-hash/oracle. It shares its modules with
# oracle-karpenter, so once that is built this takes seconds.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
exec "$here/../build-oracle.sh" "$here"
