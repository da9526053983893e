#!/usr/bin/env bash
# The local cluster's one real node, beside the kwok fake nodes: a kubelet (built from the same
# Kubernetes version as the control plane) on a containerd of its own (Debian's, with runc and
# the CNI plugins), every file, socket and mount under the cluster folder, so clusters on other
# port bases run beside it. Pods land on it only when they tolerate its taint:
#
#   taint  waitgate.dev/real-node=true:NoSchedule     label  waitgate.dev/real-node=true
#
# There is no registry: the images Pods use are built offline from Debian's busybox-static
# (hack/cluster/offline-images.py) and imported into this containerd at start:
# docker.io/library/busybox:1.36 and the sandbox image waitgate.local/pause:1.36.
#
#   real-node.sh up     start it (cluster-up.sh calls this once the apiserver is ready)
#   real-node.sh down   stop the kubelet and containerd, unmount what they mounted, remove state
#   real-node.sh load ARCHIVE...   import image archives (hack/image.sh) into its containerd
#   real-node.sh tag IMAGE NEW     give a loaded image a second name
#   real-node.sh name ARCHIVE      the name a docker-archive loads under
#
# `up` writes $WAITGATE_CLUSTER_DIR/real-node: `ready`, or `unavailable: <reason>` when this
# machine cannot run containers (not root, no cgroups, no overlayfs, packages not installable,
# WAITGATE_REAL_NODE=0); then it prints that reason in one line and returns 0, and the tests that
# need the node are skipped with it. A machine that can run it but where it does not come up
# fails cluster-up: that is a bug to see, not a reason to skip.
#
# Ports (from WAITGATE_PORT_BASE): +10 kubelet (HTTPS, client certificates of the cluster's CA),
# +11 kubelet healthz, +12 CoreDNS health, +13 CoreDNS ready, +14 kube-proxy healthz, +15
# kube-proxy metrics (the last five on the node's own loopback).
#
# The node has a network namespace of its own (waitgate-<base>), so that it gives its Pods what
# a real cluster gives them without touching the machine's or another cluster's rules:
#   - the Pods' bridge wg<base>, 10.<base / 256>.<base % 256>.1/25 (the node's InternalIP, where
#     the kubelet listens and the apiserver reaches it for `kubectl logs` and port-forward);
#   - a veth pair to the machine: wgh<base> .253/30 on the machine's side, .254 on the node's,
#     with the machine routing the Pods' /25 through it;
#   - the apiserver at .253:<its port>: the machine forwards that address (DNAT) to the
#     apiserver on 127.0.0.1, so it stays bound to loopback; the apiserver advertises .253, so
#     the `kubernetes` Service (10.0.0.1:443) leads there and in-cluster config works;
#   - kube-proxy (iptables rules inside the namespace: Services route, ClusterIP and NodePort);
#   - CoreDNS on the bridge address (the kubelet's clusterDNS): Service names resolve.
# containerd, the kubelet, kube-proxy and CoreDNS enter only the network namespace (nsenter
# --net), not a mount namespace: the kubelet's volume mounts must be containerd's.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
state=${WAITGATE_CLUSTER_DIR:-$root/.cluster}
base=${WAITGATE_PORT_BASE:-36400}
cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
node=$state/node
marker=$state/real-node
node_name=waitgate-real-node
kubelet_port=$((base + 10))
kubelet_healthz_port=$((base + 11))
bridge=wg$base
netns=waitgate-$base
host_if=wgh$base
node_if=wgn$base
# A /24 of its own for every port base: 10.<base / 256>.<base % 256>.0/24, of which the Pods
# get the lower /25 and the link to the machine a /30 at its top.
subnet_prefix=10.$((base >> 8)).$((base & 255))
subnet=$subnet_prefix.0/25
node_ip=$subnet_prefix.1
link_host_ip=$subnet_prefix.253
link_node_ip=$subnet_prefix.254
coredns_health_port=$((base + 12))
coredns_ready_port=$((base + 13))
proxy_healthz_port=$((base + 14))
proxy_metrics_port=$((base + 15))
in_node() { nsenter --net="/run/netns/$netns" -- "$@"; }
pki=$state/pki
kubeconfig=$state/kubeconfig
# The apiserver's port, from the admin kubeconfig cluster-up wrote.
api_port=$(awk -F: '/server:/ { print $NF; exit }' "$kubeconfig" 2>/dev/null || true)
log() { printf 'real-node: %s\n' "$*" >&2; }

