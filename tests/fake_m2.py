#!/usr/bin/env python3
"""A fake M2 for fault injection only: it speaks the bridge's start-up protocol, then misbehaves.

Modes (FAKE_M2_MODE): hang (ignores SIGINT and never answers), die (exits at the
first request), garbage (answers with an end marker but no begin marker).
"""
import os
import re
import signal
import sys
import time

mode = os.environ.get("FAKE_M2_MODE", "hang")
signal.signal(signal.SIGINT, signal.SIG_IGN)
nonce = ""
buf = b""
while True:
    chunk = os.read(0, 65536)
    if not chunk:
        sys.exit(0)
    buf += chunk
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        text = line.decode(errors="replace")
        m = re.search(r"m2bridge'init \"([0-9a-f]+)\"", text)
        if m:
            nonce = m.group(1)
        m = re.search(r"m2bridge'end (\d+);", text)
        if m and m.group(1) == "0":
            os.write(1, f"@{nonce}D0@\n".encode())
            continue
        if "m2bridge'run" in text:
            if mode == "hang":
                while True:
                    time.sleep(1)
            if mode == "die":
                sys.exit(3)
        if m and mode == "garbage":
            os.write(1, f"random noise @{nonce}D{m.group(1)}@\n".encode())
