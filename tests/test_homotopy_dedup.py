"""Distinct and nonsingular solutions (m2bridge.homotopy.dedup): the condition test far out, new_points against its
definition, meeting, and the pairs double precision cannot decide."""

import numpy as np


def test_a_simple_root_far_out_is_nonsingular_and_a_double_root_is_not():
    # (x1^3 - R^3, x2 - x1) has the simple root (R, R) (Jacobian determinant 3 R^2); at R = 1e5 its unscaled
    # condition is about 3e10, past the threshold; scaled to the point, about 2.6. (x1^2 - e^2, x2) at e = 1e-12 has
    # two roots 2e-12 apart: a near double root, singular at this threshold scaled or not (its short row is not
    # scaled up)
    from m2bridge.homotopy.dedup import nonsingular

    class Cubic:
        def jacobian(self, X, U):
            J = np.zeros((len(X), 2, 2), dtype=complex)
            J[:, 0, 0], J[:, 1, 0], J[:, 1, 1] = 3 * X[:, 0] ** 2, -1, 1
            return J

    class Double:
        def jacobian(self, X, U):
            J = np.zeros((len(X), 2, 2), dtype=complex)
            J[:, 0, 0], J[:, 1, 1] = 2 * X[:, 0], 1
            return J

    far = np.array([[1e5, 1e5]], dtype=complex)
    assert np.linalg.cond(Cubic().jacobian(far, None)[0]) > 1e10
    assert nonsingular(Cubic(), far, np.zeros(1)).all()
    assert not nonsingular(Double(), np.array([[1e-12, 0]], dtype=complex), np.zeros(1)).any()


def test_new_points_drops_exactly_the_near_repeats():
    # the k-d tree lookup against the definition: a candidate is dropped when within tol * max(1, |c|_inf) (max norm
    # of the complex entries) of a known point or of an earlier kept candidate
    from m2bridge.homotopy.dedup import new_points

    def by_definition(known, candidates, tol=1e-6):
        out = []
        for c in candidates:
            ref = np.vstack([known] + [np.array(out).reshape(-1, c.size)])
            if not len(ref) or np.abs(ref - c).max(axis=1).min() > tol * max(1.0, np.abs(c).max()):
                out.append(c)
        return np.array(out).reshape(-1, candidates.shape[1])

    rng = np.random.default_rng(0)
    base = (rng.standard_normal((400, 3)) + 1j * rng.standard_normal((400, 3))) * rng.choice([0.1, 1, 100], (400, 1))
    # repeats closer than tol, farther than tol, and near the boundary of the ball in one complex entry (no two near
    # repeats of one point, which could be farther than tol from each other: then both are kept, by definition)
    nudge = np.zeros(3, dtype=complex)
    nudge[1] = 0.9e-6 * (1 + 1j) / np.sqrt(2)
    apart = np.zeros((80, 3), dtype=complex)
    apart[:, 0] = 1e-5 * np.maximum(1.0, np.abs(base[:80]).max(axis=1))
    # 1.2 tol along (1 + i) / sqrt 2: inside the k-d tree's ball of real and imaginary parts, outside the complex one
    outside = np.zeros((50, 3), dtype=complex)
    outside[:, 2] = 1.2e-6 * np.maximum(1.0, np.abs(base[350:]).max(axis=1)) * (1 + 1j) / np.sqrt(2)
    chain = np.array([[5, 5, 5], [5 + 4e-6, 5, 5], [5 + 8e-6, 5, 5]], dtype=complex)  # gaps 0.8 tol (tol x 5)
    candidates = np.vstack([base[100:], base[200:300] * (1 + 3e-7), base[:80] + apart, base[300:] + nudge,
                            base[350:] + outside])
    candidates = np.vstack([candidates[rng.permutation(len(candidates))], chain])
    for known in (base[:150], np.zeros((0, 3))):
        kept = new_points(known, candidates)
        assert np.array_equal(kept, by_definition(known, candidates))
        # the chain keeps its ends (1.6 tol apart), drops its middle: compared with kept candidates only
        assert len(kept) == (250 if len(known) else 300) + 80 + 50 + 2


def test_meeting_marks_the_points_that_new_points_would_merge():
    from m2bridge.homotopy.dedup import meeting, new_points

    rng = np.random.default_rng(1)
    base = rng.standard_normal((200, 3)) + 1j * rng.standard_normal((200, 3))
    points = np.vstack([base, base[:20] + 1e-9, base[20:30] + 1e-4])
    near = meeting(points)
    assert near.sum() == 40 and near[:20].all() and near[200:220].all() and not near[20:200].any()
    assert len(new_points(np.zeros((0, 3)), points)) == len(points) - 20
    noisy = meeting(points, noise=np.full(len(points), 1e-6))  # within 1000 noise (1e-3): 1e-4 apart is one point
    assert noisy.sum() == 60


def test_pairs_double_precision_cannot_decide_are_asked_of_more_bits_and_copies_are_not():
    # a candidate 100 noises from a known point (inside the merge radius of 1000 noises): without ``same`` one point,
    # with it what ``same`` says; a copy within COPY noises is one point whatever ``same`` says
    from m2bridge.homotopy.dedup import COPY, NOISE, new_points

    known = np.array([[1e6 + 2j, 3e5 - 1j]])
    noise = 1e-3
    far = known + 100 * noise
    near = known + 0.5 * COPY * noise
    asked = []

    def distinct(a, b):
        asked.append((a, b))
        return False

    assert 100 < NOISE and len(new_points(known, far, noise=[noise])) == 0
    assert len(new_points(known, far, noise=[noise], same=distinct)) == 1 and len(asked) == 1
    assert len(new_points(known, near, noise=[noise], same=distinct)) == 0 and len(asked) == 1
    assert len(new_points(known, far, noise=[noise], same=lambda a, b: True)) == 0
    # between candidates the same rule
    assert len(new_points(np.zeros((0, 2)), np.vstack([known, far]), noise=[noise, noise], same=distinct)) == 2

