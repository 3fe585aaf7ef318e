"""Moved to :mod:`m2bridge.network`; this path stays for one release."""

from m2bridge.network import *  # noqa: F401,F403
