#!/usr/bin/env bash
# The test command: lint (ruff), strict type checking (mypy) and the test suite (pytest).
# Sets up .venv first when it is missing (scripts/setup.sh is idempotent).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
VENV="${AGENTGAUGE_VENV:-$here/.venv}"
if [ ! -x "$VENV/bin/agentgauge" ]; then
  bash scripts/setup.sh
fi
echo "== ruff"
"$VENV/bin/ruff" check src tests benchmarks scripts
"$VENV/bin/ruff" format --check src tests benchmarks scripts
echo "== import layers (lint-imports; docs/architecture.md, 'Layers')"
"$VENV/bin/lint-imports"
echo "== mypy (strict)"
"$VENV/bin/mypy"
echo "== pytest"
"$VENV/bin/pytest" -q "$@"
