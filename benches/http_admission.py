#!/usr/bin/env python3
"""How long a client with the bearer token waits for an answer from `sextant mcp --http`
while other local connections hold partial request heads.

    python3 benches/http_admission.py --sextant target/debug/sextant [--held 200] [--rounds 3]

Starts the server with a token and the default connection limits, opens `--held` connections
that each send the start of a request head and then nothing, and times an `initialize` sent
with the token on a new connection, from connecting to the status line. Each round opens a
fresh set of held connections; the client waits up to 120 s.
"""

import argparse
import http.client
import json
import os
import re
import resource
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

TOKEN = "bench-token"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}},
}
HEADERS = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "Authorization": f"Bearer {TOKEN}",
}


def start(sextant: str, root: Path) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(
        [sextant, "mcp", "--root", str(root), "--http", "127.0.0.1:0", "--token-env", "BENCH_TOKEN"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "BENCH_TOKEN": TOKEN},
    )
    match = re.search(r"http://127\.0\.0\.1:(\d+)/mcp", process.stderr.readline())
    if not match:
        process.kill()
        raise SystemExit("the server announced no URL")
    return process, int(match.group(1))


def held(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applic")
    return sock


def wait_for_answer(port: int) -> float:
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("POST", "/mcp", body=json.dumps(INITIALIZE), headers=HEADERS)
    status = conn.getresponse().status
    elapsed = time.monotonic() - started
    conn.close()
    if status != 200:
        raise SystemExit(f"initialize answered {status}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sextant", required=True)
    parser.add_argument("--held", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, args.held + 256)), hard))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "lib.py").write_text("def f():\n    return 1\n")
        process, port = start(args.sextant, root)
        try:
            alone = wait_for_answer(port)
            waits = []
            for _ in range(args.rounds):
                socks = [held(port) for _ in range(args.held)]
                try:
                    waits.append(wait_for_answer(port))
                except (TimeoutError, OSError) as e:
                    waits.append(float("inf"))
                    print(f"  no answer: {e}")
                finally:
                    for sock in socks:
                        sock.close()
                time.sleep(0.5)
        finally:
            process.terminate()
            process.wait(timeout=30)
    print(f"alone: {alone * 1000:.1f} ms")
    print(
        f"with {args.held} held partial requests: median {statistics.median(waits) * 1000:.1f} ms, "
        f"max {max(waits) * 1000:.1f} ms over {len(waits)} rounds"
    )


if __name__ == "__main__":
    main()
