"""Requests run on a fixed pool of workers fed by a bounded queue (raw frames to the binary,
the slow-request hook keeping workers busy, the pool's size set by `SEXTANT_TEST_LSP_POOL`).

No thread is started per request: a burst is queued and answered in full while the
process's thread count stays where it was; a queued request that is cancelled is answered
at once and never runs; a full queue answers ServerCancelled instead of blocking."""

import os
import re
from pathlib import Path

import pytest

from conftest import RawLsp

SERVER_CANCELLED = -32802
REQUEST_CANCELLED = -32800


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("def served_function():\n    pass\n")
    return ws.resolve()


def threads(server: RawLsp) -> int:
    return len(os.listdir(f"/proc/{server.proc.pid}/task"))


def document_symbol(root: Path) -> dict:
    return {"textDocument": {"uri": (root / "app.py").as_uri()}}


def finish(server: RawLsp):
    server.shut_down()


def test_a_burst_of_requests_is_queued_on_a_fixed_pool(root):
    burst = 50
    server = RawLsp(
        "--root",
        str(root),
        env={"SEXTANT_TEST_LSP_POOL": "2:64", "SEXTANT_TEST_DELAY_MS": "workspace/symbol:100"},
    )
    try:
        server.initialize(root)
        # Once one request has been answered, the index is loaded and every thread the
        # server keeps (pool, writer, watcher, transport, loader pool) exists.
        first = server.request(2, "workspace/symbol", {"query": "served"})
        assert [s["name"] for s in first["result"]] == ["served_function"], first
        settled = threads(server)

        ids = list(range(100, 100 + burst))
        for id in ids:
            server.send({"id": id, "method": "workspace/symbol", "params": {"query": "served"}})
        answers, most_threads = {}, settled
        while len(answers) < burst:
            most_threads = max(most_threads, threads(server))
            message = server.receive()
            assert message is not None, server.stderr
            if "method" not in message:
                answers[message["id"]] = message
        most_threads = max(most_threads, threads(server))

        assert sorted(answers) == ids
        assert all([s["name"] for s in a["result"]] == ["served_function"] for a in answers.values()), answers
        # Not one thread more while 50 requests were in flight.
        assert most_threads <= settled, (settled, most_threads)
        # Never more than the pool's two workers inside a request at once.
        running, most_running = 0, 0
        for event in re.findall(r"test delay: workspace/symbol (started|finished)", server.stderr):
            running += 1 if event == "started" else -1
            most_running = max(most_running, running)
        assert most_running <= 2, server.stderr
        assert server.stderr.count("test delay: workspace/symbol finished") == burst + 1
        finish(server)
    finally:
        server.kill()


def test_a_cancelled_queued_request_is_answered_at_once_and_never_runs(root):
    server = RawLsp(
        "--root",
        str(root),
        env={"SEXTANT_TEST_LSP_POOL": "1:8", "SEXTANT_TEST_DELAY_MS": "textDocument/documentSymbol:60000"},
    )
    try:
        server.initialize(root)
        server.send({"id": 2, "method": "textDocument/documentSymbol", "params": document_symbol(root)})
        server.wait_for_stderr("test delay: textDocument/documentSymbol started, 6000 steps (request 2)")
        # The only worker is busy with request 2: request 3 waits in the queue.
        server.send({"id": 3, "method": "textDocument/documentSymbol", "params": document_symbol(root)})
        server.notify("$/cancelRequest", {"id": 3})
        # Answered while request 2 is still running: the next message is its answer.
        answer = server.receive()
        assert answer == {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {"code": REQUEST_CANCELLED, "message": "cancelled before it started"},
        }
        server.notify("$/cancelRequest", {"id": 2})
        assert server.response(2)["error"] == {"code": REQUEST_CANCELLED, "message": "cancelled"}
        # Request 4 is queued behind request 3's slot: once it is answered, request 3 would
        # have run if it were going to.
        found = server.request(4, "workspace/symbol", {"query": "served"})
        assert [s["name"] for s in found["result"]] == ["served_function"], found
        assert server.stderr.count("test delay: textDocument/documentSymbol started") == 1, server.stderr
        assert "(request 3)" not in server.stderr
        finish(server)
    finally:
        server.kill()


def test_a_full_queue_answers_server_cancelled_and_blocks_nothing(root):
    server = RawLsp(
        "--root",
        str(root),
        env={"SEXTANT_TEST_LSP_POOL": "1:1", "SEXTANT_TEST_DELAY_MS": "textDocument/documentSymbol:60000"},
    )
    try:
        server.initialize(root)
        server.send({"id": 2, "method": "textDocument/documentSymbol", "params": document_symbol(root)})
        server.wait_for_stderr("test delay: textDocument/documentSymbol started, 6000 steps (request 2)")
        server.send({"id": 3, "method": "textDocument/documentSymbol", "params": document_symbol(root)})
        answer = server.request(4, "textDocument/foldingRange", document_symbol(root))
        assert answer == {
            "jsonrpc": "2.0",
            "id": 4,
            "error": {
                "code": SERVER_CANCELLED,
                "message": "textDocument/foldingRange: the server is busy (its queue of 1 requests is full); ask again",
            },
        }
        # The loop still applies notifications and answers what it can at once.
        assert server.request(5, "sextant/nonsense")["error"]["code"] == -32601
        server.notify("$/cancelRequest", {"id": 3})
        assert server.response(3)["error"] == {"code": REQUEST_CANCELLED, "message": "cancelled before it started"}
        server.notify("$/cancelRequest", {"id": 2})
        assert server.response(2)["error"] == {"code": REQUEST_CANCELLED, "message": "cancelled"}
        folds = server.request(6, "textDocument/foldingRange", document_symbol(root))
        assert folds["result"] == [{"startLine": 0, "endLine": 1}], folds
        finish(server)
    finally:
        server.kill()
