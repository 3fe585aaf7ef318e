import os
import shutil
import signal

import pytest

from m2bridge import Macaulay2


M2_CALL_LIMIT = 600  # seconds for one call in the shared session, where a test gives none


def m2_required() -> bool:
    return os.environ.get("M2BRIDGE_REQUIRE_M2") == "1" or os.environ.get("CI") == "true"


@pytest.fixture(scope="session")
def m2():
    if shutil.which(os.environ.get("M2BRIDGE_M2", "M2")) is None:
        if m2_required():
            pytest.fail("Macaulay2 is required for this test run (CI) but M2 is not on PATH")
        pytest.skip("Macaulay2 not installed")
    session = Macaulay2(timeout=M2_CALL_LIMIT)  # a call with no time limit of its own fails, never hangs
    yield session
    session.close()


def _default_sigint_in_child() -> None:
    """``preexec_fn``: the child starts with SIGINT's default disposition (an ignored signal stays ignored across exec,
    and Python installs its KeyboardInterrupt handler only where SIGINT was not ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def sigint():
    """For a test that needs Ctrl-C: SIGINT raises KeyboardInterrupt in this process during the test, as in a
    foreground shell, also where pytest was started with SIGINT ignored (``nohup make test &``, a background job,
    some CI runners); restored afterwards. Yields the ``preexec_fn`` that gives a subprocess the same: start children
    that are sent SIGINT with ``subprocess.Popen(..., preexec_fn=sigint)``."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield _default_sigint_in_child
    finally:
        # None: a handler that was not set from Python, which cannot be put back; SIG_DFL is the nearest
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)


@pytest.fixture
def ctrl_c_after_first_round(monkeypatch, sigint):
    """A real Ctrl-C (SIGINT to this process, heard whatever the suite's own disposition) after the first round of
    every monodromy that :func:`m2bridge.homotopy.pipeline.solve_and_track` runs; yields the points after each
    round, as they come."""
    from dataclasses import replace

    from m2bridge.homotopy import pipeline

    real_monodromy, rounds = pipeline.monodromy, []

    def interrupted(system, start, u0, rng, options):
        def on_loop(points: int, paths: int) -> None:
            rounds.append(points)
            if len(rounds) == 1:
                os.kill(os.getpid(), signal.SIGINT)
        return real_monodromy(system, start, u0, rng, replace(options, on_loop=on_loop))

    monkeypatch.setattr(pipeline, "monodromy", interrupted)
    yield rounds
