#!/usr/bin/env bash
# One command from a fresh clone to a real evaluation on the embedded local model:
# set everything up, then run the quickstart suite against SmolLM2-135M-Instruct in-process.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$here/scripts/setup.sh"
VENV="${AGENTGAUGE_VENV:-$here/.venv}"
cd "$here"
exec "$VENV/bin/agentgauge" run examples/quickstart --agent local:smollm2 -o runs/quickstart "$@"
