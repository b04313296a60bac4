#!/usr/bin/env bash
# Creates (or reuses) the project-local virtual environment the real-server Llama Stack test runs in, and
# installs Debian's redis-server for its redis storage variant:
# .llama-stack/venv with the pinned llama-stack release from PyPI. llama-stack needs Python >= 3.12; the
# first interpreter found is used (python3.13, python3.12, pyenv's, then python3 if new enough), and on a
# Debian/Ubuntu machine without one, python3.12 is installed with apt-get.
set -euo pipefail
cd "$(dirname "$0")/../.."
LLAMA_STACK_VERSION="${LLAMA_STACK_VERSION:-0.7.3}"
# the real-server test's redis storage variant runs Debian's redis-server
if ! command -v redis-server >/dev/null && command -v apt-get >/dev/null; then
  apt-get update -qq && apt-get install -y -qq redis-server
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
