#!/usr/bin/env bash
# Builds KEDA (its operator and its metrics API server) for `npm run test:real`, compiled from the
# published Go module pinned in tools/keda/go.mod, the way tools/kube/build.sh builds kube-apiserver
# (docs/real-kubernetes.md). Binaries and KEDA's CRDs (copied from the same module) land in
# .tools/keda/bin (git-ignored; MODELPLANE_KEDA_BIN overrides) and are reused while go.mod, go.sum and this
# script are unchanged.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
out="${MODELPLANE_KEDA_BIN:-$repo/.tools/keda/bin}"
module=github.com/kedacore/keda/v2
version="$(awk -v m="$module" '$1==m {print $2}' "$here/go.mod")"
stamp="$(cat "$here/go.mod" "$here/go.sum" "$here/build.sh" | sha256sum | cut -c1-16)"

# one build at a time per output folder: a second caller (test:real while .ci/run's early background build
# runs) waits here, then finds the binaries and reuses them
mkdir -p "$out"
exec 9>"$out/.lock"
flock 9

if [[ -x "$out/keda-operator" && -x "$out/keda-metrics-apiserver" && -d "$out/crds" \
  && "$(cat "$out/.stamp" 2>/dev/null)" == "$stamp" ]]; then
  echo "keda binaries: reusing $out (keda $version)"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  if [[ -x /usr/local/go/bin/go ]]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    echo "keda binaries: Go not found, installing golang-go from Debian" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  fi
fi

mkdir -p "$out"
rm -f "$out/.stamp"
start=$(date +%s)
cd "$here"
# go.sum pins every module; k8s.io/metrics v0.31.7 is missing from the public checksum database, so the
# hash recorded in go.sum is the only one checked for it
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly CGO_ENABLED=0 GONOSUMDB=k8s.io/metrics
ldflags="-s -w -X $module/version.Version=${version#v} -X $module/version.GitCommit=release"
echo "keda binaries: building keda $version into $out"
go build -trimpath -ldflags "$ldflags" -o "$out/keda-operator" "$module/cmd/operator"
go build -trimpath -ldflags "$ldflags" -o "$out/keda-metrics-apiserver" "$module/cmd/adapter"
src="$(go list -m -f '{{.Dir}}' "$module")"
rm -rf "$out/crds" && mkdir -p "$out/crds"
cp "$src"/config/crd/bases/*.yaml "$out/crds/"
chmod -R u+w "$out/crds"
echo "$stamp" > "$out/.stamp"
echo "keda binaries: built in $(( $(date +%s) - start )) s (keda $version)"
