#!/usr/bin/env bash
# Creates (or reuses) the project-local virtual environment the real-server Llama Stack test runs in, and
# installs Debian's redis-server and postgresql for its storage variants:
# .llama-stack/venv with the pinned llama-stack release from PyPI. llama-stack needs Python >= 3.12; the
# first interpreter found is used (python3.13, python3.12, pyenv's, then python3 if new enough), and on a
# Debian/Ubuntu machine without one, python3.12 is installed with apt-get.
set -euo pipefail
cd "$(dirname "$0")/../.."
LLAMA_STACK_VERSION="${LLAMA_STACK_VERSION:-0.7.3}"
# the real-server test's storage variants run Debian's redis-server and PostgreSQL (a throwaway cluster in a
# temp dir, started by the test with the version's initdb/pg_ctl from /usr/lib/postgresql/<major>/bin)
need=()
command -v redis-server >/dev/null || need+=(redis-server)
compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  if ! command -v apt-get >/dev/null || [ "$(id -u)" != "0" ]; then
    echo "llama-stack setup: missing ${need[*]}; install them (as root: apt-get install -y ${need[*]})" >&2; exit 1
  fi
  echo "llama-stack setup: installing Debian's ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
VENV=.llama-stack/venv
STAMP="$VENV/.installed-$LLAMA_STACK_VERSION-$(sha256sum scripts/llama-stack/constraints.txt | cut -c1-12)"
if [ -f "$STAMP" ]; then echo "llama-stack $LLAMA_STACK_VERSION already installed in $VENV"; exit 0; fi

new_enough() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; }
find_python() {
  for c in python3.13 python3.12; do command -v "$c" >/dev/null && new_enough "$c" && { command -v "$c"; return; }; done
  if command -v pyenv >/dev/null; then
    for v in $(pyenv versions --bare 2>/dev/null | sort -rV); do
      p="$(pyenv root)/versions/$v/bin/python3"
      [ -x "$p" ] && new_enough "$p" && { echo "$p"; return; }
    done
  fi
  command -v python3 >/dev/null && new_enough python3 && { command -v python3; return; }
  return 1
}
PY="$(find_python || true)"
if [ -z "$PY" ]; then
  if command -v apt-get >/dev/null; then
    apt-get update -qq && apt-get install -y -qq python3.12 python3.12-venv
    PY="$(find_python)"
  else
    echo "llama-stack needs Python >= 3.12 and none was found (install python3.12)" >&2; exit 1
  fi
fi
echo "using $PY ($("$PY" --version))"
rm -rf "$VENV"
"$PY" -m venv "$VENV"
"$VENV/bin/pip" install --quiet --upgrade pip
"$VENV/bin/pip" install --quiet -c scripts/llama-stack/constraints.txt "llama-stack==$LLAMA_STACK_VERSION"
touch "$STAMP"
echo "installed llama-stack $LLAMA_STACK_VERSION in $VENV"
