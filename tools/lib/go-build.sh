#!/usr/bin/env bash
# The steps every Go build under tools/ shares (tools/kube/build.sh, tools/keda/build.sh): the reuse stamp,
# one build at a time per output folder, Go itself, and a clean start. Sourced, never run; each build.sh keeps
# what differs (its modules, flags and outputs). docs/real-kubernetes.md describes the builds.

# go_build_stamp DIR RECIPE: what the binaries are made of, as 16 hex digits: the pinned modules (DIR/go.mod,
# DIR/go.sum) and the recipe (the flags and packages the caller builds with). Comments and the scripts' own
# layout are left out on purpose: editing them must not cost a cold build of tens of minutes.
go_build_stamp() {
  { cat "$1/go.mod" "$1/go.sum"; printf '%s\n' "$2"; } | sha256sum | cut -c1-16
}

# go_build_lock OUT: one build at a time per output folder. .ci/run starts the builds in the background and
# test:real's own call waits here, then finds the binaries current instead of starting a second build.
go_build_lock() {
  mkdir -p "$1"
  exec 9>"$1/.lock"
  flock 9
}

# go_build_is_current OUT STAMP EARLIER ARTIFACT...: every artifact exists and OUT/.stamp says it was built
# from STAMP. EARLIER lists "stamp:earlier" pairs: a stamp an earlier version of the script wrote (it hashed
# the whole script) that stands for the same binaries while the stamp is still the one recorded with it.
go_build_is_current() {
  local out="$1" stamp="$2" earlier="$3" artifact recorded
  shift 3
  for artifact in "$@"; do
    [[ -x "$out/$artifact" ]] || return 1
  done
  recorded="$(cat "$out/.stamp" 2>/dev/null || true)"
  [[ -n "$recorded" ]] || return 1
  [[ "$recorded" == "$stamp" || " $earlier " == *" $stamp:$recorded "* ]]
}

# go_build_require_go LABEL: Go on the PATH, from /usr/local/go or else Debian's golang-go.
go_build_require_go() {
  command -v go >/dev/null 2>&1 && return 0
  if [[ -x /usr/local/go/bin/go ]]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    echo "$1: Go not found, installing golang-go from Debian" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq golang-go >/dev/null
  fi
}

# go_build_begin OUT: no stamp while a build runs, so binaries a killed build left half-written are never
# taken as current.
go_build_begin() {
  mkdir -p "$1"
  rm -f "$1/.stamp"
}