# Sockets live under the cluster folder unless its path is too long for a unix socket.
run_dir=$node/run
if [ ${#run_dir} -gt 80 ]; then
  run_dir=/run/waitgate-$(printf '%s' "$state" | sha256sum | cut -c1-12)
fi
sock=$run_dir/containerd.sock

running() { # name match -> 0 if the process we started under that name is alive
  local pidfile=$state/pids/$1.pid pid
  [ -s "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$2"
}
stop() { # name match
  local pidfile=$state/pids/$1.pid pid _
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -q -- "$2"; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do [ -d "/proc/$pid" ] || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    echo "cluster-down: stopped $1" >&2
  fi
  rm -f "$pidfile"
}
unavailable() {
  echo "unavailable: $*" > "$marker"
  echo "cluster-up: no real node: $* (tests that need it are skipped)" >&2
  exit 0
}

# --- what the machine offers -------------------------------------------------------------
CNI_BIN=/usr/lib/cni
# Why this machine itself cannot run a real node (empty when it can): what no install fixes.
# One home for the answer: preflight stops on it, and `can-run` tells CI (.ci/run) whether a
# missing node is a failure there.
machine_reason() {
  case "${WAITGATE_REAL_NODE:-1}" in 0 | false | no | off) echo "turned off (WAITGATE_REAL_NODE=${WAITGATE_REAL_NODE})"; return ;; esac
  [ "$(uname -s)" = Linux ] || { echo "not Linux"; return; }
  [ "$(id -u)" = 0 ] || { echo "not root (a kubelet and containerd need root)"; return; }
  if [ ! -e /sys/fs/cgroup/memory/cgroup.procs ] && [ ! -e /sys/fs/cgroup/cgroup.controllers ]; then
    echo "no cgroups (neither /sys/fs/cgroup/memory nor a cgroup v2 mount)"
    return
  fi
  grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || true
  grep -qw overlay /proc/filesystems || { echo "no overlayfs in the kernel"; return; }
  ip netns list >/dev/null 2>&1 || { echo "cannot make network namespaces (ip netns)"; return; }
}

# Exit 0 when the machine can run a real node; otherwise print why and exit 1.
can_run() {
  local why
  why=$(machine_reason)
  [ -z "$why" ] || { echo "$why"; return 1; }
}

preflight() {
  local why
  why=$(machine_reason)
  [ -z "$why" ] || unavailable "$why"
  local b
  for b in kubelet kube-proxy coredns; do
    [ -x "$bin/$b" ] || unavailable "no $b in $bin (hack/build-control-plane.sh builds it)"
  done
  local missing=() p
  command -v containerd >/dev/null 2>&1 || missing+=(containerd)
  command -v iptables >/dev/null 2>&1 || missing+=(iptables)
  command -v conntrack >/dev/null 2>&1 || missing+=(conntrack)
  command -v nsenter >/dev/null 2>&1 || missing+=(util-linux)
  command -v runc >/dev/null 2>&1 || missing+=(runc)
  [ -x $CNI_BIN/bridge ] && [ -x $CNI_BIN/host-local ] && [ -x $CNI_BIN/loopback ] || missing+=(containernetworking-plugins)
  # A static busybox: it is copied into an image with nothing else in it.
  [ -x /bin/busybox ] && /bin/busybox --list-full >/dev/null 2>&1 && ! ldd /bin/busybox >/dev/null 2>&1 || missing+=(busybox-static)
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]} with apt-get"
    # Two clusters starting at once on a fresh machine both get here: the second waits for the lock.
    if ! { apt-get -o DPkg::Lock::Timeout=300 update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}"; } >"$state/logs/real-node-apt.log" 2>&1; then
      unavailable "apt-get could not install ${missing[*]} (see $state/logs/real-node-apt.log)"
    fi
    # Debian starts a containerd of its own after install; this cluster runs its own.
    systemctl disable --now containerd >/dev/null 2>&1 || true
  fi
  for p in containerd runc iptables nsenter; do command -v $p >/dev/null 2>&1 || unavailable "$p is missing after install"; done
  ip netns list >/dev/null 2>&1 || unavailable "cannot make network namespaces (ip netns)"
  # Debian's containerd is the one tried here (1.6: CRI v1, which the 1.34 kubelet speaks).
}

