"""Bridge round trip, large-matrix transfer and start-up time (side by side with passagemath when installed)."""

import statistics
import time

import numpy as np

from m2bridge import Macaulay2


def main() -> None:
    t0 = time.perf_counter()
    m2 = Macaulay2()
    m2.eval("1")
    start = time.perf_counter() - t0
    times = []
    for _ in range(1000):
        t = time.perf_counter()
        m2.eval("1+1")
        times.append(time.perf_counter() - t)
    m2.eval("M = random(ZZ^200, ZZ^200, Height => 10^12);")
    t = time.perf_counter()
    mat = m2.to_python("M")
    matrix_s = time.perf_counter() - t
    print(f"{'measure':32s} {'m2bridge':>12s} {'passagemath':>12s}")
    other = {}
    try:  # the comparison, when passagemath-macaulay2 is installed in this environment
        from sage.interfaces.macaulay2 import Macaulay2 as SageM2  # type: ignore

        s = SageM2()
        s.eval("1+1")
        ts = []
        for _ in range(1000):
            t = time.perf_counter()
            s.eval("1+1")
            ts.append(time.perf_counter() - t)
        other = {"median": statistics.median(ts), "p99": float(np.percentile(ts, 99))}
        theirs = s.eval('version#"VERSION"')
        print(f"(passagemath drives its own M2 {theirs}; m2bridge drives {m2.executable} {m2.version})")
    except Exception as exc:  # noqa: BLE001
        print(f"(passagemath not available here: {type(exc).__name__}; install passagemath-macaulay2 in a venv)")
    print(f"{'1+1 median (ms)':32s} {statistics.median(times) * 1e3:12.3f} {other.get('median', float('nan')) * 1e3:12.3f}")
    print(f"{'1+1 p99 (ms)':32s} {np.percentile(times, 99) * 1e3:12.3f} {other.get('p99', float('nan')) * 1e3:12.3f}")
    print(f"{'200x200 ZZ matrix to Python (s)':32s} {matrix_s:12.3f}   shape {mat.shape}")
    print(f"{'start to first result (s)':32s} {start:12.3f}")
    m2.close()


if __name__ == "__main__":
    main()
