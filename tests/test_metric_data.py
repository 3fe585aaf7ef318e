"""Data sets for the loss (m2bridge.metric.data): files that are refused."""

import numpy as np
import pytest

from m2bridge import LightningAttention
from m2bridge.metric.data import DataError, load_dataset


def test_bad_data_files_are_refused(tmp_path):
    arch = LightningAttention((2, 1), 2, 2)
    path = tmp_path / "d.npz"
    np.savez(path, X=np.zeros((4, 3, 2)), Y=np.zeros((4, 1, 2)))
    with pytest.raises(DataError, match=r"shape \(N, 2, 2\)"):
        load_dataset(arch, path)
    X = np.random.default_rng(0).standard_normal((4, 2, 2))
    Y = np.full((4, 1, 2), np.nan)
    np.savez(path, X=X, Y=Y)
    with pytest.raises(DataError, match="NaN"):
        load_dataset(arch, path)
    np.savez(path, inputs=X)
    with pytest.raises(DataError, match="arrays named X and Y"):
        load_dataset(arch, path)
