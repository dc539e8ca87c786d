"""The LSP wire: framing limits, bodies that are not messages, exit codes (raw frames to the
binary) and document URIs that point outside the workspace (through pytest-lsp)."""

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from conftest import RawLsp, start

DEFAULT_LIMIT = 64 * 1024 * 1024
GIB = 1 << 30


@pytest.fixture
def spawn():
    servers: list[RawLsp] = []

    def make(*args: str, **kwargs) -> RawLsp:
        server = RawLsp(*args, **kwargs)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.kill()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("def served_function():\n    pass\n")
    return ws.resolve()


def violation_line(server: RawLsp) -> str:
    lines = server.stderr.strip().splitlines()
    assert len(lines) == 1, server.stderr
    assert lines[0].startswith("sextant: lsp: closing the connection: "), lines[0]
    return lines[0]


# --- framing violations -----------------------------------------------------------------


@pytest.mark.parametrize("initialized", [False, True], ids=["before-initialize", "after-initialize"])
@pytest.mark.parametrize("claim", [str(GIB), str(1 << 62), "18446744073709551615"])
def test_oversized_content_length_closes_without_allocating(spawn, root, claim, initialized):
    server = spawn("--root", str(root))
    if initialized:
        server.initialize(root)
    # A 30-byte frame that claims far more; stdin stays open, so the server must act on the
    # header alone instead of waiting for a body that never comes.
    server.write(f"Content-Length: {claim}\r\n\r\n".encode() + b'{"jsonrpc":"2.0"}')
    code, peak_rss = server.wait()
    assert code == 1, server.stderr
    assert violation_line(server).endswith(
        f"Content-Length {claim} is over the limit of {DEFAULT_LIMIT} bytes (--max-message-bytes)"
    )
    assert peak_rss < 256 * 1024 * 1024, f"peak RSS {peak_rss} bytes"


@pytest.mark.parametrize("initialized", [False, True], ids=["before-initialize", "after-initialize"])
@pytest.mark.parametrize(
    "frame, reason",
    [
        (b"Content-Length: abc\r\n\r\n{}", 'Content-Length "abc" is not a decimal number'),
        (b"Content-Length: -5\r\n\r\n{}", 'Content-Length "-5" is not a decimal number'),
        (
            b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{}",
            "a message without a Content-Length header",
        ),
        (b"Content-Length 2\r\n\r\n{}", 'malformed header line "Content-Length 2"'),
    ],
    ids=["non-numeric", "negative", "missing", "no-colon"],
)
def test_malformed_framing_closes_with_status_1(spawn, root, frame, reason, initialized):
    server = spawn("--root", str(root))
    if initialized:
        server.initialize(root)
    server.write(frame)
    code, _ = server.wait()
    assert code == 1, server.stderr
    assert violation_line(server) == f"sextant: lsp: closing the connection: {reason}"


def _pad(body: str, pad: int) -> bytes:
    # JSON allows whitespace anywhere between tokens: pad before the closing brace.
    return (body[:-1] + " " * pad + "}").encode()


def test_max_message_bytes_is_the_largest_body_accepted(spawn, root):
    server = spawn("--root", str(root), "--max-message-bytes", "300")
    server.initialize(root)
    body = '{"jsonrpc": "2.0", "id": 2, "method": "workspace/symbol", "params": {"query": "served"}}'
    at_limit = _pad(body, 300 - len(body))
    assert len(at_limit) == 300
    server.frame(at_limit)
    answer = server.response(2)
    assert [s["name"] for s in answer["result"]] == ["served_function"]
    server.frame(_pad(at_limit.decode(), 1))
    code, _ = server.wait()
    assert code == 1
    assert violation_line(server).endswith("Content-Length 301 is over the limit of 300 bytes (--max-message-bytes)")


def test_max_message_bytes_must_be_positive(spawn):
    server = spawn("--max-message-bytes", "0")
    code, _ = server.wait()
    assert code == 2
    assert "--max-message-bytes" in server.stderr


