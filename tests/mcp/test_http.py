"""`sextant mcp --http` as a local user meets it: who may write, room for a client with the
token while others hold partial requests, an over-long body refused at once, and a request id
sent again while its first request is still running."""

import json
import queue
import socket
import threading

import anyio
import pytest

from conftest import INITIALIZE, http_server, http_session, tool_error, wait_until_indexed, write
from test_wire import JSON_HEADERS, few_fds, partial_request, port_of, read_until_closed

pytestmark = pytest.mark.anyio

TOKEN_ENV = {"SEXTANT_TEST_TOKEN": "s3cret-token"}
WITH_TOKEN = ["--token-env", "SEXTANT_TEST_TOKEN"]
AUTH = {"Authorization": "Bearer s3cret-token"}
UNFORMATTED = "fn f() {\nlet x = 1;   \n}\n"
# Slow enough in any build that a second request arrives while it runs (800 KB of source).
SLOW_CALL = {"name": "parse_source", "arguments": {"source": "f(x, y)\n" * 100000, "language": "python", "max_nodes": 3}}


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "src/lib.rs", UNFORMATTED)
    write(root, "app/geo.py", "def area(w, h):\n    return w * h\n\n\nprint(area(1, 2))\n")
    return root


def next_stderr_line(server, timeout: float = 10.0) -> str:
    """The server's next stderr line; raises rather than hangs when none comes."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: lines.put(server.process.stderr.readline()), daemon=True).start()
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        raise AssertionError("no further line on stderr") from None


# --- who may write ----------------------------------------------------------------------


async def test_http_without_a_token_is_read_only_and_says_so_at_start(project):
    with http_server(project) as server:
        async with http_session(server.url) as session:
            await wait_until_indexed(session)
            tools = {t.name: t for t in (await session.list_tools()).tools}
            for name in ("rename_symbol", "format_source"):
                assert "apply" not in tools[name].input_schema["properties"], name
                assert tools[name].annotations.read_only_hint is True, name
            formatted = await session.call_tool("format_source", {"path": "src/lib.rs", "apply": True})
            assert tool_error(formatted)["code"] == "INVALID_ARGUMENT"
            renamed = await session.call_tool("rename_symbol", {"query": "app.geo.area", "new_name": "size", "apply": True})
            assert tool_error(renamed)["code"] == "INVALID_ARGUMENT"
            status = await session.call_tool("workspace_status", {})
            assert status.structured_content["limits"]["read_only"] is True
        warning = next_stderr_line(server)
        assert warning.startswith("sextant: warning: no bearer token"), warning
        assert "read-only" in warning
    assert (project / "src/lib.rs").read_text() == UNFORMATTED
    assert "size" not in (project / "app/geo.py").read_text()


async def test_http_with_a_token_may_write(project):
    with http_server(project, *WITH_TOKEN, env=TOKEN_ENV) as server:
        async with http_session(server.url, headers=AUTH) as session:
            await wait_until_indexed(session)
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert "apply" in tools["format_source"].input_schema["properties"]
            assert "apply" in tools["rename_symbol"].input_schema["properties"]
            applied = await session.call_tool("format_source", {"path": "src/lib.rs", "apply": True})
            assert not applied.is_error, applied
            assert applied.structured_content["applied"] is True
    assert (project / "src/lib.rs").read_text() == "fn f() {\n    let x = 1;\n}\n"


# --- connections ------------------------------------------------------------------------


async def test_http_200_held_partial_requests_leave_room_for_a_client_with_the_token(workspace):
    # Held heads are closed to make room, not waited out: with a head timeout longer than the
    # client's own (30 s), a client waiting for them to time out could not be served at all.
    # `benches/http_admission.py` measures the wait at the default head timeout.
    args = [*WITH_TOKEN, "--http-header-timeout-ms", "120000"]
    with http_server(workspace, *args, env=TOKEN_ENV, preexec_fn=few_fds) as server:
        partials = [partial_request(port_of(server.url)) for _ in range(200)]
        try:
            with anyio.fail_after(60):
                async with http_session(server.url, headers=AUTH) as session:
                    found = await session.call_tool("lookup_symbol", {"query": "Config"})
            assert found.structured_content["symbols"][0]["name"] == "Config"
        finally:
            for sock in partials:
                sock.close()


def post_head(port: int, length: int, *extra: str) -> bytes:
    lines = [
        "POST /mcp HTTP/1.1",
        f"Host: 127.0.0.1:{port}",
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        f"Content-Length: {length}",
        *extra,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def status_and_body(answer: bytes) -> tuple[bytes, dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], json.loads(body)


def test_http_a_declared_length_over_the_limit_is_answered_413_at_once(workspace):
    # The body never comes: only an answer made from the head can be a 413 (waiting for the
    # body ends in 408).
    with http_server(workspace, "--max-source-bytes", "1000", "--max-request-bytes", "30000") as server:
        port = port_of(server.url)
        sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        sock.sendall(post_head(port, 100_000) + b'{"jsonrpc": "2.0", "id": 5, "method": "tools/call"')
        status, body = status_and_body(read_until_closed(sock))
        assert status == b"HTTP/1.1 413 Payload Too Large"
        assert (body["id"], body["error"]["code"]) == (5, -32600)

        waiting = socket.create_connection(("127.0.0.1", port), timeout=30)
        waiting.sendall(post_head(port, 100_000, "Expect: 100-continue"))
        answer = read_until_closed(waiting)
        assert b"100 Continue" not in answer, answer
        status, body = status_and_body(answer)
        assert status == b"HTTP/1.1 413 Payload Too Large"
        assert (body["id"], body["error"]["code"]) == (None, -32600)


# --- request ids ------------------------------------------------------------------------


def sse_messages(text: str) -> list[dict]:
    return [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:") and line[5:].strip()]


async def test_http_a_request_id_already_in_flight_is_refused_and_the_first_answered(workspace):
    import httpx2

    with http_server(workspace) as server:
        async with httpx2.AsyncClient(timeout=30) as client:
            init = await client.post(server.url, json=INITIALIZE, headers=JSON_HEADERS)
            session = {**JSON_HEADERS, "Mcp-Session-Id": init.headers["mcp-session-id"], "Mcp-Protocol-Version": "2025-06-18"}
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            assert (await client.post(server.url, json=initialized, headers=session)).status_code == 202
            slow = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": SLOW_CALL}
            again = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "explain_diagnostic", "arguments": {"code": "SX005"}}}
            async with client.stream("POST", server.url, json=slow, headers=session) as first:
                assert first.status_code == 200
                second = await client.post(server.url, json=again, headers=session)
                assert second.status_code == 400
                assert second.json() == {
                    "jsonrpc": "2.0",
                    "id": 7,
                    "error": {"code": -32600, "message": "invalid request: request id 7 already in flight"},
                }
                answers = [m for m in sse_messages((await first.aread()).decode()) if m.get("id") == 7]
            assert len(answers) == 1 and answers[0]["result"]["structuredContent"]["truncated"] is True, answers
            # Answered, the id is free again.
            reused = await client.post(server.url, json=again, headers=session)
            assert reused.status_code == 200
            assert [m["result"]["structuredContent"]["code"] for m in sse_messages(reused.text)] == ["SX005"]
