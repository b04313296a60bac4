#!/usr/bin/env bash
# Installs what the browser tests and the dashboard benchmark need: Debian's Chromium (reused when present).
# Run by `npm run test:browser` and `npm run bench -- dashboard`; needs root (as CI runs) for apt-get.
set -euo pipefail
CHROMIUM="${MODELPLANE_CHROMIUM:-/usr/bin/chromium}"
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "setup-browser: $CHROMIUM is missing and installing it needs root: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "setup-browser: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
"$CHROMIUM" --version >&2
