#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, and the real
# node's kubelet, kube-proxy (Services) and CoreDNS (cluster DNS) from their Go modules (through the Go module proxy) and caches the
# binaries outside the clone, keyed by version. A warm cache makes this a no-op.
#
#   WAITGATE_CACHE   cache root (default: ~/.cache/waitgate)
#
# Prints the bin directory as its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.env
. "$here/versions.env"

cache=${WAITGATE_CACHE:-$HOME/.cache/waitgate}
k8s_bin=$cache/bin/kubernetes-$K8S_VERSION
etcd_bin=$cache/bin/etcd-$ETCD_VERSION
kwok_bin=$cache/bin/kwok-$KWOK_VERSION
coredns_bin=$cache/bin/coredns-$COREDNS_VERSION
mkdir -p "$cache/build" "$k8s_bin" "$etcd_bin" "$kwok_bin" "$coredns_bin"

command -v go >/dev/null || { echo "build-control-plane: go is required on PATH" >&2; exit 1; }
export CGO_ENABLED=0 GOFLAGS=-mod=mod
# Builds run one after another: two cores and the Kubernetes link step want most of them.

log() { printf 'build-control-plane: %s\n' "$*" >&2; }
started=$(date +%s)
built_any=0

# k8s.io/kubernetes requires its staging modules at v0.0.0 with local replaces: a module that
# imports it maps each to its published version.
k8s_staging_modules="api apiextensions-apiserver apimachinery apiserver cli-runtime client-go
  cloud-provider cluster-bootstrap code-generator component-base component-helpers
  controller-manager cri-api cri-client csi-translation-lib dynamic-resource-allocation
  endpointslice externaljwt kms kube-aggregator kube-controller-manager kube-proxy
  kube-scheduler kubectl kubelet metrics mount-utils pod-security-admission
  sample-apiserver sample-cli-plugin sample-controller"
