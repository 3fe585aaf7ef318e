"""The quadric-cone helpers under the names tests/test_deadline.py imports from here; the tests of m2bridge.homotopy
are in tests/test_homotopy_<module>.py (this module goes once test_deadline imports them from there)."""

from test_homotopy_endgame import quadric_cone_forms as _quadric_cone_forms
from test_homotopy_monodromy import quadric_cone_start as _quadric_cone_start

__all__ = ["_quadric_cone_forms", "_quadric_cone_start"]
