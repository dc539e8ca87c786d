"""Fixtures for testing `sextant mcp` with the official MCP Python SDK as the client."""

import contextlib
import json
import os
import re
import subprocess
import time
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

REPO = Path(__file__).resolve().parents[2]
SEXTANT = os.environ.get("SEXTANT_BIN", str(REPO / "target" / "debug" / "sextant"))


@pytest.fixture
def anyio_backend():
    return "asyncio"


def write(root: Path, rel: str, text: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(root, "app/models.py", "class User:\n    def full_name(self):\n        return ''\n\n\ndef load_user(uid):\n    pass\n")
    write(root, "src/lib.rs", "pub struct Config {\n    pub name: String,\n}\n\npub fn load_config() -> Config {\n    todo!()\n}\n")
    write(root, "web/page.ts", "export interface Page {\n  title: string;\n}\n\nexport function renderPage(p: Page): string {\n  return p.title;\n}\n")
    write(root, "cmd/main.go", "package main\n\nfunc main() {}\n")
    write(root, "README.txt", "not source\n")
    write(root, "big.py", "x = 1\n" * 2000)
    write(root, "sextant.toml", "max_file_size = 10000\n")
    return root


@contextlib.asynccontextmanager
async def stdio_session(root: Path, *args: str, env: dict | None = None):
    params = StdioServerParameters(command=SEXTANT, args=["mcp", "--root", str(root), *args], env=env)
    with open(os.environ.get("ERRLOG", os.devnull), "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write_stream):
            async with ClientSession(read, write_stream) as session:
                await session.initialize()
                yield session


class HttpServer:
    def __init__(self, process: subprocess.Popen, url: str):
        self.process = process
        self.url = url


@contextlib.contextmanager
def http_server(root: Path, *args: str, env: dict | None = None, host: str = "127.0.0.1", preexec_fn=None):
    """`sextant mcp --http HOST:0`; the port comes from its first stderr line."""
    process = subprocess.Popen(
        [SEXTANT, "mcp", "--root", str(root), "--http", f"{host}:0", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
        preexec_fn=preexec_fn,
    )
    try:
        line = process.stderr.readline()
        match = re.search(r"(http://\S+/mcp)", line)
        assert match, f"no URL announced: {line!r}"
        yield HttpServer(process, match.group(1))
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextlib.asynccontextmanager
async def http_session(url: str, headers: dict | None = None):
    import httpx2

    async with httpx2.AsyncClient(headers=headers or {}, timeout=30) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            read, write_stream = streams[0], streams[1]
            async with ClientSession(read, write_stream) as session:
                await session.initialize()
                yield session


def tool_error(result) -> dict:
    """A tool failure's `{code, message}`: `isError` set, the JSON as the one text content, and
    no structured content (which clients would check against the tool's output schema)."""
    assert result.is_error, result
    assert result.structured_content is None, result
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return json.loads(result.content[0].text)


async def wait_until_indexed(session) -> dict:
    """The first index runs in the background (and a debug build on a busy machine can take
    seconds): poll `workspace_status` until it says ready, and return that status."""
    import anyio

    for _ in range(100):
        status = await session.call_tool("workspace_status", {})
        # Under a short time limit the status call itself may time out while indexing.
        if not status.is_error and status.structured_content["ready"]:
            return status.structured_content
        await anyio.sleep(0.2)
    raise AssertionError("the workspace was never indexed")


async def wait_until_checked(session, after_revision: int = -1) -> dict:
    """After indexing, the server checks every file in the background (and again after each
    change): poll `workspace_status` until it says a revision newer than `after_revision`
    is checked, and return that status."""
    import anyio

    for _ in range(300):
        status = await session.call_tool("workspace_status", {})
        content = status.structured_content
        if not status.is_error and content["checked"] and content["revision"] > after_revision:
            return content
        await anyio.sleep(0.1)
    raise AssertionError("the background check never caught up")


def wait_until(check, timeout=10.0):
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}


class RawStdio:
    """`sextant mcp` on stdio driven with raw bytes: one line out per answer."""

    def __init__(self, root: Path, *args: str):
        import queue
        import threading

        self.process = subprocess.Popen(
            [SEXTANT, "mcp", "--root", str(root), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.lines: queue.Queue = queue.Queue()
        self.stderr = b""

        def pump():
            for line in self.process.stdout:
                self.lines.put(line)
            self.lines.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def send(self, data: bytes | dict):
        if isinstance(data, dict):
            import json

            data = json.dumps(data).encode() + b"\n"
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def recv(self, timeout: float = 20.0) -> dict:
        """The next answer; raises on a hang (a generous deadline, not a timing check)."""
        import json
        import queue

        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError("no answer from the server") from None
        assert line is not None, "stdout closed"
        return json.loads(line)

    def initialize(self):
        self.send(INITIALIZE)
        assert self.recv()["result"]["serverInfo"]["name"] == "sextant"
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self, timeout: float = 30.0) -> int:
        """Closes stdin and returns the exit code; the stderr text is kept in `self.stderr`."""
        self.process.stdin.close()
        code = self.process.wait(timeout=timeout)
        self.stderr = self.process.stderr.read()
        return code

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def raw_stdio(root: Path, *args: str):
    raw = RawStdio(root, *args)
    try:
        yield raw
    finally:
        raw.kill()


def ended(pid: int, timeout: float = 5) -> bool:
    """Whether the process has ended (gone, or a zombie) within `timeout`."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(") ", 1)[1].startswith("Z"):
                    return True
        except FileNotFoundError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
