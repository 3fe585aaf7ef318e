"""Write the digest of the compiled kernels' source files into each of them (``SOURCES``), after editing one: numba's
cache would otherwise keep the old compiled code of the functions that inline it (m2bridge.homotopy.kernels).
Usage (from the checkout's root): python scripts/stamp_kernels.py"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's files, not an installed copy

from m2bridge.homotopy.kernels import write_stamp  # noqa: E402

if __name__ == "__main__":
    print(write_stamp())
