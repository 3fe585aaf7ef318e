"""Solve, verify, track (m2bridge.homotopy.pipeline): no trace test starts once the search is out of time, and the
verdict says so."""

import numpy as np
import pytest

from test_homotopy_monodromy import quadric_cone_start


def test_no_trace_test_starts_once_the_search_is_out_of_time_and_the_verdict_says_so(monkeypatch):
    # fault injection: the first round of monodromy takes the whole second; the trace test is then not started (it
    # used to get a second more, the least any part got, and ran past the run's end) and the verdict is "out of time"
    # (nan), not "fails"; with time enough the same search is verified
    import time

    from m2bridge.homotopy import MonodromyOptions, pipeline

    system, start, u0 = quadric_cone_start()
    real = pipeline.monodromy

    def slow(*args, **kwargs):
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(pipeline, "monodromy", slow)
    monkeypatch.setattr(pipeline.GrowingTrace, "__call__", lambda *a, **k: pytest.fail("the time was up"))
    solved = pipeline.solve_and_track(system, start, u0, None, np.random.default_rng(4),
                                      MonodromyOptions(stall=1, seconds=1.0))
    assert not solved.trace.passed and np.isnan(solved.trace.deviation)
    monkeypatch.undo()
    solved = pipeline.solve_and_track(system, start, u0, None, np.random.default_rng(4),
                                      MonodromyOptions(stall=1, seconds=60.0))
    assert solved.trace.passed and len(solved.monodromy.points) == 6

