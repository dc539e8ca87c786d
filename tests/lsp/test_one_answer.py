"""One answer: the CLI, MCP and LSP give the same symbols for the same workspace, since all
three call the same `ide` functions."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import SEXTANT, open_doc, start

FILES = {
    "app/models.py": "class User:\n    def full_name(self):\n        return ''\n\n\ndef load_user(uid):\n    pass\n",
    "src/lib.rs": "pub struct Loader;\n\nimpl Loader {\n    pub fn load(&self) {}\n}\n\npub fn load_all() {}\n",
    "web/page.ts": "export function loadPage(): void {}\nexport class PageLoader {\n  load(): void {}\n}\n",
    "cmd/main.go": "package main\n\nfunc loadConfig() {}\n\nfunc main() {}\n",
}


@pytest.mark.asyncio
async def test_cli_mcp_and_lsp_agree(client, tmp_path):
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)

    cli = json.loads(
        subprocess.run([SEXTANT, "--root", str(root), "symbols", "load", "--json", "--limit", "100"], capture_output=True, text=True, check=True).stdout
    )
    # The CLI prints the full answer (spans); MCP gives lines by default; LSP locates names.
    cli_symbols = [(s["name"], s.get("container"), s["path"], s["span"]["start"]["line"]) for s in cli["symbols"]]
    cli_names = [(s["name"], s.get("container"), s["path"], s["name_span"]["start"]["line"]) for s in cli["symbols"]]
    assert cli_symbols == [
        ("load", "Loader", "src/lib.rs", 4),
        ("load", "PageLoader", "web/page.ts", 3),
        ("Loader", None, "src/lib.rs", 1),
        ("loadPage", None, "web/page.ts", 1),
        ("load_all", None, "src/lib.rs", 7),
        ("load_user", None, "app/models.py", 6),
        ("loadConfig", None, "cmd/main.go", 3),
        ("PageLoader", None, "web/page.ts", 2),
    ]

    params = StdioServerParameters(command=SEXTANT, args=["mcp", "--root", str(root)])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                mcp = (await session.call_tool("lookup_symbol", {"query": "load", "limit": 100})).structured_content
                mcp_outline = (await session.call_tool("outline", {"path": "src/lib.rs"})).structured_content
    mcp_symbols = [(s["name"], s.get("container"), s["path"], s["line"]) for s in mcp["symbols"]]
    assert mcp_symbols == cli_symbols

    await start(client, root)
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="load"))
    lsp_symbols = [
        (s.name, s.container_name, str(Path(s.location.uri.removeprefix("file://")).relative_to(root.resolve())), s.location.range.start.line + 1)
        for s in found
    ]
    assert lsp_symbols == cli_names

    cli_outline = json.loads(
        subprocess.run([SEXTANT, "--root", str(root), "outline", "src/lib.rs", "--json"], capture_output=True, text=True, check=True, cwd=root).stdout
    )

    def cli_tree(nodes):
        return [(n["name"], n["kind"], n["span"]["start"]["line"], n["span"]["end"]["line"], cli_tree(n.get("children", []))) for n in nodes]

    def mcp_tree(nodes):
        return [(n["name"], n["kind"], n["line"], n["end_line"], mcp_tree(n.get("children", []))) for n in nodes]

    assert mcp_tree(mcp_outline["symbols"]) == cli_tree(cli_outline["symbols"])
    assert mcp_outline["symbol_count"] == cli_outline["symbol_count"] == 4
    path = root / "src/lib.rs"
    open_doc(client, path, path.read_text(), "rust")
    doc_symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri()))
    )

    def tree(nodes):
        return [(n["name"], n["name_span"]["start"]["line"], tree(n.get("children", []))) for n in nodes]

    def lsp_tree(nodes):
        return [(n.name, n.selection_range.start.line + 1, lsp_tree(n.children or [])) for n in nodes]

    assert lsp_tree(doc_symbols) == tree(cli_outline["symbols"])