# --- images (built once, cached outside the clone) ----------------------------------------
images_tar() {
  local bb_version tar
  bb_version=$(dpkg-query -W -f '${Version}' busybox-static 2>/dev/null | tr ':~+' '___' || true)
  tar=$cache/images/offline-images-${bb_version:-local}-$(sha256sum "$here/offline-images.py" | cut -c1-8).tar
  if [ ! -s "$tar" ]; then
    mkdir -p "$cache/images"
    python3 "$here/offline-images.py" /bin/busybox "$tar"
  fi
  echo "$tar"
}

# --- configuration ------------------------------------------------------------------------
write_config() {
  mkdir -p "$node"/{containerd/root,containerd/state,cni/net.d,cni/ipam,kubelet,pod-logs,runc} "$run_dir"
  chmod 700 "$node"
  cat > "$node/containerd.toml" <<TOML
# The real node's containerd (hack/cluster/real-node.sh); nothing of it outside $state
# except shim sockets under /run/containerd/s (named from this socket's path).
version = 2
root = "$node/containerd/root"
state = "$node/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
  "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.zfs",
  "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$sock"
[ttrpc]
  address = "$run_dir/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$node/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "waitgate.local/pause:1.36"
  netns_mounts_under_state_dir = true
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
  disable_apparmor = true
  # No container gets a lower OOM score than containerd's own: lowering one needs
  # CAP_SYS_RESOURCE, which root lacks in some sandboxes (runc then fails to start a Pod).
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
        Root = "$node/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN"
    conf_dir = "$node/cni/net.d"
    max_conf_num = 1
TOML
  # A bridge of this cluster's own with a subnet of its own (host-local keeps its leases
  # under the cluster folder); no masquerade: Pods here need nothing outside the machine.
  # Hairpin: a Pod reaches itself through its own Service. The default route through the
  # bridge is how a Pod reaches Service addresses (kube-proxy's rules, in the node's namespace).
  cat > "$node/cni/net.d/10-waitgate.conflist" <<JSON
{
  "cniVersion": "0.4.0",
  "name": "waitgate-$base",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$bridge",
      "isGateway": true,
      "hairpinMode": true,
      "ipMasq": false,
      "ipam": { "type": "host-local", "subnet": "$subnet", "gateway": "$node_ip", "dataDir": "$node/cni/ipam", "routes": [ { "dst": "0.0.0.0/0" } ] }
    }
  ]
}
JSON
  # The kubelet's identity: a client certificate of the cluster's CA (the apiserver trusts it
  # through --client-ca-file), bound below to the system:node ClusterRole.
  if [ ! -s "$pki/kubelet.crt" ]; then
    openssl req -newkey rsa:2048 -nodes -subj "/O=system:nodes/CN=system:node:$node_name" \
      -keyout "$pki/kubelet.key" -out "$pki/kubelet.csr" 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' > "$pki/kubelet.ext"
    openssl x509 -req -in "$pki/kubelet.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
      -days 3650 -extfile "$pki/kubelet.ext" -out "$pki/kubelet.crt" 2>/dev/null
  fi
  # What runs in the node's namespace reaches the apiserver through the machine's side of the
  # link (forwarded to loopback); the certificate names kubernetes.default.svc.
  local api_server=https://$link_host_ip:$api_port
  node_kubeconfig "$node/proxy.kubeconfig" "$(awk '/token:/ { print $2; exit }' "$kubeconfig")"
  cat > "$node/kubelet.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: waitgate-local
  cluster: { server: "$api_server", certificate-authority: "$pki/ca.crt", tls-server-name: kubernetes.default.svc }
