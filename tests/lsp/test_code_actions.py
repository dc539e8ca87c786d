"""`textDocument/codeAction` through a real client: a quick fix per diagnostic in the range
(named by the diagnostic exactly as published), `source.fixAll.sextant` and
`source.organizeImports.sextant` over the whole document, the `only` filter with LSP's
hierarchical kinds, positions in the negotiated encoding, versioned edits for clients that
take them, and nothing for what the server does not know."""

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from conftest import open_doc, start

UNUSED = "import os, sys\nimport json\nprint(sys)\n"


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def capabilities(*, utf8: bool = False, document_changes: bool = False) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8] if utf8 else [types.PositionEncodingKind.Utf16]
        ),
        text_document=types.TextDocumentClientCapabilities(
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=["quickfix", "source"])
                ),
                is_preferred_support=True,
            )
        ),
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=document_changes)
        ),
    )


async def start_with_actions(client, root: Path, **options):
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities(**options),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )


def pos(line: int, character: int) -> types.Position:
    return types.Position(line=line, character=character)


async def actions(client, path: Path, start=(0, 0), end=None, only=None):
    """The actions for the range `start..end` (a cursor when no end), as a list."""
    end = end or start
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            range=types.Range(start=pos(*start), end=pos(*end)),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return None if found is None else list(found)


def offset(text: str, position: types.Position, utf8: bool) -> int:
    """The index in `text` of an LSP position, columns counted in the negotiated encoding."""
    lines = text.splitlines(keepends=True)
    at = sum(len(line) for line in lines[: position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= position.character:
            return at + i
        units += len(ch.encode("utf-8")) if utf8 else len(ch.encode("utf-16-le")) // 2
    return at + len(line)


def apply(text: str, edits, utf8: bool = False) -> str:
    """`text` with LSP TextEdits applied, as a client applies them (all against `text`)."""
    spans = sorted(
        ((offset(text, e.range.start, utf8), offset(text, e.range.end, utf8), e.new_text) for e in edits),
        reverse=True,
    )
    for first, last, new in spans:
        text = text[:first] + new + text[last:]
    return text


def edits_of(action: types.CodeAction, path: Path):
    """The edits of an action's `changes` for `path`, checking they touch nothing else."""
    assert action.edit.document_changes is None
    assert list(action.edit.changes) == [path.as_uri()]
    return list(action.edit.changes[path.as_uri()])


async def published(client, uri: str, timeout=10.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while uri not in client.diagnostics:
        remaining = deadline - asyncio.get_running_loop().time()
        assert remaining > 0, f"no diagnostics published for {uri}"
        try:
            await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), remaining)
        except TimeoutError:
            pass
    return client.diagnostics[uri]


@pytest.mark.asyncio
async def test_a_quick_fix_for_the_diagnostic_under_the_cursor(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "app.py", UNUSED)
    result = await start_with_actions(client, root)
    provider = result.capabilities.code_action_provider
    assert list(provider.code_action_kinds) == ["quickfix", "source.fixAll.sextant", "source.organizeImports.sextant"]
    assert provider.resolve_provider is False
    open_doc(client, path, UNUSED, "python")

    # The cursor inside `os`: its fix only.
    [action] = await actions(client, path, (0, 8), only=["quickfix"])
    assert action.title == "Remove unused import 'os'"
    assert action.kind == "quickfix"
    assert action.is_preferred is True
    # The diagnostic exactly as pushed and as pulled, so the client can match it.
    pushed = await published(client, path.as_uri())
    pulled = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )
    [diagnostic] = action.diagnostics
    assert diagnostic == pushed[0] == pulled.items[0]
    assert (diagnostic.code, diagnostic.message) == ("SX006", "'os' imported but unused")
    assert diagnostic.range == types.Range(start=pos(0, 7), end=pos(0, 9))
    edits = edits_of(action, path)
    assert edits == [types.TextEdit(range=types.Range(start=pos(0, 7), end=pos(0, 11)), new_text="")]
    assert apply(UNUSED, edits) == "import sys\nimport json\nprint(sys)\n"

    # A cursor right after a name is still on it; a selection over both imports gets both.
    [after] = await actions(client, path, (1, 11), only=["quickfix"])
    assert after.title == "Remove unused import 'json'"
    assert apply(UNUSED, edits_of(after, path)) == "import os, sys\nprint(sys)\n"
    both = await actions(client, path, (0, 0), (2, 0), only=["quickfix"])
    assert [a.title for a in both] == ["Remove unused import 'os'", "Remove unused import 'json'"]
    # A line with no diagnostic: nothing.
    assert await actions(client, path, (2, 3), only=["quickfix"]) == []


