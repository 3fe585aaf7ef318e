"""Stopping a numeric search and keeping what it found: Ctrl-C and the run's time limit inside
:func:`m2bridge.deadline.stoppable` (no Macaulay2 needed)."""

import os
import signal
import time

import numpy as np
import pytest

from m2bridge.deadline import CTRL_C, Budget, Deadline, Stop, past, request_stop, stoppable
from m2bridge.errors import RunTimeout


def _wait_for(condition, seconds: float = 5.0) -> bool:
    """Polls ``condition`` for up to ``seconds`` (a signal handler runs between bytecodes)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_the_first_ctrl_c_stops_the_search_and_the_second_aborts(sigint):
    with pytest.raises(KeyboardInterrupt):
        with stoppable() as stop:
            os.kill(os.getpid(), signal.SIGINT)
            assert _wait_for(lambda: past(None)), "the first Ctrl-C raised or went unheard"
            budget = Budget(100.0)
            assert budget.left() == 0 and budget.expired and budget.share(0.5) == 1.0
            os.kill(os.getpid(), signal.SIGINT)
            _wait_for(lambda: False, 5.0)  # the second raises here
    assert stop.reason == CTRL_C
    assert not past(None) and Budget(100.0).left() > 99  # the stop ends with its region: the session goes on
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the disposition put back


def test_the_runs_time_limit_inside_a_search_stops_it_instead_of_raising():
    with Deadline(0.2):
        with stoppable() as stop:
            assert _wait_for(lambda: past(None)), "the time limit was not heard"
    assert stop.reason is not None and "time limit" in stop.reason
    with pytest.raises(RunTimeout):  # outside a search the run's time limit raises, as before
        with Deadline(0.2):
            _wait_for(lambda: False, 5.0)


def test_a_search_started_with_sigint_ignored_leaves_it_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with stoppable():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_monodromy_stopped_after_its_first_round_returns_the_points_it_found():
    # the quadric cone of the monodromy tests (6 critical points): asked to stop after the first round, monodromy
    # returns its points so far, no error, and its later rounds never run; the paths tracked after the stop are
    # not started (failed, where they began)
    from m2bridge import homotopy

    from test_homotopy_monodromy import quadric_cone_start as _quadric_cone_start

    system, start, u0 = _quadric_cone_start()
    full = homotopy.monodromy(system, start, u0, np.random.default_rng(1), stall=10)
    rounds = []

    def stop_after_first(points: int, paths: int) -> None:
        rounds.append(points)
        request_stop(CTRL_C)

    with stoppable() as stop:
        cut = homotopy.monodromy(system, start, u0, np.random.default_rng(1), stall=10, on_loop=stop_after_first)
        X, ok = homotopy.track(system, cut.points, u0, u0 + 1, max_steps=100)
        assert not ok.any() and np.array_equal(X, cut.points)
    assert stop.reason == CTRL_C and len(rounds) == 1 and cut.paths < full.paths
    assert 0 < len(cut.points) <= len(full.points) == 6


def test_a_form_homotopy_stopped_in_its_end_game_certifies_nothing(monkeypatch):
    # the generic form's 6 critical points on the rank-one 2 x 2 matrices carried to the Frobenius form (2 points,
    # Eckart-Young; test_homotopy_endgame), a stop asked as the end game starts: its paths are not started and come back
    # failed, which must count as lost (ends unknown), not as paths that went to infinity; the same carry without a
    # stop is complete (4 paths to infinity)
    from m2bridge.homotopy import endgame

    from test_homotopy_endgame import quadric_cone_forms as _quadric_cone_forms

    generic, frobenius, points, u0, rng = _quadric_cone_forms()
    u = rng.standard_normal(4)
    whole = endgame.form_homotopy(generic, frobenius, points, u0, u, np.random.default_rng(5))
    assert whole.complete and len(whole.points) == 2 and whole.ended_elsewhere == 4
    real_track = endgame.tracker.track

    def stop_at_the_end_game(H, X0, ua, ub, *args, **kwargs):
        if np.allclose(ua, 0.99):  # s = 1 - end_game: the end game's segment
            request_stop(CTRL_C)
        return real_track(H, X0, ua, ub, *args, **kwargs)

    monkeypatch.setattr(endgame.tracker, "track", stop_at_the_end_game)
    with stoppable():
        cut = endgame.form_homotopy(generic, frobenius, points, u0, u, np.random.default_rng(5))
    assert not cut.complete and cut.ended_elsewhere == 0 and cut.lost == 6 - len(cut.points)


def test_a_stopped_run_stays_stopped_and_an_inactive_region_raises_as_before():
    request_stop(CTRL_C)  # outside every region: nothing to stop, and nothing left set
    assert not past(None)
    stop = Stop(reason=CTRL_C)  # a run stopped in an earlier region: its later searches return at once
    with stoppable(stop):
        assert past(None)
    assert not past(None) and stop.reason == CTRL_C
    with pytest.raises(RunTimeout):  # a caller that needs every part: the time limit raises inside the search too
        with Deadline(0.2):
            with stoppable(Stop(active=False)):
                _wait_for(lambda: False, 5.0)