users:
- name: $node_name
  user: { client-certificate: "$pki/kubelet.crt", client-key: "$pki/kubelet.key" }
contexts:
- name: waitgate-local
  context: { cluster: waitgate-local, user: $node_name }
current-context: waitgate-local
KC
  chmod 600 "$node/kubelet.kubeconfig"
  cat > "$node/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$sock
address: $node_ip
port: $kubelet_port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $kubelet_healthz_port
# Only the apiserver (its --kubelet-client-certificate, from the cluster's CA) may talk to it.
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: false }
  x509: { clientCAFile: "$pki/ca.crt" }
authorization: { mode: AlwaysAllow }
tlsCertFile: "$pki/kubelet-serving.crt"
tlsPrivateKeyFile: "$pki/kubelet-serving.key"
# Cluster DNS: CoreDNS on the bridge address, in the node's namespace.
clusterDNS: [ "$node_ip" ]
clusterDomain: cluster.local
cgroupDriver: cgroupfs
# Pods' cgroups go where containerd puts them (/k8s.io/<id>): no kubepods tree shared with
# another cluster's kubelet on this machine.
cgroupsPerQOS: false
enforceNodeAllocatable: []
failSwapOn: false
# The kubelet's own OOM score stays as it is (lowering it needs CAP_SYS_RESOURCE).
oomScoreAdj: 0
podLogsDir: "$node/pod-logs"
volumePluginDir: "$node/volume-plugins"
registerWithTaints:
  - { key: waitgate.dev/real-node, value: "true", effect: NoSchedule }
# No registry: the images are imported at start and must never be collected.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
maxPods: 50
nodeStatusReportFrequency: 10s
syncFrequency: 5s
fileCheckFrequency: 0s
YAML
  if [ ! -s "$pki/kubelet-serving.crt" ]; then
    openssl req -newkey rsa:2048 -nodes -subj "/CN=$node_name" \
      -keyout "$pki/kubelet-serving.key" -out "$pki/kubelet-serving.csr" 2>/dev/null
    printf 'subjectAltName=IP:%s,DNS:%s\nextendedKeyUsage=serverAuth\n' "$node_ip" "$node_name" > "$pki/kubelet-serving.ext"
    openssl x509 -req -in "$pki/kubelet-serving.csr" -CA "$pki/ca.crt" -CAkey "$pki/ca.key" -CAcreateserial \
      -days 3650 -extfile "$pki/kubelet-serving.ext" -out "$pki/kubelet-serving.crt" 2>/dev/null
  fi
  cat > "$node/kube-proxy.yaml" <<YAML
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: { kubeconfig: "$node/proxy.kubeconfig" }
hostnameOverride: $node_name
mode: iptables
clusterCIDR: $subnet
healthzBindAddress: 127.0.0.1:$proxy_healthz_port
metricsBindAddress: 127.0.0.1:$proxy_metrics_port
# No conntrack sysctls touched: they are the machine's, not the node's.
conntrack: { maxPerCore: 0, min: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s, udpTimeout: 0s, udpStreamTimeout: 0s }
iptables: { localhostNodePorts: false }
nodePortAddresses: [ "$subnet" ]
YAML
  mkdir -p "$node/coredns"
  cat > "$node/coredns/Corefile" <<COREFILE
# Cluster DNS of the real node (hack/cluster/real-node.sh). No upstream: Pods here reach
# nothing outside the machine.
.:53 {
    bind $node_ip
    health 127.0.0.1:$coredns_health_port
    ready 127.0.0.1:$coredns_ready_port
    errors
    cache 30
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $node/proxy.kubeconfig waitgate-local
        pods insecure
        fallthrough in-addr.arpa ip6.arpa
    }
}
COREFILE
}

