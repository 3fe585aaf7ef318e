"""The run context (m2bridge.run_context): blocks nest and restore, the regions and workers of a run set it, a
thread started elsewhere starts from the defaults."""

from __future__ import annotations

import threading

from m2bridge import run_context
from m2bridge.deadline import CTRL_C, past, request_stop, stop_reason, stoppable
from m2bridge.homotopy import compiled, tracker


def test_blocks_nest_and_put_the_context_before_back():
    assert run_context.current() == run_context.RunContext()
    with run_context.using(extended=False):
        assert not run_context.current().extended
        with run_context.using(extended=True, reference=True):
            assert run_context.current().extended and run_context.current().reference
        assert not run_context.current().extended and not run_context.current().reference
    assert run_context.current().extended


def test_threads_workers_and_the_reference_tracker_are_the_run_contexts():
    with compiled.threads(1):
        assert run_context.current().threads == 1
    with tracker.tracking_workers(2):
        assert tracker.current_workers() == 2 == run_context.current().workers.count
    assert tracker.current_workers() == 1 and run_context.current().workers is None
    with tracker.reference_tracker():
        assert run_context.current().reference
    assert not run_context.current().reference


def test_a_stop_holds_in_every_region_of_the_run_and_ends_with_the_outermost():
    with stoppable() as outer:
        with stoppable() as inner:
            assert run_context.current().stopping.regions == [outer, inner]
            request_stop(CTRL_C)
            assert past(None) and stop_reason() == CTRL_C
        assert inner.reason == CTRL_C and past(None)
    assert outer.reason == CTRL_C
    assert run_context.current().stopping is None and not past(None)


def test_a_thread_started_inside_a_region_starts_from_the_defaults():
    seen = []
    with stoppable(), run_context.using(extended=False):
        request_stop(CTRL_C)
        thread = threading.Thread(target=lambda: seen.append((run_context.current(), past(None))))
        thread.start()
        thread.join()
    assert seen == [(run_context.RunContext(), False)]
