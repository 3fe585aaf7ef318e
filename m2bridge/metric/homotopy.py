"""Moved to :mod:`m2bridge.homotopy`; this path stays for one release."""

from m2bridge.homotopy import *  # noqa: F401,F403