# A kubeconfig for what runs in the node's namespace (kube-proxy, CoreDNS) with the admin token.
node_kubeconfig() { # path token
  cat > "$1" <<KC
apiVersion: v1
kind: Config
clusters:
- name: waitgate-local
  cluster: { server: "https://$link_host_ip:$api_port", certificate-authority: "$pki/ca.crt", tls-server-name: kubernetes.default.svc }
users:
- name: waitgate-admin
  user: { token: "$2" }
contexts:
- name: waitgate-local
  context: { cluster: waitgate-local, user: waitgate-admin }
current-context: waitgate-local
KC
  chmod 600 "$1"
}

# The node's network namespace, its bridge and its link to the machine; idempotent.
network_up() {
  # A bridge of the layout before the namespace existed (on the machine itself) goes.
  if ip link show "$bridge" >/dev/null 2>&1; then ip link del "$bridge" 2>/dev/null || true; fi
  [ -e "/run/netns/$netns" ] || ip netns add "$netns"
  in_node ip link set lo up
  if ! ip link show "$host_if" >/dev/null 2>&1; then
    ip link add "$host_if" type veth peer name "$node_if"
    ip link set "$node_if" netns "$netns"
  fi
  [[ $(ip addr show dev "$host_if") == *" $link_host_ip/"* ]] || ip addr add "$link_host_ip/30" dev "$host_if"
  ip link set "$host_if" up
  [[ $(in_node ip addr show dev "$node_if") == *" $link_node_ip/"* ]] || in_node ip addr add "$link_node_ip/30" dev "$node_if"
  in_node ip link set "$node_if" up
  in_node ip link show "$bridge" >/dev/null 2>&1 || in_node ip link add "$bridge" type bridge
  [[ $(in_node ip addr show dev "$bridge") == *" $node_ip/"* ]] || in_node ip addr add "$node_ip/25" dev "$bridge"
  in_node ip link set "$bridge" up
  in_node ip route replace default via "$link_host_ip" dev "$node_if"
  ip route replace "$subnet" via "$link_node_ip" dev "$host_if"
  in_node sysctl -qw net.ipv4.ip_forward=1
  # Pod to Service to Pod on one bridge: the reply must cross iptables to be un-NATed.
  if [ -e /proc/sys/net/bridge/bridge-nf-call-iptables ]; then
    in_node sysctl -qw net.bridge.bridge-nf-call-iptables=1 2>/dev/null || log "bridge-nf-call-iptables is not settable in the node's namespace; a Pod reaching a Service that leads back to its own bridge may time out"
  fi
  # The apiserver, bound to 127.0.0.1, reached at the machine's end of the link.
  sysctl -qw "net.ipv4.conf.$host_if.route_localnet=1"
  local rule=(-i "$host_if" -d "$link_host_ip" -p tcp --dport "$api_port" -j DNAT --to-destination "127.0.0.1:$api_port" -m comment --comment "waitgate real node $base")
  iptables -t nat -C PREROUTING "${rule[@]}" 2>/dev/null || iptables -t nat -A PREROUTING "${rule[@]}"
  echo "$host_if $link_host_ip $api_port $netns $base" > "$node/link"
}

network_down() {
  if [ -s "$node/link" ]; then
    local h ip port ns b
    read -r h ip port ns b < "$node/link"
    while iptables -t nat -D PREROUTING -i "$h" -d "$ip" -p tcp --dport "$port" -j DNAT --to-destination "127.0.0.1:$port" -m comment --comment "waitgate real node $b" 2>/dev/null; do :; done
    ip link del "$h" 2>/dev/null || true
    if [ -e "/run/netns/$ns" ]; then ip netns del "$ns" 2>/dev/null || true; fi
  fi
  rm -f "$node/link"
}

