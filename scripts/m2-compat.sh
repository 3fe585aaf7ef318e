#!/usr/bin/env bash
# Compatibility run: the bridge, exact, variant and example tests against a second Macaulay2
# (1.25 or 1.26, whichever runs on this CPU). The main suite runs against the system M2.
#
# The second Macaulay2 comes from the passagemath-macaulay2 wheel (sage_wheels/bin/M2), installed with
# `pip --target` into .m2-compat/VERSION (ignored by git). Versions are pinned and tried in order:
#   10.8.13  Macaulay2 1.26 -- its M2 binary is built for AVX-512 and dies with SIGILL on other CPUs
#   10.6.48  Macaulay2 1.25 -- built for x86-64-v3 (AVX2, FMA, BMI2); its libflint also needs ADX
#            (Broadwell, Zen or later), which the probe's big-integer factorization exercises
# Each candidate must pass `M2 --version` and a small computation (python -m m2bridge.m2probe)
# before any test runs; the first that does is used, and the script says which and why.
# If none runs, the run fails with one line. Nothing is skipped silently.
#
# M2BRIDGE_COMPAT_CANDIDATES overrides the list: wheel versions and/or paths to M2 executables
# (a word containing '/'), e.g. "/tmp/broken-M2 10.6.48".
# --choose-only: choose and print the Macaulay2, run no test.
set -euo pipefail
cd "$(dirname "$0")/.."
PINNED="10.8.13 10.6.48"
CANDIDATES=${M2BRIDGE_COMPAT_CANDIDATES:-$PINNED}
CHOOSE_ONLY=0
if [ "${1:-}" = "--choose-only" ]; then CHOOSE_ONLY=1; fi
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "m2-compat: $PY is missing: run 'make setup' first" >&2
  exit 1
fi

chosen=""
tried=()
for cand in $CANDIDATES; do
  if [[ "$cand" == */* ]]; then
    binary=$cand
    label=$cand
  else
    dir=.m2-compat/$cand
    binary=$dir/sage_wheels/bin/M2
    label="passagemath-macaulay2 $cand"
    if [ ! -x "$binary" ]; then
      echo "== installing $label into $dir"
      # the M2 binary in the wheel needs none of passagemath's Python dependencies
      if ! "$PY" -m pip install -q --no-deps --target "$dir" "passagemath-macaulay2==$cand"; then
        echo "== $label: could not be installed; trying the next candidate"
        tried+=("$label (not installable)")
        continue
      fi
    fi
    # the wheels lack share/doc/Macaulay2/COPYING-GPL-2 and -3, which Macaulay2Doc reads (1.25) when a
    # package's documentation is built (installPackage): supply the same license texts from Debian
    doc=$dir/sage_wheels/share/doc/Macaulay2
    for v in 2 3; do
      if [ ! -f "$doc/COPYING-GPL-$v" ] && [ -f "/usr/share/common-licenses/GPL-$v" ]; then
        mkdir -p "$doc" && cp "/usr/share/common-licenses/GPL-$v" "$doc/COPYING-GPL-$v"
      fi
    done
  fi
  if verdict=$("$PY" -m m2bridge.bridge.probe "$binary"); then
    chosen=$binary
    echo "== second Macaulay2: $label -- $verdict"
    if [ ${#tried[@]} -gt 0 ]; then
      echo "   (chosen because the earlier candidates cannot run here: ${tried[*]})"
    fi
    break
  fi
  echo "== $label: $verdict; trying the next candidate"
  tried+=("$label")
done

if [ -z "$chosen" ]; then
  echo "m2-compat: FAILED: no second Macaulay2 runs on this CPU (tried: ${tried[*]:-nothing}); see the lines above" >&2
  exit 1
fi
if [ "$CHOOSE_ONLY" = 1 ]; then
  echo "$chosen"
  exit 0
fi
chosen=$(cd "$(dirname "$chosen")" && pwd)/$(basename "$chosen")
cd tests
M2BRIDGE_M2="$chosen" M2BRIDGE_REQUIRE_M2=1 ../.venv/bin/python -m pytest -q -p no:cacheprovider -n 2 \
  test_bridge.py test_exact.py test_variants.py test_examples.py test_compat.py