@pytest.mark.asyncio
async def test_fix_all_and_organize_imports_over_the_document(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "app.py", UNUSED)
    await start_with_actions(client, root)
    open_doc(client, path, UNUSED, "python")

    # Wherever the cursor is, and asked for by the parent kind.
    [fix_all] = await actions(client, path, (2, 0), only=["source.fixAll"])
    assert (fix_all.title, fix_all.kind) == ("Apply all safe fixes", "source.fixAll.sextant")
    assert fix_all.diagnostics is None and fix_all.is_preferred is None
    assert apply(UNUSED, edits_of(fix_all, path)) == "import sys\nprint(sys)\n"

    [organize] = await actions(client, path, (2, 0), only=["source.organizeImports"])
    assert (organize.title, organize.kind) == ("Remove unused imports", "source.organizeImports.sextant")
    assert apply(UNUSED, edits_of(organize, path)) == "import sys\nprint(sys)\n"

    # `source` stands for both; exact kinds match themselves; other kinds match nothing.
    assert [a.kind for a in await actions(client, path, only=["source"])] == [
        "source.fixAll.sextant",
        "source.organizeImports.sextant",
    ]
    assert [a.kind for a in await actions(client, path, only=["source.fixAll.sextant"])] == ["source.fixAll.sextant"]
    assert await actions(client, path, (0, 8), only=["refactor", "source.fix", "quick"]) == []
    # No `only`: every kind, the quick fixes first.
    assert [a.kind for a in await actions(client, path, (0, 8))] == [
        "quickfix",
        "source.fixAll.sextant",
        "source.organizeImports.sextant",
    ]


@pytest.mark.asyncio
@pytest.mark.parametrize("utf8", [False, True])
async def test_positions_in_the_negotiated_encoding(client, tmp_path, utf8):
    root = tmp_path / "ws"
    text = 's = "😀"; import os\nprint(s)\n'
    path = write(root, "emoji.py", text)
    await start_with_actions(client, root, utf8=utf8)
    open_doc(client, path, text, "python")
    width = (lambda s: len(s.encode("utf-8"))) if utf8 else (lambda s: len(s.encode("utf-16-le")) // 2)
    semicolon = width(text[: text.index(";")])
    os_start = width(text[: text.index("os\n")])
    assert (semicolon, os_start) == ((10, 19) if utf8 else (8, 17))

    [action] = await actions(client, path, (0, os_start + 1), only=["quickfix"])
    assert action.diagnostics[0].range == types.Range(start=pos(0, os_start), end=pos(0, os_start + 2))
    edits = edits_of(action, path)
    # The statement and the `; ` before it.
    assert edits == [types.TextEdit(range=types.Range(start=pos(0, semicolon), end=pos(0, os_start + 2)), new_text="")]
    assert apply(text, edits, utf8) == 's = "😀"\nprint(s)\n'

    [fix_all] = await actions(client, path, only=["source.fixAll"])
    assert apply(text, edits_of(fix_all, path), utf8) == 's = "😀"\nprint(s)\n'


@pytest.mark.asyncio
async def test_nothing_to_fix_is_an_empty_list(client, tmp_path):
    root = tmp_path / "ws"
    text = "import sys\nprint(sys)\nprint(missing)\n"
    path = write(root, "clean.py", text)
    await start_with_actions(client, root)
    open_doc(client, path, text, "python")
    # An undefined name is a diagnostic without a fix.
    assert [d.code for d in await published(client, path.as_uri())] == ["SX005"]
    assert await actions(client, path, (0, 0), (3, 0)) == []
    assert await actions(client, path, (2, 8), only=["quickfix", "source"]) == []


@pytest.mark.asyncio
async def test_unsafe_fixes_are_offered_but_not_preferred_nor_applied_by_source_actions(client, tmp_path):
    # An unused import in `__init__.py` may be a re-export: removing it is unsafe.
    root = tmp_path / "ws"
    text = "import os\n"
    path = write(root, "pkg/__init__.py", text)
    await start_with_actions(client, root)
    open_doc(client, path, text, "python")
    [action] = await actions(client, path, (0, 8))
    assert (action.title, action.kind, action.is_preferred) == ("Remove unused import 'os'", "quickfix", False)
    assert apply(text, edits_of(action, path)) == ""
    assert await actions(client, path, only=["source"]) == []


@pytest.mark.asyncio
async def test_an_import_another_file_imports_from_here_is_not_offered(client, tmp_path):
    # `check --fix` keeps it (removing it breaks `main.py`), and so does every action.
    root = tmp_path / "ws"
    write(root, "pkg/__init__.py", "")
    path = write(root, "pkg/mod.py", "import os\nimport sys\n")
    write(root, "main.py", "from pkg.mod import os\nprint(os)\n")
    await start_with_actions(client, root)
    open_doc(client, path, "import os\nimport sys\n", "python")
    assert [d.message for d in await published(client, path.as_uri())] == [
        "'os' imported but unused",
        "'sys' imported but unused",
    ]
    assert await actions(client, path, (0, 8), only=["quickfix"]) == []
    titles = [a.title for a in await actions(client, path, (0, 0), (2, 0))]
    assert titles == ["Remove unused import 'sys'", "Apply all safe fixes", "Remove unused imports"]
    for action in (await actions(client, path, only=["source"])):
        assert apply("import os\nimport sys\n", edits_of(action, path)) == "import os\n"


@pytest.mark.asyncio
async def test_edits_name_the_document_version_for_clients_that_take_them(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "app.py", "print(1)\n")
    await start_with_actions(client, root, document_changes=True)
    uri = path.as_uri()
    open_doc(client, path, "print(1)\n", "python", version=1)
    # Unsaved: the editor's text, version 7.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=7),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=UNUSED)],
        )
    )
    found = await actions(client, path, (0, 8), only=["quickfix", "source.fixAll"])
    assert [a.kind for a in found] == ["quickfix", "source.fixAll.sextant"]
    expected = ["import sys\nimport json\nprint(sys)\n", "import sys\nprint(sys)\n"]
    for action, text in zip(found, expected):
        assert action.edit.changes is None
        [document] = action.edit.document_changes
        assert (document.text_document.uri, document.text_document.version) == (uri, 7)
        assert apply(UNUSED, document.edits) == text


