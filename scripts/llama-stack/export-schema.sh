#!/usr/bin/env bash
# Regenerates the committed config.yaml schema of the pinned llama-stack release from the published PyPI
# package: one llama-stack-VERSION.json per release in src/controllers/llamastack/config/schema (see export-schema.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/llama-stack/setup.sh
VERSION="${LLAMA_STACK_VERSION:-0.7.3}"
OUT="src/controllers/llamastack/config/schema/llama-stack-$VERSION.json"
mkdir -p "$(dirname "$OUT")"
.llama-stack/venv/bin/python scripts/llama-stack/export-schema.py > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "wrote $OUT"
