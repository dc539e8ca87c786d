"""`sextant lsp` driven by pytest-lsp (a real LSP client built on pygls)."""

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]
SEXTANT = os.environ.get("SEXTANT_BIN", str(REPO / "target" / "debug" / "sextant"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[SEXTANT, "lsp"]))
async def client(lsp_client: LanguageClient):
    yield lsp_client
    if lsp_client.capabilities is None and lsp_client.error is None:
        # The test ended before `initialize` (it failed early): `shutdown_session` would
        # send nothing, and pytest-lsp would wait for a server still reading its stdin.
        lsp_client.exit(None)
    else:
        await lsp_client.shutdown_session()


async def start(client: LanguageClient, root: Path, *, utf8: bool = False, progress: bool = False):
    capabilities = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16]
            if utf8
            else [types.PositionEncodingKind.Utf16]
        ),
        window=types.WindowClientCapabilities(work_done_progress=progress),
    )
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )


def open_doc(client: LanguageClient, path: Path, text: str, language: str, version: int = 1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id=language, version=version, text=text)
        )
    )


async def wait_diagnostics(client, uri: str, predicate, timeout=10.0):
    """The diagnostics published for `uri` once they satisfy `predicate`, waiting for more
    notifications until `timeout` (a generous deadline, not a timing check)."""
    import asyncio

    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        if uri in client.diagnostics and predicate(client.diagnostics[uri]):
            return client.diagnostics[uri]
        remaining = deadline - asyncio.get_running_loop().time()
        assert remaining > 0, f"diagnostics for {uri}: {client.diagnostics.get(uri)}"
        try:
            await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), remaining)
        except asyncio.TimeoutError:
            pass


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


class RawLsp:
    """`sextant lsp` fed raw bytes on stdin, for faults no well-behaved client can make.

    Messages from the server are parsed off stdout by a thread; `wait` reaps the process
    and reports its exit code and peak resident memory."""

    def __init__(self, *args: str, cwd: Path | None = None, env: dict[str, str] | None = None):
        self.proc = subprocess.Popen(
            [SEXTANT, "lsp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**os.environ, **(env or {})},
        )
        self.messages: queue.Queue = queue.Queue()
        self.stderr_chunks: list[bytes] = []
        threading.Thread(target=self._read_messages, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read_messages(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line == b"\r\n":
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self.messages.put(json.loads(out.read(length)))

    def _read_stderr(self):
        # read1: whatever is there now, so that tests can wait for a line while the server runs.
        for chunk in iter(lambda: self.proc.stderr.read1(4096), b""):
            self.stderr_chunks.append(chunk)

    def wait_for_stderr(self, text: str, timeout: float = 60) -> str:
        """Waits until the server has written `text` to stderr, and returns all of stderr."""
        deadline = time.monotonic() + timeout
        while text not in self.stderr:
            assert time.monotonic() < deadline, f"no {text!r} on stderr within {timeout} s; stderr: {self.stderr}"
            time.sleep(0.02)
        return self.stderr

    @property
    def stderr(self) -> str:
        return b"".join(self.stderr_chunks).decode(errors="replace")

    def write(self, data: bytes):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def frame(self, body: bytes):
        self.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send(self, message: dict):
        self.frame(json.dumps({"jsonrpc": "2.0", **message}).encode())

    def request(self, id, method: str, params=None) -> dict:
        self.send({"id": id, "method": method, "params": params} if params is not None else {"id": id, "method": method})
        return self.response(id)

    def notify(self, method: str, params=None):
        self.send({"method": method, "params": params} if params is not None else {"method": method})

    def receive(self, timeout: float = 30) -> dict | None:
        """The next message from the server (None once stdout is closed)."""
        try:
            return self.messages.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message from the server within {timeout} s; stderr: {self.stderr}")

    def response(self, id, timeout: float = 30) -> dict:
        """The response with this id, skipping the server's notifications and requests."""
        while True:
            message = self.receive(timeout)
            assert message is not None, f"stdout closed before the response to {id!r}; stderr: {self.stderr}"
            if "method" not in message and message.get("id") == id:
                return message

    def initialize(self, root: Path) -> dict:
        answer = self.request(1, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}})
        assert "result" in answer, answer
        self.notify("initialized", {})
        return answer

    def close_stdin(self):
        self.proc.stdin.close()

    def shut_down(self, request_id: int = 99):
        """The orderly end: `shutdown` answered with null, then `exit`, and exit code 0."""
        assert self.request(request_id, "shutdown")["result"] is None
        self.notify("exit")
        assert self.wait()[0] == 0, self.stderr

    def wait(self, timeout: float = 60) -> tuple[int, int]:
        """Reaps the server: (exit code, peak resident set in bytes). Kills it after `timeout`."""
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                self.proc.kill()
                _, _, usage = os.wait4(self.proc.pid, 0)
                self.proc.returncode = -9
                raise AssertionError(
                    f"the server did not exit within {timeout} s (peak RSS {usage.ru_maxrss * 1024} bytes); "
                    f"stderr: {self.stderr}"
                )
            time.sleep(0.05)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        # Let the stderr thread take the last bytes written before the exit.
        self._stderr_reader.join(timeout=10)
        return self.proc.returncode, usage.ru_maxrss * 1024

    def kill(self):
        if self.proc.returncode is None:
            self.proc.kill()
            self.proc.wait()
