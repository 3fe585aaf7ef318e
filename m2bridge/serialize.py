"""Moved to :mod:`m2bridge.bridge.serialize`; this path stays for one release."""

from m2bridge.bridge.serialize import *  # noqa: F401,F403