# --- bodies that are not messages ------------------------------------------------------------


def test_unreadable_bodies_get_json_rpc_errors_and_the_server_keeps_serving(spawn, root):
    server = spawn("--root", str(root))
    server.initialize(root)
    cases = [
        (b"{not json", -32700, None),
        (b"\xff\xfe\x00", -32700, None),
        (b"[1, 2]", -32600, None),
        (b'{"jsonrpc": "2.0", "id": 7, "method": 3}', -32600, 7),
    ]
    for body, code, id in cases:
        server.frame(body)
        answer = server.receive()
        assert answer is not None, server.stderr
        assert answer["jsonrpc"] == "2.0"
        assert answer["id"] == id, (body, answer)
        assert answer["error"]["code"] == code, (body, answer)
    found = server.request(9, "workspace/symbol", {"query": "served"})
    assert [s["name"] for s in found["result"]] == ["served_function"]
    assert server.request(10, "shutdown")["result"] is None
    server.notify("exit")
    code, _ = server.wait()
    assert code == 0, server.stderr


def test_a_malformed_response_from_the_client_is_not_answered(spawn, root):
    server = spawn("--root", str(root))
    server.initialize(root)
    # An error response with a null id: answering it could start an endless exchange.
    server.frame(b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32603, "message": "x"}}')
    found = server.request(2, "workspace/symbol", {"query": "served"})
    assert [s["name"] for s in found["result"]] == ["served_function"]


# --- exit codes -------------------------------------------------------------------------------


def test_shutdown_then_exit_exits_0(spawn, root):
    server = spawn("--root", str(root))
    server.initialize(root)
    assert server.request(2, "shutdown") == {"jsonrpc": "2.0", "id": 2, "result": None}
    server.notify("exit")
    assert server.wait()[0] == 0, server.stderr


def test_exit_without_shutdown_exits_1(spawn, root):
    server = spawn("--root", str(root))
    server.initialize(root)
    server.notify("exit")
    assert server.wait()[0] == 1, server.stderr


def test_exit_before_initialize_exits_1(spawn, root):
    server = spawn("--root", str(root))
    server.notify("exit")
    assert server.wait()[0] == 1, server.stderr


def test_stdin_closed_without_exit_exits_1(spawn, root):
    server = spawn("--root", str(root))
    server.initialize(root)
    server.close_stdin()
    assert server.wait()[0] == 1, server.stderr
    assert server.stderr.strip() == "sextant: lsp: the client closed the connection without shutdown"


def test_stdin_closed_after_shutdown_exits_0(spawn, root):
    server = spawn("--root", str(root))
    server.initialize(root)
    assert "result" in server.request(2, "shutdown")
    server.close_stdin()
    assert server.wait()[0] == 0, server.stderr


def test_requests_after_shutdown_are_invalid(spawn, root):
    server = spawn("--root", str(root))
    server.initialize(root)
    assert "result" in server.request(2, "shutdown")
    answer = server.request(3, "workspace/symbol", {"query": "served"})
    assert answer["error"]["code"] == -32600, answer
    server.notify("exit")
    assert server.wait()[0] == 0, server.stderr


def test_requests_before_initialize_are_refused(spawn, root):
    server = spawn("--root", str(root))
    answer = server.request(5, "workspace/symbol", {"query": "served"})
    assert answer["error"]["code"] == -32002, answer
    server.initialize(root)
    assert "result" in server.request(6, "shutdown")
    server.notify("exit")
    assert server.wait()[0] == 0, server.stderr


# --- document URIs outside the workspace ------------------------------------------------------


def escaping_uris(root: Path) -> dict[str, str]:
    base = root.as_uri()
    return {
        "dot-dot": f"{base}/../outside.py",
        "encoded-dot-dot": f"{base}/%2e%2e/outside.py",
        "mixed-case-encoded": f"{base}/sub/%2E%2E/%2e%2e/outside.py",
        "encoded-slash-dot-dot": f"{base}/sub%2F..%2F..%2Foutside.py",
    }


