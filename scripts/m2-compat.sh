#!/usr/bin/env bash
# Compatibility run: the bridge and exact tests against a second Macaulay2, 1.26, the one bundled in
# the passagemath-macaulay2 wheel (sage_wheels/bin/M2 in its site-packages), installed in its own
# virtual environment .venv-m2-1.26 (ignored by git). The main suite runs against the system M2.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv-m2-1.26
if [ ! -x "$VENV/bin/python" ]; then
  echo "== creating $VENV"
  "$PY" -m venv "$VENV"
fi
M2_126=$("$VENV/bin/python" - <<'PY'
import sysconfig, pathlib
print(pathlib.Path(sysconfig.get_paths()["purelib"]) / "sage_wheels" / "bin" / "M2")
PY
)
if [ ! -x "$M2_126" ]; then
  echo "== installing passagemath-macaulay2 (Macaulay2 1.26) into $VENV"
  # the M2 binary in the wheel needs none of passagemath's Python dependencies
  "$VENV/bin/python" -m pip install -q --no-deps "passagemath-macaulay2>=10.6"
fi
echo "== Macaulay2 $("$M2_126" --version): bridge, exact, variant and example tests"
cd tests
M2BRIDGE_M2="$M2_126" M2BRIDGE_REQUIRE_M2=1 ../.venv/bin/python -m pytest -q -p no:cacheprovider \
  test_bridge.py test_exact.py test_variants.py test_examples.py
