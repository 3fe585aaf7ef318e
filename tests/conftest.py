import os
import shutil

import pytest

from m2bridge import Macaulay2


def m2_required() -> bool:
    return os.environ.get("M2BRIDGE_REQUIRE_M2") == "1" or os.environ.get("CI") == "true"


@pytest.fixture(scope="session")
def m2():
    if shutil.which(os.environ.get("M2BRIDGE_M2", "M2")) is None:
        if m2_required():
            pytest.fail("Macaulay2 is required for this test run (CI) but M2 is not on PATH")
        pytest.skip("Macaulay2 not installed")
    session = Macaulay2()
    yield session
    session.close()
