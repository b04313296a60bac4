#!/usr/bin/env bash
# Builds the real Kubernetes control plane used by `npm run test:real` and
# `modelplane dev --cluster real` (docs/real-kubernetes.md): etcd, kube-apiserver and
# kube-controller-manager, compiled from their published Go modules as pinned in
# tools/kube/go.mod. Binaries land in .tools/kube/bin (git-ignored) and are reused while
# go.mod, go.sum and the build flags are unchanged. Installs Go from Debian when absent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$repo/tools/lib/go-build.sh"
out="${MODELPLANE_KUBE_BIN:-$repo/.tools/kube/bin}"
k8s_version="$(awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3}' "$here/go.mod")"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0
# The version the server reports on /version (kubectl, helm and client-go read it); the
# upstream release build stamps the same variables.
major="${k8s_version#v}"; major="${major%%.*}"
minor="$(echo "$k8s_version" | cut -d. -f2)"
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done
packages="k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager"
etcd_package=go.etcd.io/etcd/server/v3
stamp="$(go_build_stamp "$here" "$GOTOOLCHAIN $GOFLAGS $CGO_ENABLED
$ldflags $packages
-s -w $etcd_package")"
# Stamps this script wrote while it hashed itself whole, comments included (before tools/lib/go-build.sh), for
# the binaries that the stamp c15300da7aae62c1 stands for now; a new go.mod, go.sum or flag retires them.
earlier="c15300da7aae62c1:3ce072458513f07e c15300da7aae62c1:ef5c6379e0f6dd57"

go_build_lock "$out"
if go_build_is_current "$out" "$stamp" "$earlier" etcd kube-apiserver kube-controller-manager; then
  echo "kube binaries: reusing $out (kubernetes $k8s_version)"
  exit 0
fi

go_build_require_go "kube binaries"
go_build_begin "$out"
start=$(date +%s)
cd "$here"
echo "kube binaries: building kubernetes $k8s_version + etcd into $out (a cold build took ~32 min on 2 shared cores)"
# shellcheck disable=SC2086 # $packages is a list of package paths
go build -trimpath -ldflags "$ldflags" -o "$out/" $packages
go build -trimpath -ldflags "-s -w" -o "$out/etcd" "$etcd_package"
echo "$stamp" > "$out/.stamp"
echo "kube binaries: built in $(( $(date +%s) - start )) s ($("$out/kube-apiserver" --version), $("$out/etcd" --version | head -1))"
