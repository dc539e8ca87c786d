"""The LSP features through a real client."""

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound

from conftest import RawLsp, open_doc, start, wait_diagnostics


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def edit(client, uri: str, version: int, start: tuple[int, int], end: tuple[int, int], text: str):
    """An incremental didChange replacing the range start..end (line, character)."""
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=start[0], character=start[1]),
                        end=types.Position(line=end[0], character=end[1]),
                    ),
                    text=text,
                )
            ],
        )
    )


@pytest.mark.asyncio
async def test_diagnostics_follow_incremental_edits_and_close(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "app/broken.py", "def f(:\n    pass\n")
    result = await start(client, root)
    assert result.capabilities.position_encoding == types.PositionEncodingKind.Utf16
    assert result.capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    uri = path.as_uri()
    open_doc(client, path, path.read_text(), "python")
    diagnostics = await wait_diagnostics(client, uri, lambda d: len(d) == 1)
    assert diagnostics[0].message == "missing `)`"
    assert diagnostics[0].range.start == types.Position(line=0, character=6)
    assert (diagnostics[0].code, diagnostics[0].source) == ("SX002", "sextant")
    assert diagnostics[0].severity == types.DiagnosticSeverity.Error

    # Fix it with an incremental edit: insert ")" before ":".
    edit(client, uri, 2, (0, 6), (0, 6), ")")
    await wait_diagnostics(client, uri, lambda d: len(d) == 0)

    # The checks run as the text changes: an unused import (tagged unnecessary), then an
    # undefined name.
    edit(client, uri, 3, (0, 0), (0, 0), "import os\n")
    diagnostics = await wait_diagnostics(client, uri, lambda d: len(d) == 1)
    assert (diagnostics[0].code, diagnostics[0].message) == ("SX006", "'os' imported but unused")
    assert diagnostics[0].severity == types.DiagnosticSeverity.Warning
    assert list(diagnostics[0].tags) == [types.DiagnosticTag.Unnecessary]
    assert diagnostics[0].range == types.Range(start=types.Position(line=0, character=7), end=types.Position(line=0, character=9))
    edit(client, uri, 4, (2, 4), (2, 8), "return os.sep + missing")
    diagnostics = await wait_diagnostics(client, uri, lambda d: [x.code for x in d] == ["SX005"])
    assert diagnostics[0].message == "undefined name 'missing'"
    assert diagnostics[0].tags is None
    edit(client, uri, 5, (2, 4), (2, 27), "pass")
    await wait_diagnostics(client, uri, lambda d: [x.code for x in d] == ["SX006"])
    edit(client, uri, 6, (0, 0), (1, 0), "")
    await wait_diagnostics(client, uri, lambda d: len(d) == 0)

    # Break it again in the editor only: the disk still has the broken text, the overlay wins.
    edit(client, uri, 7, (1, 4), (1, 8), "return }")
    await wait_diagnostics(client, uri, lambda d: len(d) == 1)
    client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await wait_diagnostics(client, uri, lambda d: len(d) == 0)


@pytest.mark.asyncio
async def test_open_documents_are_checked_again_when_the_workspace_changes(client, tmp_path):
    root = tmp_path / "ws"
    write(root, "geo.py", "def area(w, h):\n    return w * h\n")
    path = write(root, "user.py", "from geo import area\n\nprint(area(1, 2))\n")
    await start(client, root)
    uri = path.as_uri()
    open_doc(client, path, path.read_text(), "python")
    await wait_diagnostics(client, uri, lambda d: len(d) == 0)

    # Another file changes on disk: the open document's import no longer resolves.
    write(root, "geo.py", "def surface(w, h):\n    return w * h\n")
    diagnostics = await wait_diagnostics(client, uri, lambda d: len(d) == 1)
    assert (diagnostics[0].code, diagnostics[0].message) == ("SX004", "module 'geo' has no name 'area'")
    assert diagnostics[0].range.start == types.Position(line=0, character=16)

    # So does the configuration: the code is switched off and the document is clean again.
    write(root, "sextant.toml", '[check]\nignore = ["SX004"]\n')
    await wait_diagnostics(client, uri, lambda d: len(d) == 0)


@pytest.mark.asyncio
async def test_document_and_workspace_symbols(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "shapes.py", "class Shape:\n    def area(self):\n        return 0\n\n\ndef helper():\n    pass\n")
    write(root, "src/lib.rs", "pub struct Config {}\nimpl Config {\n    pub fn load() -> Self { Config {} }\n}\n")
    await start(client, root)
    open_doc(client, path, path.read_text(), "python")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    assert [s.name for s in symbols] == ["Shape", "helper"]
    assert symbols[0].kind == types.SymbolKind.Class
    assert [c.name for c in symbols[0].children] == ["area"]
    assert symbols[0].children[0].kind == types.SymbolKind.Method
    assert symbols[0].children[0].selection_range.start == types.Position(line=1, character=8)
    assert symbols[0].range.end.line == 2

    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="load"))
    assert [(s.name, s.container_name) for s in found] == [("load", "Config")]
    assert found[0].location.uri == (root / "src/lib.rs").resolve().as_uri()
    assert found[0].location.range.start == types.Position(line=2, character=11)

    # An unopened file changed on disk shows up through the watcher.
    write(root, "src/more.rs", "pub fn load_more() {}\n")
    for _ in range(100):
        found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="load_more"))
        if found:
            break
        await asyncio.sleep(0.05)
    assert [s.name for s in found] == ["load_more"]


