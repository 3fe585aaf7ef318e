"""A --scheduler address where no Dask scheduler answers: one line on standard error, exit 2, within the connect
timeout (issue 71, item 7). Each test runs the real command and has a time limit."""

import http.server
import os
import socket
import socketserver
import subprocess
import sys
import threading
import time

import pytest

pytest.importorskip("distributed")

CONNECT = 3.0  # --connect-timeout
SLACK = 12.0  # the command's start-up (imports, the data of loss) on a loaded machine
COMMANDS = {
    "compare": ["compare", "--dims", "2,1", "--ranks", "1", "--tokens", "2", "--no-cache", "--json"],
    "loss": ["loss", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--runs", "0", "--json"],
    "implicit": ["implicit", "--dims", "2,1", "--ranks", "2", "--tokens", "2", "--max-degree", "4", "--json"],
}


def run_with_scheduler(command: str, address: str) -> tuple[subprocess.CompletedProcess, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([os.path.dirname(os.path.dirname(__file__)),
                                                        os.environ.get("PYTHONPATH", "")])}
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-m", "m2bridge.cli", *COMMANDS[command], "--scheduler", address,
                          "--connect-timeout", f"{CONNECT:g}"], capture_output=True, text=True, env=env,
                         timeout=CONNECT + SLACK + 60)
    return out, time.monotonic() - t0


def assert_one_line(out: subprocess.CompletedProcess, seconds: float, address: str) -> None:
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2, out.stderr[-3000:]
    assert len(lines) == 1 and lines[0].startswith("m2bridge: error: could not reach the Dask scheduler"), lines
    assert address in lines[0] and "--connect-timeout" in lines[0] and "Traceback" not in out.stderr
    assert out.stdout == ""
    assert seconds < CONNECT + SLACK, f"{seconds:.1f} s for a --connect-timeout of {CONNECT:g} s"


def _served(server: socketserver.TCPServer):
    """Serve in a daemon thread; yield the address as a Dask scheduler address; shut down afterwards."""
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def http_server():
    """A plain HTTP server on localhost (it waits for a request line that Dask never sends)."""
    yield from _served(http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler))


class _Garbage(socketserver.BaseRequestHandler):
    """Answers whatever it is sent with an HTTP error, as some proxies do (Dask read a frame length of exabytes)."""

    def handle(self) -> None:
        self.request.settimeout(5)
        try:
            self.request.recv(1024)
            self.request.sendall(b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")
        except OSError:
            pass


@pytest.fixture
def garbage_server():
    yield from _served(socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Garbage))


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_plain_http_server_is_one_line_within_the_connect_timeout(http_server, command):
    # before: Dask's handshake waited on the HTTP server with no time limit (over 100 s)
    out, seconds = run_with_scheduler(command, http_server)
    assert_one_line(out, seconds, http_server)


def test_a_server_answering_something_else_is_one_line(garbage_server):
    # before: a 50-line traceback ending in "Unable to allocate 3.07 EiB", exit 1
    out, seconds = run_with_scheduler("compare", garbage_server)
    assert_one_line(out, seconds, garbage_server)
    assert "something other than Dask answers there" in out.stderr


def test_an_unroutable_address_and_a_closed_port_are_one_line():
    # 10.255.255.1 has no route on most networks (the connection times out); where a proxy answers for it, it
    # answers something other than Dask: one line either way
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = f"tcp://127.0.0.1:{s.getsockname()[1]}"
    for address in ("tcp://10.255.255.1:8786", closed):
        out, seconds = run_with_scheduler("compare", address)
        assert_one_line(out, seconds, address)


def test_a_real_scheduler_still_connects():
    # the handshake check lets a scheduler through: a local cluster runs the grid's rows
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        from m2bridge.parallel import connect

        client = connect(cluster.scheduler_address, CONNECT)
        try:
            assert client.submit(lambda x: x + 1, 1).result(timeout=30) == 2
        finally:
            client.close()
