"""Linear components of the critical locus read off the network's structure: the weights where one weight matrix is
zero (a layer's values or attention set to zero). Where J drops rank at a random point of such a linear space L, all
of L lies in the critical locus C (L is irreducible and the point generic on it, with probability one); L is then a
component of C exactly when no component of larger dimension contains it, which the cascade decides wherever every
larger dimension was verified complete. Its degree is 1 (a linear space), exactly.

These components matter where the cascade cannot see them: on L the rank equations often vanish to higher order (J
is quadratic in the values of a layer whose output enters the next layer cubically), so its points are singular
ends of every homotopy; once L is known, those ends are explained.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from m2bridge.results import Status
from m2bridge.witness.incidence import cnormal, numerical_rank
from m2bridge.witness.result import CriticalComponent

DROP = 1e-9  # sigma_r / sigma_1 below this: the rank dropped (as in .critical)
LOOSE = 1e-4  # a singular end within this (relative) of L lies on it


class LinearFound:
    """A linear component {theta : theta_idx = 0}: ``contains`` by its coordinates, ``component`` its record."""

    def __init__(self, name: str, idx: list[int], theta: np.ndarray, component: CriticalComponent):
        self.name, self.idx, self.theta, self.component = name, idx, theta, component

    def contains(self, theta: np.ndarray, loose: bool = False) -> bool:
        tol = LOOSE if loose else 1e-8
        return bool(np.abs(theta[self.idx]).max() < tol * max(1.0, float(np.abs(theta).max())))


def weight_blocks(weights: list[Any]) -> dict[str, list[int]]:
    """The weight matrices: symbol names up to the first underscore (A1_1_2 -> A1)."""
    blocks: dict[str, list[int]] = {}
    for j, s in enumerate(weights):
        blocks.setdefault(str(s).split("_")[0], []).append(j)
    return blocks


def zero_block_components(fmap: Any, r: int, rng: np.random.Generator, check: Any = None) -> list[LinearFound]:
    """Every weight matrix whose zero set lies in the critical locus (``check``: an independent map whose rank at a
    point is J's own), with the Jacobian's rank on it and the dimension of its image."""
    n, out = fmap.n, []
    for name, idx in weight_blocks(fmap.weights).items():
        if len(idx) >= n:
            continue
        theta = cnormal(rng, n)
        theta[idx] = 0
        J = (check or fmap).jacobian(theta)
        s = np.linalg.svd(J, compute_uv=False)
        other = cnormal(rng, n) * (np.linalg.norm(theta) / np.sqrt(n))  # J may vanish on L: its scale from elsewhere
        ref = max(float(s[0]) if len(s) else 0.0, float(np.linalg.norm((check or fmap).jacobian(other), 2)))
        if not (len(s) < r or s[r - 1] < DROP * ref):
            continue
        rho = numerical_rank(J, scale=ref)[0]
        free = [j for j in range(n) if j not in idx]
        image = numerical_rank(J[:, free], scale=ref)[0]
        comp = CriticalComponent(dimension=n - len(idx), degree=1, degree_status=Status.VERIFIED, jacobian_rank=rho,
                                 image_dimension=image, found_by=f"structure ({name} = 0)",
                                 degree_reason=f"a linear space: {name} = 0", witness=theta[None].copy())
        out.append(LinearFound(name, idx, theta, comp))
    return out
