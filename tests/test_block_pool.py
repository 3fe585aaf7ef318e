"""The degree-by-degree engine on worker processes and on a Dask cluster gives the serial engine's results."""

import pytest

from m2bridge import LightningAttention
from m2bridge.exact import blocks
from m2bridge.exact.truncated import truncated_ideal


@pytest.fixture
def every_degree_parallel(monkeypatch):
    monkeypatch.setattr(blocks, "PARALLEL_MIN_BLOCKS", 1)  # small problems too, so that the workers really run


def _same(a, b) -> None:
    assert a.hilbert_function == b.hilbert_function and a.ideal_dimensions == b.ideal_dimensions
    assert a.generator_degrees == b.generator_degrees and a.generators == b.generators


def test_worker_processes_give_the_serial_results(every_degree_parallel, tmp_path):
    arch = LightningAttention((2, 2), 2, 2)
    serial = truncated_ideal(arch, 4, generators=True)
    parallel = truncated_ideal(arch, 4, generators=True, workers=2)
    _same(serial, parallel)
    assert any("2 local worker processes" in n for n in parallel.notes)
    assert any("peak memory" in n for n in serial.notes) and any("peak memory" in n for n in parallel.notes)
    # the generator files are the same, byte for byte
    assert (serial.write_generators(tmp_path / "a.m2").read_text()
            == parallel.write_generators(tmp_path / "b.m2").read_text())
    # counts alone (no generators kept) and a field mod p, through the workers too
    _same(truncated_ideal(arch, 4, field="ZZ/32003"), truncated_ideal(arch, 4, field="ZZ/32003", workers=2))


def test_a_dask_cluster_gives_the_local_results(every_degree_parallel):
    from dask.distributed import Client, LocalCluster

    arch = LightningAttention((3, 1), 3, 2)
    local = truncated_ideal(arch, 4, generators=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        remote = truncated_ideal(arch, 4, generators=True, scheduler=client)
    _same(local, remote)
    assert any("a Dask cluster" in n for n in remote.notes)


def test_the_hilbert_function_of_a_hypersurface_through_the_workers(every_degree_parallel):
    # the (2,1) layer's closure is a quartic hypersurface in 6 coordinates (paper Thm. 3.4), so its Hilbert function
    # is binomial(k + 5, 5) - binomial(k + 1, 5), a closed formula
    from math import comb

    res = truncated_ideal(LightningAttention((2, 1), 2, 2), 6, workers=2)
    assert res.hilbert_function == [comb(k + 5, 5) - comb(k + 1, 5) for k in range(7)]
    assert res.generator_degrees == {4: 1}


def test_blocks_proved_from_values_at_random_points_give_the_expanded_results(monkeypatch, every_degree_parallel):
    # the values path (a block whose monomials' values at random points have full rank holds no equation) must give
    # the same ideal, counts and generators as the symbolic pull-back of every block, and skip expansions
    from math import comb

    expanded = []
    plain_kernel = blocks.block_kernel
    monkeypatch.setattr(blocks, "block_kernel", lambda *a: expanded.append(1) or plain_kernel(*a))
    hyper = LightningAttention((2, 1), 2, 2)
    fast = truncated_ideal(hyper, 7, generators=True, evaluation=True)
    n_fast, expanded[:] = len(expanded), []
    slow = truncated_ideal(hyper, 7, generators=True, evaluation=False)
    _same(fast, slow)
    assert fast.hilbert_function == [comb(k + 5, 5) - comb(k + 1, 5) for k in range(8)]  # a quartic hypersurface
    assert n_fast < len(expanded) and any("random points" in n for n in fast.notes)
    for arch, k, field in ((LightningAttention((3, 1), 3, 2), 5, "QQ"), (LightningAttention((3, 1), 3, 2), 5, "ZZ/32003"),
                           (LightningAttention((2, 2, 1), (2, 2), 2), 2, "QQ")):
        _same(truncated_ideal(arch, k, generators=True, field=field, evaluation=True),
              truncated_ideal(arch, k, generators=True, field=field, evaluation=False))
    deep = LightningAttention((2, 1, 1), (2, 1), 2)  # the values path through the workers
    _same(truncated_ideal(deep, 3, generators=True, workers=2, evaluation=True),
          truncated_ideal(deep, 3, generators=True, evaluation=False))
    assert any("random points" in n for n in truncated_ideal(LightningAttention((2, 2, 1), (2, 2), 2), 1).notes)
