"""Wire-level faults of `sextant mcp`: raw frames on stdio, raw HTTP requests and connections."""

import json
import resource
import signal
import socket
import subprocess
import time

import anyio
import pytest

from conftest import INITIALIZE, SEXTANT, http_server, http_session, raw_stdio, stdio_session, tool_error

pytestmark = pytest.mark.anyio

PING = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def error_of(answer: dict) -> tuple:
    return answer["id"], answer["error"]["code"]


# --- stdio: frames sextant must answer itself ------------------------------------------


def test_stdio_over_long_frames_get_an_error_answer(workspace):
    with raw_stdio(workspace, "--max-source-bytes", "1000", "--max-request-bytes", "30000") as raw:
        raw.initialize()
        big = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "parse_source", "arguments": {"source": "x" * 40000, "language": "python"}}}
        raw.send(big)
        assert error_of(raw.recv()) == (7, -32600)
        # The id after the long part cannot be recovered without buffering the frame.
        late_id = b'{"jsonrpc":"2.0","params":{"name":"parse_source","arguments":{"source":"' + b"y" * 40000 + b'"}},"method":"tools/call","id":8}\n'
        raw.send(late_id)
        assert error_of(raw.recv()) == (None, -32600)
        raw.send(PING)
        assert raw.recv() == {"jsonrpc": "2.0", "id": 99, "result": {}}
        assert raw.close() == 0
    assert raw.stderr.decode().count("over the 30000 byte limit") == 2


@pytest.mark.parametrize(
    "frame",
    [
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lookup_symbol","arguments":{"query":"\\ud800"}}}\n',
        b'{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"lookup_symbol","arguments":{"query":"\xff\xfe"}}}\n',
        b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}\n',
    ],
    ids=["lone-surrogate", "invalid-utf8", "huge-id"],
)
def test_stdio_unparsable_frames_get_a_parse_error(workspace, frame):
    with raw_stdio(workspace) as raw:
        raw.initialize()
        raw.send(frame)
        assert error_of(raw.recv()) == (None, -32700)
        raw.send(PING)
        assert raw.recv()["id"] == 99
        assert raw.close() == 0
    assert "sextant: rejected a request frame (id null): -32700 parse error" in raw.stderr.decode()


def test_stdio_tools_call_with_string_arguments_is_invalid_params(workspace):
    with raw_stdio(workspace) as raw:
        raw.initialize()
        raw.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "outline", "arguments": "app/models.py"}})
        assert error_of(raw.recv()) == (3, -32602)
        raw.send({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "outline", "arguments": {"path": "app/models.py"}}})
        assert raw.recv()["result"]["structuredContent"]["symbols"][0]["name"] == "User"
        assert raw.close() == 0


def test_stdio_closing_stdin_at_any_point_is_a_normal_end(workspace):
    with raw_stdio(workspace) as raw:
        assert raw.close() == 0, raw.stderr
    assert raw.stderr == b""
    # An unterminated last frame still gets its answer before the exit.
    with raw_stdio(workspace) as raw:
        raw.send(b'{"jsonrpc":"2.0","id":1,"meth')
        assert raw.close() == 0, raw.stderr
        assert error_of(raw.recv()) == (None, -32700)
    with raw_stdio(workspace) as raw:
        raw.initialize()
        assert raw.close() == 0, raw.stderr


# --- the source limit and the frame limit ----------------------------------------------


async def test_a_source_just_over_the_default_source_limit_is_too_large(workspace):
    async with stdio_session(workspace) as session:
        result = await session.call_tool(
            "parse_source", {"source": "x" * (1024 * 1024 + 1), "language": "python"}, read_timeout_seconds=60
        )
    assert tool_error(result)["code"] == "TOO_LARGE"


async def test_the_frame_limit_carries_a_maximal_source_in_the_worst_escaping(workspace):
    # Each control character is six bytes of JSON (`\u0001`).
    async with stdio_session(workspace, "--max-source-bytes", "10000", "--max-request-bytes", "76384") as session:
        fits = await session.call_tool("parse_source", {"source": "\x01" * 10000, "language": "python"})
        assert not fits.is_error, fits
        over = await session.call_tool("parse_source", {"source": "\x01" * 10001, "language": "python"})
        assert tool_error(over)["code"] == "TOO_LARGE"


