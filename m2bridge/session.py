"""Moved to :mod:`m2bridge.bridge.session`; this path stays for one release."""

from m2bridge.bridge.session import *  # noqa: F401,F403
