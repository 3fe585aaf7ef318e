"""Macaulay2 code shipped with m2bridge (installed as ``m2bridge.m2scripts``)."""