# Version ldflags, so /version and the node's kubeletVersion are honest.
k8s_ldflags() {
  local minor=${K8S_VERSION#v1.} ld="-s -w" pkg
  minor=${minor%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  printf '%s' "$ld"
}

build_etcd() {
  [ -x "$etcd_bin/etcd" ] && return 0
  built_any=1
  local dir=$cache/build/etcd-$ETCD_VERSION
  rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
  log "building etcd $ETCD_VERSION"
  cat > main.go <<'GO'
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
GO
  go mod init waitgate.local/etcd >/dev/null 2>&1
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >/dev/null
  go mod tidy >/dev/null
  go build -trimpath -ldflags "-s -w" -o "$etcd_bin/etcd.tmp" .
  mv "$etcd_bin/etcd.tmp" "$etcd_bin/etcd"
}

build_kubernetes() {
  if [ -x "$k8s_bin/kube-apiserver" ] && [ -x "$k8s_bin/kube-controller-manager" ] && [ -x "$k8s_bin/kube-scheduler" ]; then
    return 0
  fi
  built_any=1
  local dir=$cache/build/kubernetes-$K8S_VERSION
  rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
  log "building kube-apiserver, kube-controller-manager, kube-scheduler $K8S_VERSION"
  go mod init waitgate.local/kubernetes >/dev/null 2>&1
  go mod edit -go=1.26.0 -godebug=default=go1.24
  local m
  for m in $k8s_staging_modules; do
    go mod edit -replace="k8s.io/$m=k8s.io/$m@$K8S_STAGING_VERSION"
  done
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
GO
  go get "k8s.io/kubernetes@$K8S_VERSION" >/dev/null
  go mod tidy >/dev/null
  local ld
  ld=$(k8s_ldflags)
  local cmd
  for cmd in kube-apiserver kube-controller-manager kube-scheduler; do
    [ -x "$k8s_bin/$cmd" ] && continue
    log "linking $cmd"
    go build -tags tools -trimpath -ldflags "$ld" -o "$k8s_bin/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd"
    mv "$k8s_bin/$cmd.tmp" "$k8s_bin/$cmd"
  done
}

# One binary of k8s.io/kubernetes/cmd/NAME, from the same Kubernetes version, in a module of
# its own, so a cache holding the others builds only this one: the real node's kubelet
# (hack/cluster/real-node.sh) and kube-proxy (its Services, as iptables rules inside the
# node's own network namespace).
build_k8s_cmd() {
  local cmd=$1 dir t0 m
  [ -x "$k8s_bin/$cmd" ] && return 0
  built_any=1
  dir=$cache/build/$cmd-$K8S_VERSION
  t0=$(date +%s)
  rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
  log "building $cmd $K8S_VERSION"
  go mod init "waitgate.local/$cmd" >/dev/null 2>&1
  go mod edit -go=1.26.0 -godebug=default=go1.24
  for m in $k8s_staging_modules; do
    go mod edit -replace="k8s.io/$m=k8s.io/$m@$K8S_STAGING_VERSION"
  done
  printf '//go:build tools\n\npackage tools\n\nimport _ "k8s.io/kubernetes/cmd/%s"\n' "$cmd" > tools.go
  go get "k8s.io/kubernetes@$K8S_VERSION" >/dev/null
  go mod tidy >/dev/null
  go build -tags tools -trimpath -ldflags "$(k8s_ldflags)" -o "$k8s_bin/$cmd.tmp" "k8s.io/kubernetes/cmd/$cmd"
  mv "$k8s_bin/$cmd.tmp" "$k8s_bin/$cmd"
  log "$cmd built in $(( $(date +%s) - t0 ))s"
}

# CoreDNS with only the plugins cluster DNS needs (CoreDNS's documented way to trim a build:
# a main of one's own that sets the directive list), so none of its cloud providers' SDKs
# are compiled.
build_coredns() {
  [ -x "$coredns_bin/coredns" ] && return 0
  built_any=1
  local dir=$cache/build/coredns-$COREDNS_VERSION t0
  t0=$(date +%s)
  rm -rf "$dir"; mkdir -p "$dir"; cd "$dir"
  log "building coredns $COREDNS_VERSION"
  cat > main.go <<'GO'
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// The order plugins run in, as in CoreDNS's plugin.cfg, for the ones built in.
var directives = []string{"bind", "health", "ready", "errors", "log", "cache", "kubernetes"}

func init() { dnsserver.Directives = directives }

func main() { coremain.Run() }
GO
  go mod init waitgate.local/coredns >/dev/null 2>&1
  go get "github.com/coredns/coredns@$COREDNS_VERSION" >/dev/null
  go mod tidy >/dev/null
  go build -trimpath -ldflags "-s -w" -o "$coredns_bin/coredns.tmp" .
  mv "$coredns_bin/coredns.tmp" "$coredns_bin/coredns"
  log "coredns built in $(( $(date +%s) - t0 ))s"
}

build_kwok() {
  [ -x "$kwok_bin/kwok" ] && return 0
  built_any=1
  log "building kwok $KWOK_VERSION"
  local gobin=$cache/build/kwok-$KWOK_VERSION
  mkdir -p "$gobin"
  GOBIN=$gobin go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  mv "$gobin/kwok" "$kwok_bin/kwok"
}

build_etcd
build_kwok
build_kubernetes
build_k8s_cmd kubelet
build_k8s_cmd kube-proxy
build_coredns

if [ "$built_any" = 1 ]; then
  log "cold build took $(( $(date +%s) - started ))s"
fi
out=$cache/bin/control-plane-$K8S_VERSION-$ETCD_VERSION-$KWOK_VERSION-$COREDNS_VERSION
mkdir -p "$out"
for f in "$etcd_bin/etcd" "$k8s_bin/kube-apiserver" "$k8s_bin/kube-controller-manager" \
  "$k8s_bin/kube-scheduler" "$kwok_bin/kwok" "$k8s_bin/kubelet" "$k8s_bin/kube-proxy" "$coredns_bin/coredns"; do
  ln -sfn "$f" "$out/$(basename "$f")"
done
echo "$out"