@pytest.mark.asyncio
async def test_documents_the_server_does_not_know_get_nothing(client, tmp_path):
    root = tmp_path / "ws"
    notes = write(root, "notes.txt", "import os\n")
    path = write(root, "app.py", UNUSED)
    await start_with_actions(client, root)
    open_doc(client, notes, "import os\n", "plaintext")
    assert await actions(client, notes, (0, 8)) is None
    # Not open and not on disk: not indexed either.
    assert await actions(client, root / "gone.py", (0, 0)) is None
    # On disk, not open: answered from the disk's text, unversioned.
    [action] = await actions(client, path, (0, 8), only=["quickfix"])
    assert apply(UNUSED, edits_of(action, path)) == "import sys\nimport json\nprint(sys)\n"


@pytest.mark.asyncio
async def test_a_client_that_takes_only_commands_gets_nothing(client, tmp_path):
    root = tmp_path / "ws"
    path = write(root, "app.py", UNUSED)
    await start(client, root)
    open_doc(client, path, UNUSED, "python")
    assert await actions(client, path, (0, 8)) is None


@pytest.mark.asyncio
async def test_go_and_typescript_fixes(client, tmp_path):
    root = tmp_path / "ws"
    go = 'package m\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc f() {\n\tx := g()\n\tfmt.Println()\n}\n'
    ts = "export function f(g: () => number, _b = 0) {\n  const a = 1;\n  const b = g();\n  return _b;\n}\n"
    write(root, "go.mod", "module example.com/m\n\ngo 1.19\n")
    go_path = write(root, "m.go", go)
    ts_path = write(root, "a.ts", ts)
    await start_with_actions(client, root)
    open_doc(client, go_path, go, "go")
    open_doc(client, ts_path, ts, "typescript")

    [fix_all] = await actions(client, go_path, only=["source.fixAll"])
    assert apply(go, edits_of(fix_all, go_path)) == (
        'package m\n\nimport (\n\t"fmt"\n)\n\nfunc f() {\n\t_ = g()\n\tfmt.Println()\n}\n'
    )
    # `const b = g()` keeps its call (`_b` is taken, so it cannot be renamed): unsafe,
    # offered but not preferred nor applied by fix all.
    [fix_all] = await actions(client, ts_path, only=["source.fixAll"])
    assert apply(ts, edits_of(fix_all, ts_path)) == (
        "export function f(g: () => number, _b = 0) {\n  const b = g();\n  return _b;\n}\n"
    )
    [action] = await actions(client, ts_path, (2, 9), only=["quickfix"])
    assert (action.title, action.is_preferred) == ("Remove unused variable 'b'", False)
    assert apply(ts, edits_of(action, ts_path)) == (
        "export function f(g: () => number, _b = 0) {\n  const a = 1;\n  g();\n  return _b;\n}\n"
    )


@pytest.mark.asyncio
async def test_an_unused_variable_whose_value_has_effects_is_renamed_by_a_preferred_quick_fix(client, tmp_path):
    # Removing `const result = compute()` would release its object sooner (unsafe); naming it
    # `_result` keeps everything and is a safe fix, so fix-all applies it too.
    root = tmp_path / "ws"
    ts = "export function f(compute: () => number) {\n  const result = compute();\n  return 0;\n}\n"
    py = "def f(compute):\n    result = compute()\n    return 0\n"
    ts_path = write(root, "a.ts", ts)
    py_path = write(root, "m.py", py)
    await start_with_actions(client, root)
    open_doc(client, ts_path, ts, "typescript")
    open_doc(client, py_path, py, "python")
    [action] = await actions(client, ts_path, (1, 10), only=["quickfix"])
    assert (action.title, action.is_preferred) == ("Rename unused variable 'result' to '_result'", True)
    assert edits_of(action, ts_path) == [
        types.TextEdit(range=types.Range(start=pos(1, 8), end=pos(1, 14)), new_text="_result")
    ]
    [fix_all] = await actions(client, ts_path, only=["source.fixAll"])
    assert apply(ts, edits_of(fix_all, ts_path)) == ts.replace("const result", "const _result")
    [action] = await actions(client, py_path, (1, 6), only=["quickfix"])
    assert (action.title, action.is_preferred) == ("Rename unused variable 'result' to '_'", True)
    assert apply(py, edits_of(action, py_path)) == "def f(compute):\n    _ = compute()\n    return 0\n"
