#!/usr/bin/env bash
# The e2e test cluster on loopback, no Docker: etcd, kube-apiserver,
# kube-controller-manager, kube-scheduler and kwok (the kubelet of fake nodes),
# from the binaries build.sh leaves in .bin. State (certs, etcd data, logs, pids,
# kubeconfigs) lives in .run, git-ignored.
#
#   cluster.sh up                 build if needed, start everything, wait until ready
#   cluster.sh down               stop everything, delete .run
#   cluster.sh stop <component>   stop one (etcd, kube-apiserver, ...), keep state
#   BERTH_KWOK_READY_DELAY_MS     how long a new kwok node stays NotReady (default 3000)
#   BERTH_KWOK_STAGES             extra kwok Stage files, space-separated
#   BERTH_KWOK_LEASE_SECONDS      kwok's node lease duration (default 40; renewed every quarter of it)
#   BERTH_CLUSTER_RUN             the state directory (default .run): a second cluster needs its own
#   BERTH_APISERVER_FLAGS, BERTH_KCM_FLAGS, BERTH_SCHEDULER_FLAGS
#                                 extra flags (space-separated) for kube-apiserver,
#                                 kube-controller-manager and kube-scheduler
#   cluster.sh start <component>  start one again
#
# Kubeconfigs: .run/kubeconfig (admin, system:masters) and .run/berth.kubeconfig,
# a client certificate for the user system:serviceaccount:berth-system:berth-controller,
# so the controller runs with exactly the RBAC of deploy/rbac.yaml.
# Ports (loopback only) move with BERTH_CLUSTER_PORT_BASE (default 16400):
# apiserver +43, etcd client +79 and peer +80, scheduler +59, controller-manager +57, kwok +47.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$here/.bin"
run="${BERTH_CLUSTER_RUN:-$here/.run}"
base="${BERTH_CLUSTER_PORT_BASE:-16400}"
api_port=$((base + 43))
etcd_port=$((base + 79))
peer_port=$((base + 80))
sched_port=$((base + 59))
kcm_port=$((base + 57))
kwok_port=$((base + 47))
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
components=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)

log() { echo "cluster.sh: $*" >&2; }

certs() {
  local c="$run/pki"
  [[ -f "$c/done" ]] && return
  mkdir -p "$c"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=berth-e2e-ca" -keyout "$c/ca.key" -out "$c/ca.crt" 2>/dev/null
  cert() { # name CN O [SAN]
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$2${3:+/O=$3}" -keyout "$c/$1.key" -out "$c/$1.csr" 2>/dev/null
    local ext="$c/$1.ext"
    if [[ -n "${4:-}" ]]; then printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$4" > "$ext"; else printf 'extendedKeyUsage=clientAuth\n' > "$ext"; fi
    openssl x509 -req -in "$c/$1.csr" -CA "$c/ca.crt" -CAkey "$c/ca.key" -CAcreateserial -days 30 -extfile "$ext" -out "$c/$1.crt" 2>/dev/null
  }
  cert apiserver kube-apiserver "" "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
  cert admin admin system:masters
  cert scheduler system:kube-scheduler
  # system:masters: with one identity for all its controllers (no per-controller
  # service-account credentials) the controller-manager needs more than its own role.
  cert controller-manager system:kube-controller-manager system:masters
  cert kwok kwok system:masters
  cert berth system:serviceaccount:berth-system:berth-controller system:serviceaccounts
  openssl genrsa -out "$c/sa.key" 2048 2>/dev/null
  openssl rsa -in "$c/sa.key" -pubout -out "$c/sa.pub" 2>/dev/null
  touch "$c/done"
}

kubeconfig() { # file cert-name
  cat > "$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: berth-e2e
  cluster:
    server: https://127.0.0.1:$api_port
    certificate-authority: $run/pki/ca.crt
users:
- name: $2
  user:
    client-certificate: $run/pki/$2.crt
    client-key: $run/pki/$2.key
contexts:
- name: berth-e2e
  context: {cluster: berth-e2e, user: $2}
current-context: berth-e2e
EOF
}

pid_of() { [[ -f "$run/$1.pid" ]] && kill -0 "$(cat "$run/$1.pid")" 2>/dev/null && cat "$run/$1.pid"; }

launch() { # component args...
  local name="$1"; shift
  if pid_of "$name" >/dev/null; then return; fi
  setsid "$bin/$name" "$@" >> "$run/$name.log" 2>&1 < /dev/null &
  echo $! > "$run/$name.pid"
}

wait_for() { # component url
  local i
  for i in $(seq 1 240); do
    if ! pid_of "$1" >/dev/null; then break; fi
    # -k: the scheduler and controller-manager serve self-signed certificates.
    if curl -skf --max-time 2 --cert "$run/pki/admin.crt" --key "$run/pki/admin.key" "$2" >/dev/null 2>&1; then return; fi
    sleep 0.5
  done
  log "$1 not ready (exited, or not ready after 120 s); last log lines:"
  tail -n 20 "$run/$1.log" >&2
  exit 1
}

