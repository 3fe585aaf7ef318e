"""Comparison grids: Dask clusters (a real LocalCluster), the process pool, Ctrl-C."""

import json
import signal
import subprocess
import sys
import time

import pytest

from m2bridge.compare import compute_row, grid, run_grid

METHODS = ("numeric", "formula", "exact")


def _strip(rows):
    return [{k: v for k, v in r.items() if k != "numeric_certificate"} for r in rows]


@pytest.fixture(scope="module")
def cluster():
    from dask.distributed import LocalCluster  # the "scale" extra, installed by make test

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as c:
        yield c


def test_dask_cluster_matches_local(m2, cluster, tmp_path):
    from dask.distributed import Client

    archs = grid("2,1", "1:2", "2")
    local = [compute_row(a, METHODS) for a in archs]
    assert all(r["exact"] is not None for r in local)  # exact rows really ran M2
    with Client(cluster) as client:
        remote = run_grid(archs, METHODS, use_cache=False, scheduler=client, progress=False)
        workers = client.run(lambda: __import__("os").getpid())
    assert _strip(remote) == _strip(local)
    assert len(set(workers.values())) == 2  # separate worker processes, each with its own M2


def test_cli_scheduler_address(m2, cluster, tmp_path):
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", "compare", "--dims", "2,2", "--ranks", "1:2",
                          "--tokens", "2", "--methods", "numeric,formula,exact", "--scheduler",
                          cluster.scheduler_address, "--json", "--cache-dir", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert [r["ranks"] for r in rows] == [[1], [2]]
    assert all(r["agree"] and r["exact"] == r["numeric"] for r in rows)


def test_ctrl_c_returns_partial_rows(tmp_path, sigint):
    # 81 deep architectures of about a second each; interrupt once the first rows are cached. preexec_fn: the CLI
    # hears Ctrl-C also where this run was started with SIGINT ignored (nohup, a background job), which it inherits
    proc = subprocess.Popen([sys.executable, "-m", "m2bridge.cli", "compare", "--dims", "12,12,12,12,12",
                             "--ranks", "4:6,4:6,4:6,4:6", "--tokens", "2", "--workers", "1", "--json",
                             "--cache-dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=sigint)
    deadline = time.time() + 120
    while not list(tmp_path.glob("*.json")) and time.time() < deadline:
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err  # the shell's code for Ctrl-C, with the finished rows
    data = json.loads(out)
    assert data["interrupted"] is True and 1 <= len(data["rows"]) < 81 and "interrupted" in err
    assert "Traceback" not in err  # workers leave Ctrl-C to the main process
