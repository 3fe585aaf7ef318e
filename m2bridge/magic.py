"""Moved to :mod:`m2bridge.bridge.magic`; this path stays for one release."""

from m2bridge.bridge.magic import *  # noqa: F401,F403