start() {
  case "$1" in
    etcd)
      launch etcd --name default --data-dir "$run/etcd" --unsafe-no-fsync --log-level warn \
        --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
        --listen-peer-urls "http://127.0.0.1:$peer_port" --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
        --initial-cluster "default=http://127.0.0.1:$peer_port" --listen-metrics-urls ""
      wait_for etcd "http://127.0.0.1:$etcd_port/health" ;;
    kube-apiserver)
      launch kube-apiserver --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
        --etcd-servers "http://127.0.0.1:$etcd_port" --service-cluster-ip-range 10.0.0.0/24 \
        --tls-cert-file "$run/pki/apiserver.crt" --tls-private-key-file "$run/pki/apiserver.key" --client-ca-file "$run/pki/ca.crt" \
        --service-account-issuer https://kubernetes.default.svc --service-account-key-file "$run/pki/sa.pub" \
        --service-account-signing-key-file "$run/pki/sa.key" --authorization-mode RBAC --v 1 \
        --endpoint-reconciler-type none ${BERTH_APISERVER_FLAGS:-}
      wait_for kube-apiserver "https://127.0.0.1:$api_port/readyz" ;;
    kube-controller-manager)
      launch kube-controller-manager --kubeconfig "$run/controller-manager.kubeconfig" --bind-address 127.0.0.1 --secure-port "$kcm_port" \
        --leader-elect=false --service-account-private-key-file "$run/pki/sa.key" --root-ca-file "$run/pki/ca.crt" \
        --use-service-account-credentials=false --v 1 ${BERTH_KCM_FLAGS:-}
      wait_for kube-controller-manager "https://127.0.0.1:$kcm_port/healthz" ;;
    kube-scheduler)
      launch kube-scheduler --kubeconfig "$run/scheduler.kubeconfig" --authentication-kubeconfig "$run/scheduler.kubeconfig" \
        --authorization-kubeconfig "$run/scheduler.kubeconfig" --bind-address 127.0.0.1 --secure-port "$sched_port" --leader-elect=false --v 1 ${BERTH_SCHEDULER_FLAGS:-}
      wait_for kube-scheduler "https://127.0.0.1:$sched_port/healthz" ;;
    kwok)
      # Nodes: our node-initialize stage (stages/: Ready after BERTH_KWOK_READY_DELAY_MS,
      # startup taints removed) and kwok's lease heartbeats; pods: kwok's "fast"
      # stages, read from its module in the Go module cache, and our pod-ready-again
      # (a kubelet's status sync undoing a stale not-Ready mark). BERTH_KWOK_STAGES adds
      # more stage files (space-separated paths), e.g. kwok's node/chaos stages.
      local stages configs
      stages="$(go env GOMODCACHE)/sigs.k8s.io/kwok@${KWOK_VERSION}/kustomize/stage"
      [[ -d "$stages" ]] || (cd /tmp && go mod download "sigs.k8s.io/kwok@${KWOK_VERSION}")
      sed "s/__READY_DELAY_MS__/${BERTH_KWOK_READY_DELAY_MS:-3000}/" "$here/stages/node-initialize.yaml" > "$run/node-initialize.yaml"
      configs=(--config "$run/node-initialize.yaml" --config "$stages/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml"
        --config "$stages/pod/fast/pod-ready.yaml" --config "$stages/pod/fast/pod-complete.yaml" --config "$stages/pod/fast/pod-delete.yaml"
        --config "$here/stages/pod-ready-again.yaml")
      for f in ${BERTH_KWOK_STAGES:-}; do configs+=(--config "$f"); done
      launch kwok --kubeconfig "$run/kwok.kubeconfig" --manage-all-nodes=false \
        --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake --server-address "127.0.0.1:$kwok_port" \
        --node-lease-duration-seconds "${BERTH_KWOK_LEASE_SECONDS:-40}" --cidr 10.244.0.0/16 "${configs[@]}"
      wait_for kwok "http://127.0.0.1:$kwok_port/healthz" ;;
    *) log "unknown component $1 (one of: ${components[*]})"; exit 2 ;;
  esac
  log "$1 up (pid $(cat "$run/$1.pid"))"
}

stop() {
  local pid
  if pid="$(pid_of "$1")"; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -9 "$pid" 2>/dev/null || true
    log "$1 stopped"
  fi
  rm -f "$run/$1.pid"
}

case "${1:-}" in
  up)
    for b in "${components[@]}"; do [[ -x "$bin/$b" ]] || "$here/build.sh"; done
    mkdir -p "$run"
    certs
    kubeconfig "$run/kubeconfig" admin
    kubeconfig "$run/scheduler.kubeconfig" scheduler
    kubeconfig "$run/controller-manager.kubeconfig" controller-manager
    kubeconfig "$run/kwok.kubeconfig" kwok
    kubeconfig "$run/berth.kubeconfig" berth
    for c in "${components[@]}"; do start "$c"; done
    log "ready: KUBECONFIG=$run/kubeconfig" ;;
  down)
    for ((i = ${#components[@]} - 1; i >= 0; i--)); do stop "${components[$i]}"; done
    rm -rf "$run" ;;
  start) start "${2:?component}" ;;
  stop) stop "${2:?component}" ;;
  *) echo "usage: cluster.sh up|down|start <component>|stop <component>" >&2; exit 2 ;;
esac