def test_a_frame_limit_too_small_for_the_source_limit_is_refused(workspace):
    done = subprocess.run(
        [SEXTANT, "mcp", "--root", str(workspace), "--max-source-bytes", "10000", "--max-request-bytes", "76383"],
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "--max-request-bytes 76383 cannot carry a source of --max-source-bytes 10000" in done.stderr
    assert "at least 76384" in done.stderr


def test_stdio_a_request_id_already_in_flight_is_refused_and_the_first_answered(workspace):
    # 800 KB of source: slow enough in any build that the second request comes while it runs.
    slow = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "parse_source", "arguments": {"source": "f(x, y)\n" * 100000, "language": "python", "max_nodes": 3}}}
    again = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "explain_diagnostic", "arguments": {"code": "SX005"}}}
    with raw_stdio(workspace) as raw:
        raw.initialize()
        raw.send(slow)
        raw.send(again)
        answers = [raw.recv(), raw.recv()]
        assert answers[0] == {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32600, "message": "invalid request: request id 7 already in flight"},
        }
        assert answers[1]["id"] == 7 and answers[1]["result"]["structuredContent"]["truncated"] is True, answers[1]
        # Answered, the id is free again.
        raw.send(again)
        assert raw.recv()["result"]["structuredContent"]["code"] == "SX005"
        assert raw.close() == 0


# --- HTTP: requests ---------------------------------------------------------------------


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


async def test_http_bearer_scheme_is_case_insensitive(workspace):
    import httpx2

    env = {"SEXTANT_TEST_TOKEN": "s3cret-token"}
    with http_server(workspace, "--token-env", "SEXTANT_TEST_TOKEN", env=env) as server:
        async with httpx2.AsyncClient(timeout=10) as client:
            for scheme in ["bearer", "BEARER", "Bearer"]:
                ok = await client.post(server.url, json=INITIALIZE, headers={**JSON_HEADERS, "Authorization": f"{scheme} s3cret-token"})
                assert ok.status_code == 200, (scheme, ok.status_code)
            wrong = await client.post(server.url, json=INITIALIZE, headers={**JSON_HEADERS, "Authorization": "Basic s3cret-token"})
            assert wrong.status_code == 401


async def test_http_bad_bodies_get_json_rpc_errors(workspace):
    import httpx2

    with http_server(workspace, "--max-source-bytes", "1000", "--max-request-bytes", "30000") as server:
        async with httpx2.AsyncClient(timeout=10) as client:
            invalid = await client.post(server.url, content=b'{"jsonrpc": "2.0", "id": 1, "method":', headers=JSON_HEADERS)
            assert invalid.status_code == 400
            assert invalid.headers["content-type"] == "application/json"
            assert error_of(invalid.json()) == (None, -32700)
            string_arguments = {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "outline", "arguments": "x"}}
            params = await client.post(server.url, json=string_arguments, headers=JSON_HEADERS)
            assert params.status_code == 400
            assert error_of(params.json()) == (3, -32602)
            big = {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "parse_source", "arguments": {"source": "x" * 40000}}}
            too_large = await client.post(server.url, json=big, headers=JSON_HEADERS)
            assert too_large.status_code == 413
            assert error_of(too_large.json()) == (4, -32600)
            ok = await client.post(server.url, json=INITIALIZE, headers=JSON_HEADERS)
            assert ok.status_code == 200


async def test_http_the_bound_address_is_an_allowed_host_and_origin(workspace):
    import httpx2

    with http_server(workspace, host="127.0.0.2") as server:
        port = port_of(server.url)
        assert server.url == f"http://127.0.0.2:{port}/mcp"
        async with httpx2.AsyncClient(timeout=10) as client:
            own_host = await client.post(server.url, json=INITIALIZE, headers=JSON_HEADERS)
            assert own_host.status_code == 200, own_host.text
            own_origin = await client.post(server.url, json=INITIALIZE, headers={**JSON_HEADERS, "Origin": f"http://127.0.0.2:{port}"})
            assert own_origin.status_code == 200, own_origin.text
            other_origin = await client.post(server.url, json=INITIALIZE, headers={**JSON_HEADERS, "Origin": f"http://127.0.0.3:{port}"})
            assert other_origin.status_code == 403


