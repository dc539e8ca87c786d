"""Definitions, references and highlights through a real client; and one answer: the CLI,
MCP and LSP give the same reference locations."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import SEXTANT, open_doc, start

FILES = {
    "pkg/util.py": "def helper(x):\n    return x\n",
    "pkg/__init__.py": "from .util import helper as h\n",
    "main.py": "import pkg\nfrom pkg.util import helper\npkg.h(1)\nhelper(2)\nvalue = helper(3)\nprint(value)\n",
}


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def at(path: Path, line: int, character: int) -> types.TextDocumentPositionParams:
    return types.TextDocumentPositionParams(
        text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
        position=types.Position(line=line, character=character),
    )


def relative(root: Path, uri: str) -> str:
    return str(Path(uri.removeprefix("file://")).relative_to(root.resolve()))


@pytest.mark.asyncio
async def test_definition_references_and_highlights(client, tmp_path):
    root = workspace(tmp_path)
    await start(client, root)
    main = root / "main.py"
    open_doc(client, main, main.read_text(), "python")

    # `pkg.h(1)`: through the package's alias to the function.
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=at(main, 2, 4).text_document, position=at(main, 2, 4).position)
    )
    assert [(relative(root, l.uri), l.range.start.line, l.range.start.character) for l in found] == [("pkg/util.py", 0, 4)]

    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=at(main, 3, 0).text_document,
            position=at(main, 3, 0).position,
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert [(relative(root, l.uri), l.range.start.line, l.range.start.character) for l in refs] == [
        ("main.py", 1, 21),
        ("main.py", 2, 4),
        ("main.py", 3, 0),
        ("main.py", 4, 8),
        ("pkg/__init__.py", 0, 18),
        ("pkg/__init__.py", 0, 28),
    ]

    highlights = await client.text_document_document_highlight_async(
        types.DocumentHighlightParams(text_document=at(main, 5, 7).text_document, position=at(main, 5, 7).position)
    )
    assert [(h.range.start.line, h.range.start.character, h.kind) for h in highlights] == [
        (4, 0, types.DocumentHighlightKind.Write),
        (5, 6, types.DocumentHighlightKind.Read),
    ]


@pytest.mark.asyncio
async def test_cli_mcp_and_lsp_give_the_same_references(client, tmp_path):
    root = workspace(tmp_path)
    cli = json.loads(
        subprocess.run([SEXTANT, "--root", str(root), "refs", "pkg/util.py:1:5", "--json"], capture_output=True, text=True, check=True).stdout
    )
    cli_refs = [(r["path"], r["span"]["start"]["line"], r["span"]["start"]["column"]) for r in cli["references"]]
    assert len(cli_refs) == 7

    params = StdioServerParameters(command=SEXTANT, args=["mcp", "--root", str(root)])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                mcp = (await session.call_tool("find_references", {"path": "pkg/util.py", "line": 1, "column": 5})).structured_content
    assert [(r["path"], r["line"], r["column"]) for r in mcp["references"]] == cli_refs

    await start(client, root)
    util = root / "pkg/util.py"
    lsp = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=at(util, 0, 4).text_document,
            position=at(util, 0, 4).position,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert [(relative(root, l.uri), l.range.start.line + 1, l.range.start.character + 1) for l in lsp] == cli_refs


@pytest.mark.asyncio
async def test_hover_shows_signature_documentation_and_place(client, tmp_path):
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg/util.py").write_text('def helper(x):\n    """Doubles x."""\n    return 2 * x\n')
    main = root / "main.py"
    main.write_text("from pkg.util import helper\nhelper(2)\n")
    await start(client, root)
    open_doc(client, main, main.read_text(), "python")
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=at(main, 1, 2).text_document, position=at(main, 1, 2).position)
    )
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == "```python\ndef helper(x)\n```\n\nDoubles x.\n\n*pkg/util.py:1*"
    assert hover.range == types.Range(start=types.Position(line=1, character=0), end=types.Position(line=1, character=6))
    nothing = await client.text_document_hover_async(
        types.HoverParams(text_document=at(main, 0, 1).text_document, position=at(main, 0, 1).position)
    )
    assert nothing is None


@pytest.mark.asyncio
async def test_call_hierarchy_incoming_and_outgoing(client, tmp_path):
    root = tmp_path / "ws"
    root.mkdir(parents=True)
    (root / "util.py").write_text("def parse(text):\n    return text\n")
    app = root / "app.py"
    app.write_text("from util import parse\n\ndef load(path):\n    return parse(path)\n")
    await start(client, root)
    open_doc(client, app, app.read_text(), "python")
    items = await client.text_document_prepare_call_hierarchy_async(
        types.CallHierarchyPrepareParams(text_document=at(app, 3, 12).text_document, position=at(app, 3, 12).position)
    )
    assert [(i.name, relative(root, i.uri), i.selection_range.start.line, i.kind) for i in items] == [
        ("parse", "util.py", 0, types.SymbolKind.Function)
    ]
    incoming = await client.call_hierarchy_incoming_calls_async(types.CallHierarchyIncomingCallsParams(item=items[0]))
    assert [(c.from_.name, [(r.start.line, r.start.character) for r in c.from_ranges]) for c in incoming] == [
        ("load", [(3, 11)])
    ]
    outgoing = await client.call_hierarchy_outgoing_calls_async(types.CallHierarchyOutgoingCallsParams(item=incoming[0].from_))
    assert [(c.to.name, [(r.start.line, r.start.character) for r in c.from_ranges]) for c in outgoing] == [
        ("parse", [(3, 11)])
    ]


TS_FILES = {
    "src/shapes.ts": (
        "export class Shape {\n"
        "  area(): number { return 0; }\n"
        "  describe(): string { return `${this.area()}`; }\n"
        "}\n"
        "export { Shape as Base };\n"
    ),
    "src/main.ts": (
        'import { Shape, Base } from "./shapes";\n'
        "function total(shape: Shape, other: Base): number {\n"
        "  return shape.area() + other.area();\n"
        "}\n"
        "new Shape().area();\n"
    ),
}


@pytest.mark.asyncio
async def test_typescript_definition_and_one_answer_everywhere(client, tmp_path):
    root = tmp_path / "ts"
    for rel, text in TS_FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    cli = json.loads(
        subprocess.run(
            [SEXTANT, "--root", str(root), "refs", "src/shapes.ts:2:3", "--json"], capture_output=True, text=True, check=True
        ).stdout
    )
    cli_refs = [(r["path"], r["span"]["start"]["line"], r["span"]["start"]["column"], r["role"]) for r in cli["references"]]
    # `other: Base` is a Shape through the aliased re-export; `new Shape()` makes one.
    assert cli_refs == [
        ("src/main.ts", 3, 16, "call"),
        ("src/main.ts", 3, 31, "call"),
        ("src/main.ts", 5, 13, "call"),
        ("src/shapes.ts", 2, 3, "definition"),
        ("src/shapes.ts", 3, 39, "call"),
    ]
    assert all(r["certainty"] == "exact" for r in cli["references"])

    params = StdioServerParameters(command=SEXTANT, args=["mcp", "--root", str(root)])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                mcp = (await session.call_tool("find_references", {"query": "Shape.area"})).structured_content
                mcp_def = (await session.call_tool("find_definition", {"path": "src/main.ts", "line": 3, "column": 31})).structured_content
    assert [(r["path"], r["line"], r["column"], r["role"]) for r in mcp["references"]] == cli_refs
    assert mcp_def == {"definitions": [{"name": "area", "kind": "function", "path": "src/shapes.ts", "line": 2}]}

    await start(client, root)
    main = root / "src/main.ts"
    open_doc(client, main, main.read_text(), "typescript")
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=at(main, 2, 30).text_document, position=at(main, 2, 30).position)
    )
    assert [(relative(root, l.uri), l.range.start.line, l.range.start.character) for l in found] == [("src/shapes.ts", 1, 2)]
    lsp = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=at(main, 2, 30).text_document,
            position=at(main, 2, 30).position,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert [(relative(root, l.uri), l.range.start.line + 1, l.range.start.character + 1) for l in lsp] == [r[:3] for r in cli_refs]
