#!/usr/bin/env bash
# Set up agentgauge for development and for running the embedded local model, on a fresh machine.
#
#   bash scripts/setup.sh            # creates .venv and installs everything (idempotent)
#
# llama-cpp-python is built from source with a portable CPU configuration: its default native
# build enables every instruction set the CPU advertises (AMX among them), and on VMs that
# advertise AMX without allowing it the native build crashes on the first call. The portable
# wheel is built once (about 5 minutes) into a wheelhouse and reused by later installs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

PYTHON="${PYTHON:-python3}"
VENV="${AGENTGAUGE_VENV:-$here/.venv}"
WHEELHOUSE="${AGENTGAUGE_WHEELHOUSE:-$HOME/.cache/agentgauge/wheels}"
LLAMA_VERSION="0.3.36"
BFCL_EVAL_VERSION="${AGENTGAUGE_BFCL_EVAL_VERSION:-2026.3.23}"
EXTRAS="${AGENTGAUGE_EXTRAS:-dev,local,embeddings,stats}"

log() { printf '[setup] %s\n' "$*" >&2; }

if [ ! -x "$VENV/bin/python" ]; then
  log "creating virtual environment in $VENV"
  "$PYTHON" -m venv "$VENV"
fi
pip=("$VENV/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" install -q --upgrade pip >/dev/null

case ",$EXTRAS," in
  *,local,*)
    if ! "$VENV/bin/python" -c "import llama_cpp" >/dev/null 2>&1; then
      mkdir -p "$WHEELHOUSE"
      if ! ls "$WHEELHOUSE"/llama_cpp_python-"$LLAMA_VERSION"-*.whl >/dev/null 2>&1; then
        log "building llama-cpp-python $LLAMA_VERSION (portable CPU build, ~5 min, once)"
        CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" \
          "${pip[@]}" wheel -q --no-deps --no-cache-dir -w "$WHEELHOUSE" \
          "llama-cpp-python==$LLAMA_VERSION"
      fi
      log "installing llama-cpp-python from $WHEELHOUSE"
      "${pip[@]}" install -q --find-links "$WHEELHOUSE" "llama-cpp-python==$LLAMA_VERSION"
    fi
    ;;
esac

# the HTML report's browser tests drive the system Chromium through Playwright (Playwright's own
# browser download does not work on machines without general internet access)
case ",$EXTRAS," in
  *,dev,*)
    if ! command -v chromium >/dev/null 2>&1; then
      if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        log "installing Chromium for the browser tests (apt-get)"
        apt-get update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
      else
        log "no Chromium: the browser tests will skip (apt-get install chromium as root)"
      fi
    fi
    ;;
esac

log "installing agentgauge[$EXTRAS] (editable)"
"${pip[@]}" install -q --find-links "$WHEELHOUSE" -e ".[$EXTRAS]"

# BFCL's multi-turn back-ends (bfcl-eval, Apache-2.0; docs/bfcl.md): installed WITHOUT its
# dependencies. bfcl-eval pins numpy 1.26.4, faiss and ~30 more packages that the eight
# back-ends and the multi-turn checker never import; they need only mpmath. An extra cannot say
# --no-deps, so this is a step of its own (on for dev installs, or AGENTGAUGE_BFCL=1).
if [ "${AGENTGAUGE_BFCL:-}" = "1" ] || case ",$EXTRAS," in *,dev,*) true ;; *) false ;; esac; then
  log "installing BFCL's back-ends: bfcl-eval $BFCL_EVAL_VERSION --no-deps, mpmath"
  "${pip[@]}" install -q --no-deps "bfcl-eval==$BFCL_EVAL_VERSION" "mpmath>=1.3"
fi
log "ready: $VENV/bin/agentgauge"