wait_for() { # what seconds command...
  local what=$1 secs=$2; shift 2
  local deadline=$(( $(date +%s) + secs ))
  until "$@" >/dev/null 2>&1; do
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "$what did not come up within ${secs}s; last lines of its log:"
      tail -n 30 "$state/logs/$what.log" >&2 || true
      echo "unavailable: $what did not start (see $state/logs/$what.log)" > "$marker"
      exit 1
    fi
    sleep 0.2
  done
}

up() {
  bin=${WAITGATE_BIN:-$cache/bin/active}
  export PATH="$bin:$PATH"
  mkdir -p "$state/logs" "$state/pids"
  local t0 tar
  t0=$(date +%s)
  preflight
  write_config
  tar=$(images_tar)
  [ -n "$api_port" ] || unavailable "no apiserver port in $kubeconfig"
  # The namespace and its bridge exist before the first Pod: the kubelet listens on its address.
  # (Addresses are read whole before matching: grep -q leaves at the first match, and under
  # pipefail the SIGPIPE it gives ip read as "not assigned".)
  network_up

  if ! running containerd "$node/containerd.toml"; then
    log "starting containerd"
    setsid nohup nsenter --net="/run/netns/$netns" -- containerd --config "$node/containerd.toml" >"$state/logs/containerd.log" 2>&1 < /dev/null &
    echo $! > "$state/pids/containerd.pid"
  fi
  wait_for containerd 30 ctr --address "$sock" version
  ctr --address "$sock" -n k8s.io images import "$tar" >/dev/null

  kubectl --kubeconfig "$kubeconfig" apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: waitgate-real-node }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:node" }
subjects:
  - { apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:node:$node_name" }
YAML

  if ! running kubelet "$node/kubelet.yaml"; then
    log "starting kubelet"
    setsid nohup nsenter --net="/run/netns/$netns" -- "$bin/kubelet" --config "$node/kubelet.yaml" --kubeconfig "$node/kubelet.kubeconfig" \
      --root-dir "$node/kubelet" --cert-dir "$node/kubelet/pki" --hostname-override "$node_name" \
      --node-ip "$node_ip" --node-labels "waitgate.dev/real-node=true,type=real" \
      --v=1 >"$state/logs/kubelet.log" 2>&1 < /dev/null &
    echo $! > "$state/pids/kubelet.pid"
  fi
  wait_for kubelet 90 kubectl --kubeconfig "$kubeconfig" wait --for condition=Ready --timeout=2s "node/$node_name"
  if ! running kube-proxy "$node/kube-proxy.yaml"; then
    log "starting kube-proxy"
    setsid nohup nsenter --net="/run/netns/$netns" -- "$bin/kube-proxy" --config "$node/kube-proxy.yaml" --v=1 \
      >"$state/logs/kube-proxy.log" 2>&1 < /dev/null &
    echo $! > "$state/pids/kube-proxy.pid"
  fi
  if ! running coredns "$node/coredns/Corefile"; then
    log "starting coredns"
    setsid nohup nsenter --net="/run/netns/$netns" -- "$bin/coredns" -conf "$node/coredns/Corefile" \
      >"$state/logs/coredns.log" 2>&1 < /dev/null &
    echo $! > "$state/pids/coredns.pid"
  fi
  wait_for kube-proxy 60 in_node python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$proxy_healthz_port/healthz', timeout=2)"
  wait_for coredns 60 in_node python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$coredns_ready_port/ready', timeout=2)"
  echo ready > "$marker"
  log "ready in $(( $(date +%s) - t0 ))s (node $node_name, kubelet on $node_ip:$kubelet_port)"
}

# Every mount point below a folder of this cluster, deepest first (never one outside it).
mounts_under() {
  awk -v p="$1/" '{ m = $5; gsub(/\\040/, " ", m); if (index(m "/", p) == 1) print m }' /proc/self/mountinfo | sort -r
}

