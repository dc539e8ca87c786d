"""Formatting with the external formatters a workspace's `sextant.toml` names, through
pytest-lsp and raw frames: a command from the workspace runs only when the server was started
with `--allow-external-formatter`, its output is judged, `$/cancelRequest` kills a running
formatter with its process group, and a reversed range is invalid params."""

import time
from pathlib import Path

import pytest
from lsprotocol import types

from conftest import RawLsp, ended, open_doc, start

OK_PY = "def f():\n    return 1\n"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def formatting(uri: str) -> dict:
    return {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}


def wait_for_formatter(server: RawLsp, pid_file: Path, timeout: float = 30):
    """Waits until the formatter has written its pid; a message the server sends first (an
    early answer to the formatting request) fails the test with that message."""
    deadline = time.monotonic() + timeout
    early = []
    while not (pid_file.exists() and pid_file.read_text().strip()):
        while not server.messages.empty():
            message = server.messages.get_nowait()
            if message is not None and "method" not in message:
                early.append(message)
        assert not early, f"answered before the formatter started: {early}; stderr: {server.stderr}"
        assert time.monotonic() < deadline, f"the formatter never started; stderr: {server.stderr}"
        time.sleep(0.02)


@pytest.mark.asyncio
async def test_the_workspaces_formatter_is_not_run_without_permission(client, tmp_path):
    marker = tmp_path / "ran"
    root = tmp_path / "ws"
    path = write(root, "app/ok.py", OK_PY)
    write(root, "fmt.sh", f"#!/bin/sh\ntouch {marker}\ncat\n").chmod(0o755)
    write(root, "sextant.toml", '[format.python]\ncommand = ["./fmt.sh"]\n')
    await start(client, root)
    open_doc(client, path, OK_PY, "python")
    with pytest.raises(Exception) as refused:
        await client.text_document_formatting_async(
            types.DocumentFormattingParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                options=types.FormattingOptions(tab_size=4, insert_spaces=True),
            )
        )
    assert str(refused.value).startswith(
        'FORMATTER_NOT_ALLOWED: sextant.toml names the formatter "./fmt.sh" for python: a command named by the '
        "workspace is code from the workspace, run only when allowed (pass --allow-external-formatter)"
    ), refused.value
    assert getattr(refused.value, "code", -32803) == -32803
    assert not marker.exists(), "the workspace's formatter ran"


@pytest.mark.asyncio
async def test_a_reversed_range_is_invalid_params(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "src/lib.rs", "fn f() {\nlet a = 1;\nlet b = 2;\n}\n")
    await start(client, root)
    open_doc(client, path, path.read_text(), "rust")
    with pytest.raises(Exception) as refused:
        await client.text_document_range_formatting_async(
            types.DocumentRangeFormattingParams(
                text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
                range=types.Range(start=types.Position(line=2, character=0), end=types.Position(line=1, character=0)),
                options=types.FormattingOptions(tab_size=4, insert_spaces=True),
            )
        )
    assert getattr(refused.value, "code", None) == -32602, refused.value
    assert "the range ends (1:0) before it starts (2:0)" in str(refused.value)


def test_allowed_output_is_judged_and_cancel_kills_the_formatter(tmp_path):
    pid_file = tmp_path / "sleep.pid"
    root = tmp_path / "ws"
    empty = write(root, "app/empty.py", OK_PY)
    slow = write(root, "slow.js", "f();\n")
    write(
        root,
        "sextant.toml",
        '[format.python]\ncommand = ["true"]\n'
        f'[format.javascript]\ncommand = ["sh", "-c", "sleep 100 & echo $! > {pid_file}; wait"]\n',
    )
    server = RawLsp("--root", str(root), "--allow-external-formatter")
    try:
        server.initialize(root)
        rejected = server.request(2, "textDocument/formatting", formatting(empty.as_uri()))
        assert rejected["error"]["code"] == -32803, rejected
        assert rejected["error"]["message"] == (
            'FORMATTER_OUTPUT_REJECTED: the output of the formatter "true" was not used: its output is empty; '
            "nothing was changed"
        )
        assert empty.read_text() == OK_PY

        server.send({"id": 3, "method": "textDocument/formatting", "params": formatting(slow.as_uri())})
        wait_for_formatter(server, pid_file)
        cancelled_at = time.monotonic()
        server.notify("$/cancelRequest", {"id": 3})
        answer = server.response(3, timeout=10)
        assert answer["error"] == {"code": -32800, "message": "cancelled"}, answer
        assert time.monotonic() - cancelled_at < 5
        assert ended(int(pid_file.read_text())), "the formatter's child outlived the cancelled request"
        server.shut_down(4)
    finally:
        server.kill()


def test_an_edit_during_a_slow_formatter_does_not_wait_for_it(tmp_path):
    """A running formatter holds a snapshot; an edit arriving meanwhile stops it (the format
    runs again on the new text) instead of waiting for it, so the next request is answered
    at once rather than at the formatter's deadline."""
    pid_file = tmp_path / "sleep.pids"
    root = tmp_path / "ws"
    slow = write(root, "slow.js", "function f() {}\n")
    write(
        root,
        "sextant.toml",
        f'[format.javascript]\ncommand = ["sh", "-c", "sleep 100 & echo $! >> {pid_file}; wait"]\n',
    )
    server = RawLsp("--root", str(root), "--allow-external-formatter")
    try:
        server.initialize(root)
        uri = slow.as_uri()
        server.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "javascript", "version": 1, "text": "function f() {}\n"}})
        server.send({"id": 2, "method": "textDocument/formatting", "params": formatting(uri)})
        wait_for_formatter(server, pid_file)
        edited_at = time.monotonic()
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "function g() {}\n"}]})
        symbols = server.request(3, "textDocument/documentSymbol", {"textDocument": {"uri": uri}})
        assert time.monotonic() - edited_at < 5, server.stderr
        assert [s["name"] for s in symbols["result"]] == ["g"], symbols
        first = int(pid_file.read_text().split()[0])
        assert ended(first), "the formatter stopped by the edit is still running"
        server.notify("$/cancelRequest", {"id": 2})
        assert server.response(2, timeout=10)["error"]["code"] == -32800
        server.shut_down(4)
    finally:
        server.kill()