# --- HTTP: connections ------------------------------------------------------------------


def partial_request(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: applic")
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes; the socket timeout only guards a hang."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def few_fds():
    # A server that would accept connections without bound runs out of descriptors here.
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


async def test_http_partial_requests_cannot_starve_an_authenticated_client(workspace):
    env = {"SEXTANT_TEST_TOKEN": "s3cret-token"}
    args = ["--token-env", "SEXTANT_TEST_TOKEN", "--http-header-timeout-ms", "1000"]
    with http_server(workspace, *args, env=env, preexec_fn=few_fds) as server:
        partials = [partial_request(port_of(server.url)) for _ in range(300)]
        try:
            with anyio.fail_after(60):
                async with http_session(server.url, headers={"Authorization": "Bearer s3cret-token"}) as session:
                    found = await session.call_tool("lookup_symbol", {"query": "Config"})
            assert found.structured_content["symbols"][0]["name"] == "Config"
        finally:
            for sock in partials:
                sock.close()


def test_http_a_partial_request_is_closed_after_the_header_timeout(workspace):
    with http_server(workspace, "--http-header-timeout-ms", "300") as server:
        port = port_of(server.url)
        partial = partial_request(port)
        assert read_until_closed(partial) == b""
        silent = socket.create_connection(("127.0.0.1", port), timeout=30)
        assert read_until_closed(silent) == b""


def test_http_a_slow_body_is_answered_408(workspace):
    with http_server(workspace, "--http-body-timeout-ms", "300") as server:
        sock = socket.create_connection(("127.0.0.1", port_of(server.url)), timeout=30)
        sock.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\""
        )
        answer = read_until_closed(sock)
        assert answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), answer


def test_http_idle_connections_close_but_event_streams_stay(workspace):
    import http.client

    with http_server(workspace, "--http-idle-timeout-ms", "300") as server:
        port = port_of(server.url)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("POST", "/mcp", body=json.dumps(INITIALIZE), headers=JSON_HEADERS)
        response = conn.getresponse()
        assert response.status == 200
        session_id = response.getheader("mcp-session-id")
        response.read()
        # The keep-alive connection, now idle, is closed by the server.
        assert read_until_closed(conn.sock) == b""

        stream = socket.create_connection(("127.0.0.1", port), timeout=30)
        stream.sendall(
            f"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n"
            f"Mcp-Session-Id: {session_id}\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += stream.recv(65536)
        assert head.startswith(b"HTTP/1.1 200 OK\r\n"), head
        assert b"content-type: text/event-stream" in head.lower()
        time.sleep(1.5)  # five idle timeouts with the stream open
        stream.setblocking(False)
        try:
            while stream.recv(65536):
                pass  # events (a priming event) are fine; the end of the stream is not
            raise AssertionError("the event stream was closed")
        except BlockingIOError:
            pass
        stream.close()


async def test_http_sigterm_finishes_in_flight_requests_and_exits_0(workspace):
    with http_server(workspace) as server:
        async with http_session(server.url) as session:
            # The SDK fetches the output schemas once, to check results: not after the signal.
            await session.list_tools()
            result = {}

            async def slow_call():
                result["call"] = await session.call_tool(
                    "parse_source", {"source": "f(x, y)\n" * 20000, "language": "python", "max_nodes": 3}
                )

            async with anyio.create_task_group() as group:
                group.start_soon(slow_call)
                await anyio.sleep(0.2)
                server.process.send_signal(signal.SIGTERM)
        assert not result["call"].is_error, result["call"]
        assert result["call"].structured_content["truncated"] is True
        assert server.process.wait(timeout=30) == 0
        assert "sextant: stopped" in server.process.stderr.read()
