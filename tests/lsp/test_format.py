"""`textDocument/formatting` and `textDocument/rangeFormatting` through pytest-lsp: the
editor's unsaved text is formatted with its tab size, a range takes only its lines, Go keeps
its tabs, and a file with a syntax error is refused with a stable code."""

from pathlib import Path

import pytest
from lsprotocol import types

from conftest import open_doc, start


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def apply(text: str, edits) -> str:
    """The client's side: edits applied from the last to the first (ASCII text, so
    UTF-16 columns are byte columns)."""
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(position):
        return min(starts[position.line] + position.character, len(text)) if position.line < len(lines) else len(text)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def options(tab_size: int, insert_spaces: bool = True) -> types.FormattingOptions:
    return types.FormattingOptions(tab_size=tab_size, insert_spaces=insert_spaces)


@pytest.mark.asyncio
async def test_formatting_the_editors_text_and_a_range_of_it(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "src/lib.rs", "fn saved() {}\n")
    result = await start(client, root)
    assert result.capabilities.document_formatting_provider is True
    assert result.capabilities.document_range_formatting_provider is True

    unsaved = "fn f() {\nlet a = 1;   \nlet b = 2;\n}\n\n\n"
    open_doc(client, path, unsaved, "rust")
    doc = types.TextDocumentIdentifier(uri=path.as_uri())
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(text_document=doc, options=options(2))
    )
    assert apply(unsaved, edits) == "fn f() {\n  let a = 1;\n  let b = 2;\n}\n"

    # Only the third line (0-based line 2) is in the range.
    in_range = await client.text_document_range_formatting_async(
        types.DocumentRangeFormattingParams(
            text_document=doc,
            range=types.Range(start=types.Position(line=2, character=0), end=types.Position(line=2, character=3)),
            options=options(4),
        )
    )
    assert [(e.range.start.line, e.range.end.line, e.new_text) for e in in_range] == [(2, 3, "    let b = 2;\n")]
    assert apply(unsaved, in_range) == "fn f() {\nlet a = 1;   \n    let b = 2;\n}\n\n\n"
    # Nothing was written to disk.
    assert path.read_text() == "fn saved() {}\n"


@pytest.mark.asyncio
async def test_go_keeps_tabs_and_syntax_errors_are_refused(client, tmp_path):
    root = tmp_path / "ws"
    go = write(root, "main.go", "package main\n\nfunc main() {\n  x := 1\n}\n")
    bad = write(root, "bad.py", "def f(:\n    pass\n")
    await start(client, root)
    open_doc(client, go, go.read_text(), "go")
    edits = await client.text_document_formatting_async(
        types.DocumentFormattingParams(text_document=types.TextDocumentIdentifier(uri=go.as_uri()), options=options(4))
    )
    assert apply(go.read_text(), edits) == "package main\n\nfunc main() {\n\tx := 1\n}\n"

    open_doc(client, bad, bad.read_text(), "python")
    with pytest.raises(Exception) as refused:
        await client.text_document_formatting_async(
            types.DocumentFormattingParams(text_document=types.TextDocumentIdentifier(uri=bad.as_uri()), options=options(4))
        )
    assert "FORMAT_SYNTAX_ERROR: line 1 has a syntax error" in str(refused.value)
    assert getattr(refused.value, "code", -32803) == -32803