@pytest.fixture
def outside(tmp_path: Path, root: Path) -> Path:
    path = tmp_path / "outside.py"
    path.write_text("def outside_secret_symbol():\n    pass\n")
    assert (root / ".." / "outside.py").resolve() == path.resolve()
    return path


def did_open(client, uri: str, text: str):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )


def did_close(client, uri: str):
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )


async def symbol_names(client, query: str) -> list[str]:
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    return [s.name for s in found or []]


async def document_symbol_error(client, uri: str) -> int:
    with pytest.raises(JsonRpcInvalidParams) as raised:
        await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
    return raised.value.code


ESCAPES = ["dot-dot", "encoded-dot-dot", "mixed-case-encoded", "encoded-slash-dot-dot"]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ESCAPES)
async def test_closing_a_uri_outside_the_root_reads_nothing_from_disk(client, root, outside, kind):
    await start(client, root)
    uri = escaping_uris(root)[kind]
    did_open(client, uri, "def editor_text_symbol():\n    pass\n")
    did_close(client, uri)
    assert await symbol_names(client, "outside_secret_symbol") == []
    assert await document_symbol_error(client, uri) == -32602
    # The workspace itself is still served.
    assert await symbol_names(client, "served_function") == ["served_function"]


@pytest.mark.asyncio
@pytest.mark.parametrize("kind", ESCAPES)
async def test_an_open_uri_outside_the_root_is_not_indexed(client, root, outside, kind):
    await start(client, root)
    uri = escaping_uris(root)[kind]
    did_open(client, uri, "def editor_text_symbol():\n    pass\n")
    assert await symbol_names(client, "editor_text_symbol") == []
    assert await document_symbol_error(client, uri) == -32602


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "kind",
    ["remote-host", "user-info", "port", "encoded-nul", "other-scheme", "query", "bad-escape"],
)
async def test_uris_that_name_no_local_file_are_not_workspace_documents(client, root, kind):
    await start(client, root)
    path = root.as_uri().removeprefix("file://")
    uri = {
        "remote-host": f"file://elsewhere{path}/remote.py",
        "user-info": f"file://user@localhost{path}/remote.py",
        "port": f"file://localhost:8080{path}/remote.py",
        "encoded-nul": f"file://{path}/nul%00.py",
        "other-scheme": f"untitled:{path}/remote.py",
        "query": f"file://{path}/remote.py?x=1",
        "bad-escape": f"file://{path}/remote%zz.py",
    }[kind]
    did_open(client, uri, "def editor_text_symbol():\n    pass\n")
    assert await symbol_names(client, "editor_text_symbol") == []
    assert await document_symbol_error(client, uri) == -32602
    did_close(client, uri)
    assert await symbol_names(client, "editor_text_symbol") == []


@pytest.mark.asyncio
async def test_a_link_inside_the_root_to_outside_is_not_followed(client, tmp_path, root):
    secret = tmp_path / "secret.py"
    secret.write_text("def linked_secret_symbol():\n    pass\n")
    # The walker skips this link (it points outside); opening it must not bring it in.
    (root / "escape.py").symlink_to(secret)
    await start(client, root)
    uri = f"{root.as_uri()}/escape.py"
    did_open(client, uri, "def editor_text_symbol():\n    pass\n")
    did_close(client, uri)
    assert await symbol_names(client, "linked_secret_symbol") == []
    assert await document_symbol_error(client, uri) == -32602


@pytest.mark.asyncio
async def test_uris_that_stay_inside_the_root_are_workspace_documents(client, root):
    await start(client, root)
    for uri in [
        f"{root.as_uri()}/sub/../app.py",
        f"{root.as_uri()}/./%61pp.py",
        f"file://localhost{root.as_uri().removeprefix('file://')}/app.py",
    ]:
        did_open(client, uri, "def edited_function():\n    pass\n")
        found = await client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        assert [s.name for s in found] == ["edited_function"], uri
        did_close(client, uri)
