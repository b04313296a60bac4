#!/usr/bin/env bash
# Builds KEDA (its operator and its metrics API server) for `npm run test:real`, compiled from the
# published Go module pinned in tools/keda/go.mod, the way tools/kube/build.sh builds kube-apiserver
# (docs/real-kubernetes.md). Binaries and KEDA's CRDs (copied from the same module) land in
# .tools/keda/bin (git-ignored; MODELPLANE_KEDA_BIN overrides) and are reused while go.mod, go.sum and the
# build flags are unchanged.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
source "$repo/tools/lib/go-build.sh"
out="${MODELPLANE_KEDA_BIN:-$repo/.tools/keda/bin}"
module=github.com/kedacore/keda/v2
version="$(awk -v m="$module" '$1==m {print $2}' "$here/go.mod")"
# go.sum pins every module; k8s.io/metrics v0.31.7 is missing from the public checksum database, so the
# hash recorded in go.sum is the only one checked for it
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 GONOSUMDB=k8s.io/metrics
ldflags="-s -w -X $module/version.Version=${version#v} -X $module/version.GitCommit=release"
stamp="$(go_build_stamp "$here" "$GOTOOLCHAIN $GOFLAGS $CGO_ENABLED $GONOSUMDB
$ldflags $module/cmd/operator $module/cmd/adapter
$module/config/crd/bases")"
# Stamps this script wrote while it hashed itself whole, comments included (before tools/lib/go-build.sh), for
# the binaries that the stamp 0907d22dda28d859 stands for now; a new go.mod, go.sum or flag retires them.
earlier="0907d22dda28d859:cb7ea076d229fc81"

go_build_lock "$out"
if go_build_is_current "$out" "$stamp" "$earlier" keda-operator keda-metrics-apiserver crds; then
  echo "keda binaries: reusing $out (keda $version)"
  exit 0
fi

go_build_require_go "keda binaries"
go_build_begin "$out"
start=$(date +%s)
cd "$here"
echo "keda binaries: building keda $version into $out"
go build -trimpath -ldflags "$ldflags" -o "$out/keda-operator" "$module/cmd/operator"
go build -trimpath -ldflags "$ldflags" -o "$out/keda-metrics-apiserver" "$module/cmd/adapter"
src="$(go list -m -f '{{.Dir}}' "$module")"
rm -rf "$out/crds" && mkdir -p "$out/crds"
cp "$src"/config/crd/bases/*.yaml "$out/crds/"
chmod -R u+w "$out/crds"
echo "$stamp" > "$out/.stamp"
echo "keda binaries: built in $(( $(date +%s) - start )) s (keda $version)"
