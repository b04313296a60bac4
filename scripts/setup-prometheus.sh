#!/usr/bin/env bash
# Installs what the Prometheus suites and `modelplane dev`'s metrics need: Debian's prometheus (reused when
# present) and librsvg2-bin (rsvg-convert, which turns the autoscaling plot's SVG into the PNG of
# docs/autoscaling.md). Run by `npm run test:prometheus`; needs root (as CI runs) for apt-get.
set -euo pipefail
need=()
command -v "${PROMETHEUS_BINARY:-prometheus}" >/dev/null 2>&1 || [ -x /usr/bin/prometheus ] || need+=(prometheus)
command -v rsvg-convert >/dev/null 2>&1 || need+=(librsvg2-bin)
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ]; then
  echo "setup-prometheus: missing ${need[*]}; installing needs root: sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
echo "setup-prometheus: installing Debian's ${need[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
/usr/bin/prometheus --version 2>&1 | head -1 >&2