@pytest.mark.asyncio
@pytest.mark.parametrize("utf8", [False, True])
async def test_positions_on_non_ascii_text(client, tmp_path, utf8):
    root = tmp_path / "ws"
    text = "const s = 'é😀漢'; function after() {}\n"
    path = write(root, "a.js", text)
    result = await start(client, root, utf8=utf8)
    expected = types.PositionEncodingKind.Utf8 if utf8 else types.PositionEncodingKind.Utf16
    assert result.capabilities.position_encoding == expected
    open_doc(client, path, text, "javascript")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    after = next(s for s in symbols if s.name == "after")
    prefix = text[: text.index("after")]
    column = len(prefix.encode("utf-8")) if utf8 else len(prefix.encode("utf-16-le")) // 2
    assert after.selection_range.start == types.Position(line=0, character=column)

    # An edit addressed in the negotiated encoding lands where it should: rename `after`.
    edit(client, path.as_uri(), 2, (0, column), (0, column + 5), "later")
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    assert "later" in [s.name for s in symbols]


@pytest.mark.asyncio
async def test_folding_and_selection_ranges(client, tmp_path):
    root = tmp_path / "ws"
    text = "package main\n\nfunc main() {\n\tx := 1\n\tif x > 0 {\n\t\tx++\n\t}\n}\n"
    path = write(root, "main.go", text)
    await start(client, root)
    open_doc(client, path, text, "go")
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    assert {(f.start_line, f.end_line) for f in folds} >= {(2, 7), (4, 6)}

    ranges = await client.text_document_selection_range_async(
        types.SelectionRangeParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            positions=[types.Position(line=5, character=2)],
        )
    )
    chain = []
    node = ranges[0]
    while node:
        chain.append(node.range)
        node = node.parent
    assert chain[0] == types.Range(start=types.Position(line=5, character=2), end=types.Position(line=5, character=3))
    assert chain[-1].start == types.Position(line=0, character=0)
    # Each range contains the previous one.
    for inner, outer in zip(chain, chain[1:]):
        assert (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character)
        assert (outer.end.line, outer.end.character) >= (inner.end.line, inner.end.character)


@pytest.mark.asyncio
async def test_indexing_progress_is_reported(client, tmp_path):
    root = tmp_path / "ws"
    for i in range(50):
        write(root, f"m{i}.py", f"def f{i}():\n    pass\n")
    await start(client, root, progress=True)
    for _ in range(100):
        reports = client.progress_reports.get("sextant/indexing", [])
        if any(getattr(r, "kind", None) == "end" for r in reports):
            break
        await asyncio.sleep(0.05)
    kinds = [r.kind for r in client.progress_reports["sextant/indexing"]]
    assert kinds[0] == "begin" and kinds[-1] == "end"


@pytest.mark.asyncio
async def test_unknown_methods_answer_method_not_found(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "a.py", "def f():\n    pass\n")
    await start(client, root)
    with pytest.raises(JsonRpcMethodNotFound) as error:
        await client.text_document_signature_help_async(
            types.SignatureHelpParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()), position=types.Position(line=0, character=4))
        )
    assert (error.value.code, error.value.message) == (-32601, "sextant does not implement textDocument/signatureHelp")
    # The server stays usable.
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="f"))
    assert [s.name for s in found] == ["f"]


def test_cancel_request_stops_a_running_request(tmp_path):
    """`$/cancelRequest` for a request that is surely still running (the test hook keeps
    documentSymbol busy for a minute inside its query) answers RequestCancelled, stops the
    work, and leaves the server answering the next request."""
    root = tmp_path / "ws"
    path = write(root, "a.py", "def f():\n    pass\n")
    server = RawLsp("--root", str(root), env={"SEXTANT_TEST_DELAY_MS": "textDocument/documentSymbol:60000"})
    try:
        server.initialize(root)
        server.send({"id": 2, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": path.as_uri()}}})
        server.wait_for_stderr("test delay: textDocument/documentSymbol started, 6000 steps")
        server.notify("$/cancelRequest", {"id": 2})
        answer = server.response(2)
        assert answer["error"] == {"code": -32800, "message": "cancelled"}, answer
        # The work stopped when cancelled, long before its 6000 steps: the hook says so.
        stderr = server.wait_for_stderr("test delay: textDocument/documentSymbol stopped by cancellation")
        stopped = re.search(r"test delay: textDocument/documentSymbol stopped by cancellation after (\d+) of 6000 steps", stderr)
        assert stopped and int(stopped[1]) < 6000, server.stderr
        assert "test delay: textDocument/documentSymbol finished" not in server.stderr
        answer = server.request(3, "workspace/symbol", {"query": "f"})
        assert [s["name"] for s in answer["result"]] == ["f"], answer
        server.shut_down(4)
    finally:
        server.kill()


@pytest.mark.asyncio
async def test_a_fifo_in_place_of_a_file_blocks_nothing(client, tmp_path):
    """Regression: the writer blocked reading a FIFO, and the server answered nothing, not
    even `shutdown` (which the fixture sends at the end)."""
    import os

    root = tmp_path / "ws"
    write(root, "app.py", "def before_fifo():\n    pass\n")
    write(root, "other.py", "def still_here():\n    pass\n")
    await start(client, root)
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="before_fifo"))
    assert [s.name for s in found] == ["before_fifo"]
    (root / "app.py").unlink()
    os.mkfifo(root / "app.py")
    # Asked at once: the answer already reflects the change, and nothing hangs.
    found = await asyncio.wait_for(
        client.workspace_symbol_async(types.WorkspaceSymbolParams(query="before_fifo")), timeout=20
    )
    assert found == []
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="still_here"))
    assert [s.name for s in found] == ["still_here"]
