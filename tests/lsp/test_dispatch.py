"""Typed dispatch through raw frames: params that do not parse as the request type's
params answer -32602 with serde's reason, unknown methods -32601, and the server keeps
serving."""

import time
from pathlib import Path

import pytest

from conftest import RawLsp


@pytest.fixture
def root(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "app.py").write_text("def served_function():\n    pass\n")
    return ws.resolve()


@pytest.fixture
def server(root: Path):
    server = RawLsp("--root", str(root))
    server.initialize(root)
    yield server
    server.kill()


def still_serving(server: RawLsp, id: int):
    answer = server.request(id, "workspace/symbol", {"query": "served"})
    assert [s["name"] for s in answer["result"]] == ["served_function"], answer


def app_uri(root: Path) -> str:
    return (root / "app.py").as_uri()


# (method, params, serde's reason): one or more malformed params per request type.
BAD_PARAMS = [
    ("textDocument/documentSymbol", {"textDocument": 5}, "invalid type: integer `5`, expected struct TextDocumentIdentifier"),
    ("textDocument/documentSymbol", None, "invalid type: null, expected struct DocumentSymbolParams"),
    ("textDocument/documentSymbol", {}, "missing field `textDocument`"),
    ("workspace/symbol", {"query": 5}, "invalid type: integer `5`, expected a string"),
    ("workspace/symbol", {}, "missing field `query`"),
    ("textDocument/foldingRange", {"textDocument": {}}, "missing field `uri`"),
    ("textDocument/foldingRange", [], "invalid type: sequence, expected struct FoldingRangeParams"),
    ("textDocument/selectionRange", "APP", "missing field `positions`"),
    ("textDocument/selectionRange", "APP_NEGATIVE", "invalid value: integer `-1`, expected u32"),
    ("shutdown", {"x": 1}, "invalid type: map, expected unit"),
]


@pytest.mark.parametrize("method, params, reason", BAD_PARAMS)
def test_bad_params_answer_invalid_params_with_the_reason(server, root, method, params, reason):
    if params == "APP":
        params = {"textDocument": {"uri": app_uri(root)}}
    elif params == "APP_NEGATIVE":
        params = {"textDocument": {"uri": app_uri(root)}, "positions": [{"line": -1, "character": 0}]}
    answer = server.request(2, method, params)
    assert answer == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {"code": -32602, "message": f"invalid params for {method}: {reason}"},
    }
    still_serving(server, 3)
    # Not even a malformed `shutdown` shuts the server down.
    assert server.request(4, "shutdown") == {"jsonrpc": "2.0", "id": 4, "result": None}
    server.notify("exit")
    assert server.wait()[0] == 0, server.stderr


@pytest.mark.parametrize("method", ["textDocument/documentSymbol", "textDocument/foldingRange"])
def test_a_document_outside_the_workspace_is_invalid_params(server, tmp_path, method):
    uri = (tmp_path / "outside.py").as_uri()
    answer = server.request(2, method, {"textDocument": {"uri": uri}})
    assert answer["error"] == {"code": -32602, "message": f"{uri} is not a document of this workspace"}


@pytest.mark.parametrize("method", ["sextant/nonsense", "textDocument/signatureHelp", "$/nonsense"])
def test_unknown_methods_answer_method_not_found(server, method):
    answer = server.request(2, method, {})
    assert answer == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {"code": -32601, "message": f"sextant does not implement {method}"},
    }
    still_serving(server, 3)


def test_unknown_notifications_and_bad_notification_params_get_no_answer(server, root):
    server.notify("sextant/nonsense", {"x": 1})
    server.notify("textDocument/didOpen", {"textDocument": 5})
    server.notify("textDocument/didChange", {})
    # The next message from the server is the answer to this request: nothing answered the
    # notifications.
    server.send({"id": 2, "method": "workspace/symbol", "params": {"query": "served"}})
    answer = server.receive()
    assert answer["id"] == 2 and [s["name"] for s in answer["result"]] == ["served_function"], answer
    assert "sextant: lsp: ignoring textDocument/didOpen: invalid params: invalid type: integer `5`" in server.stderr


def test_a_bad_initialize_is_answered_and_a_good_one_may_follow(root):
    server = RawLsp("--root", str(root))
    try:
        answer = server.request(1, "initialize", {"capabilities": 5})
        assert answer["error"]["code"] == -32602, answer
        assert answer["error"]["message"].startswith("invalid params for initialize: invalid type: integer `5`"), answer
        server.initialize(root)
        still_serving(server, 2)
        assert "result" in server.request(3, "shutdown")
        server.notify("exit")
        assert server.wait()[0] == 0, server.stderr
    finally:
        server.kill()


def test_a_request_id_still_in_flight_is_refused(root):
    server = RawLsp("--root", str(root), env={"SEXTANT_TEST_DELAY_MS": "workspace/symbol:60000"})
    try:
        server.initialize(root)
        server.send({"id": 7, "method": "workspace/symbol", "params": {"query": "served"}})
        server.wait_for_stderr("test delay: workspace/symbol started, 6000 steps (request 7)")
        answer = server.request(7, "textDocument/foldingRange", {"textDocument": {"uri": app_uri(root)}})
        assert answer == {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32600, "message": "request 7 is already in flight"},
        }
        server.notify("$/cancelRequest", {"id": 7})
        assert server.response(7)["error"] == {"code": -32800, "message": "cancelled"}
    finally:
        server.kill()


def test_a_request_id_of_a_held_request_is_refused(root):
    (root / "a.py").write_text("import os\n")
    server = RawLsp("--root", str(root))
    try:
        server.initialize(root)
        first = server.request(2, "workspace/diagnostic", {"previousResultIds": []})["result"]
        current = [{"uri": item["uri"], "value": item["resultId"]} for item in first["items"]]
        assert current, first
        # Nothing is new: request 7 is held until the workspace changes.
        server.send({"id": 7, "method": "workspace/diagnostic", "params": {"previousResultIds": current}})
        time.sleep(1.0)
        answer = server.request(7, "workspace/symbol", {"query": "served"})
        assert answer == {
            "jsonrpc": "2.0",
            "id": 7,
            "error": {"code": -32600, "message": "request 7 is already in flight"},
        }
        # The held request still gets its own answer once something changes.
        (root / "b.py").write_text("print(missing)\n")
        report = server.response(7)["result"]
        assert (root / "b.py").as_uri() in [item["uri"] for item in report["items"]], report
    finally:
        server.kill()
