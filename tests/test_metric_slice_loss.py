"""The loss on the paper's Figure 1 slice (m2bridge.metric.slice_loss): its critical points and training there."""

import numpy as np


def test_training_on_the_figure1_slice(m2):
    # the slice's surface: the count over two primes equals the number of complex points from the ideal over QQ;
    # every real critical point with real weights is reproduced by them, and every gradient descent run that ends
    # at a critical point ends at a local minimum (never at a saddle, from random starts)
    import matplotlib

    matplotlib.use("Agg")
    from m2bridge.metric.slice_loss import _point, slice_loss, slice_loss_figure

    result = slice_loss((0.3, 2.0, 2.0), runs=8, seed=0, m2=m2)
    assert result.count.value == result.complex_points and result.count.certificate.startswith("exact")
    assert any(result.kind(p) == "minimum" for p in result.points)
    for p in result.points:
        if p.weights is not None:
            assert np.allclose(_point(np.array(p.weights), 1.0, 1.0), p.point.real, atol=1e-8)
    reached = [result.points[k] for k in result.ends if k is not None]
    assert reached and all(result.kind(p) == "minimum" for p in reached)
    assert len(slice_loss_figure(result, grid=24).axes) == 3
