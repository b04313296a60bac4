#!/usr/bin/env bash
# Builds the real Kubernetes control plane used by `npm run test:real` and
# `modelplane dev --cluster real` (docs/real-kubernetes.md): etcd, kube-apiserver and
# kube-controller-manager, compiled from their published Go modules as pinned in
# tools/kube/go.mod. Binaries land in .tools/kube/bin (git-ignored) and are reused while
# go.mod, go.sum and this script are unchanged. Installs Go from Debian when absent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${MODELPLANE_KUBE_BIN:-$repo/.tools/kube/bin}"
k8s_version="$(awk '$1=="require" && $2=="k8s.io/kubernetes" {print $3}' "$here/go.mod")"
stamp_of() { cat "$here/go.mod" "$here/go.sum" "$here/build.sh" | sha256sum | cut -c1-16; }
stamp="$(stamp_of)"
# one build at a time per output folder: .ci/run starts one in the background and test:real's call waits for
# it here, then finds the binaries current
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9

if [[ -x "$out/etcd" && -x "$out/kube-apiserver" && -x "$out/kube-controller-manager" \
  && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "kube binaries: reusing $out (kubernetes $k8s_version)"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  if [[ -x /usr/local/go/bin/go ]]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    echo "kube binaries: Go not found, installing golang-go from Debian" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  fi
fi

mkdir -p "$out"
rm -f "$out/.stamp"
start=$(date +%s)
cd "$here"
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
echo "kube binaries: building kubernetes $k8s_version + etcd into $out (a cold build took ~32 min on 2 shared cores)"
go build -trimpath -ldflags "$ldflags" -o "$out/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
go build -trimpath -ldflags "-s -w" -o "$out/etcd" go.etcd.io/etcd/server/v3
echo "$stamp" > "$out/.stamp"
echo "kube binaries: built in $(( $(date +%s) - start )) s ($("$out/kube-apiserver" --version), $("$out/etcd" --version | head -1))"