down() {
  [ -d "$node" ] || { rm -f "$marker"; return 0; }
  # The namespace this cluster made (named in its state: cluster-down may run without the port base).
  if [ -s "$node/link" ]; then read -r _ _ _ netns _ < "$node/link"; fi
  stop coredns "$node/coredns/Corefile"
  stop kube-proxy "$node/kube-proxy.yaml"
  stop kubelet "$node/kubelet.yaml"
  # A containerd that died (a crash, a kill) left its shims and containers running: started
  # again on the same state, it finds them, so they go the same way.
  if ! running containerd "$node/containerd.toml" && [ -s "$node/containerd.toml" ] && command -v containerd >/dev/null; then
    if [ -e "/run/netns/$netns" ]; then
      setsid nohup nsenter --net="/run/netns/$netns" -- containerd --config "$node/containerd.toml" >>"$state/logs/containerd.log" 2>&1 < /dev/null &
    else
      setsid nohup containerd --config "$node/containerd.toml" >>"$state/logs/containerd.log" 2>&1 < /dev/null &
    fi
    echo $! > "$state/pids/containerd.pid"
    local _
    for _ in $(seq 1 50); do ctr --address "$sock" version >/dev/null 2>&1 && break; sleep 0.2; done
  fi
  # Every container of this containerd, killed and removed before containerd stops, so no shim
  # (and no container process) outlives it.
  if running containerd "$node/containerd.toml" && [ -S "$sock" ]; then
    local id
    for id in $(ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
    done
    for id in $(ctr --address "$sock" -n k8s.io tasks ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io tasks rm -f "$id" >/dev/null 2>&1 || true
    done
    for id in $(ctr --address "$sock" -n k8s.io containers ls -q 2>/dev/null); do
      ctr --address "$sock" -n k8s.io containers rm "$id" >/dev/null 2>&1 || true
    done
  fi
  stop containerd "$node/containerd.toml"
  local m
  mounts_under "$state" | while IFS= read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  if [ "$run_dir" != "$node/run" ]; then
    mounts_under "$run_dir" | while IFS= read -r m; do umount -l "$m" 2>/dev/null || true; done
  fi
  # The bridge an older layout made on the machine (named in its state), then the node's
  # namespace, its link and the apiserver's forwarding rule.
  if [ -s "$node/bridge" ]; then ip link del "$(cat "$node/bridge")" 2>/dev/null || true; rm -f "$node/bridge"; fi
  network_down
  # The kubelet links each container's log into /var/log/containers; drop ours.
  find /var/log/containers -maxdepth 1 -type l -lname "$node/*" -delete 2>/dev/null || true
  if [ -n "$(mounts_under "$state")" ]; then
    log "still mounted under $state, state kept: $(mounts_under "$state" | tr '\n' ' ')"
    return 1
  fi
  [ "$run_dir" = "$node/run" ] || rm -rf "$run_dir"
  rm -f "$marker"
}

# Images built on this machine (hack/image.sh), imported into the node's containerd: there is
# no registry, so Pods name them with imagePullPolicy Never or IfNotPresent.
load() {
  [ "$(cat "$marker" 2>/dev/null)" = ready ] || { log "no real node to load images into ($(cat "$marker" 2>/dev/null || echo 'not started'))"; return 1; }
  local f
  for f in "$@"; do
    ctr --address "$sock" -n k8s.io images import "$f" >/dev/null
    log "loaded $(basename "$f")"
  done
}

# The name a docker-archive (hack/image.sh) loads under: its manifest's first RepoTag.
name() {
  tar -xOf "$1" manifest.json | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["RepoTags"][0])'
}

# A second name for an image already loaded (a tag to upgrade to, with no second build).
tag() {
  ctr --address "$sock" -n k8s.io images tag --force "$1" "$2" >/dev/null
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  can-run) can_run ;;
  load) shift; load "$@" ;;
  tag) shift; tag "$@" ;;
  name) shift; name "$@" ;;
  *) echo "usage: real-node.sh up|down|can-run|load ARCHIVE...|tag IMAGE NEW-NAME|name ARCHIVE" >&2; exit 2 ;;
esac
