"""`textDocument/prepareRename` and `textDocument/rename` through a real client: the
capability, the name's range, a cross-file `WorkspaceEdit` that keeps an alias, an unsaved
document renamed as the editor holds it, and refusals as `RequestFailed` errors naming the
code and each conflicting place."""

from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from conftest import open_doc, start

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


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


def edits_by_file(root: Path, edit: types.WorkspaceEdit) -> dict:
    return {
        str(Path(uri.removeprefix("file://")).relative_to(root.resolve())): sorted(
            (e.range.start.line, e.range.start.character, e.range.end.character, e.new_text) for e in edits
        )
        for uri, edits in edit.changes.items()
    }


@pytest.mark.asyncio
async def test_rename_across_files_keeps_the_alias(client, tmp_path):
    root = workspace(tmp_path)
    result = await start(client, root)
    assert result.capabilities.rename_provider.prepare_provider is True
    main = root / "main.py"
    open_doc(client, main, main.read_text(), "python")

    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc(main), position=types.Position(line=3, character=2))
    )
    assert (prepared.start.line, prepared.start.character, prepared.end.character) == (3, 0, 6)

    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(main), position=types.Position(line=3, character=2), new_name="assist")
    )
    assert edits_by_file(root, edit) == {
        "main.py": [(1, 21, 27, "assist"), (3, 0, 6, "assist"), (4, 8, 14, "assist")],
        "pkg/__init__.py": [(0, 18, 24, "assist")],
        "pkg/util.py": [(0, 4, 10, "assist")],
    }
    # The server never writes: the client applies the edit.
    assert (root / "pkg/util.py").read_text() == FILES["pkg/util.py"]


@pytest.mark.asyncio
async def test_an_unsaved_document_is_renamed_as_the_editor_holds_it(client, tmp_path):
    root = workspace(tmp_path)
    await start(client, root)
    main = root / "main.py"
    # Unsaved: two lines inserted above, and a new use of `value`.
    open_doc(client, main, "# a\n# b\n" + FILES["main.py"] + "print(value + 1)\n", "python")
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(main), position=types.Position(line=6, character=0), new_name="result")
    )
    assert edits_by_file(root, edit) == {
        "main.py": [(6, 0, 5, "result"), (7, 6, 11, "result"), (8, 6, 11, "result")],
    }


@pytest.mark.asyncio
async def test_refusals_are_request_failed_with_the_code_and_places(client, tmp_path):
    root = workspace(tmp_path)
    await start(client, root)
    main = root / "main.py"
    open_doc(client, main, main.read_text(), "python")

    with pytest.raises(JsonRpcException) as conflict:
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc(main), position=types.Position(line=4, character=0), new_name="helper")
        )
    assert conflict.value.code == -32803
    assert conflict.value.message.splitlines() == [
        "RENAME_CONFLICT: renaming `value` to `helper` would change what 5 names mean",
        "main.py:2:22: `helper` is already defined here, in the same scope",
        "main.py:4:1: this `helper` would refer to the renamed `value` instead",
        "main.py:5:1: this use of `value` would be captured by another `helper` (defined in pkg/util.py)",
        "main.py:5:9: this `helper` would refer to the renamed `value` instead",
        "main.py:6:7: this use of `value` would be captured by another `helper` (defined in pkg/util.py)",
    ]

    with pytest.raises(JsonRpcException) as keyword:
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc(main), position=types.Position(line=3, character=0), new_name="while")
        )
    assert (keyword.value.code, keyword.value.message) == (-32803, "INVALID_NAME: `while` is a Python keyword")

    with pytest.raises(JsonRpcException) as nothing:
        await client.text_document_prepare_rename_async(
            types.PrepareRenameParams(text_document=doc(main), position=types.Position(line=3, character=7))
        )
    assert nothing.value.code == -32803
    assert nothing.value.message.startswith("NO_SYMBOL")

    with pytest.raises(JsonRpcException) as module:
        await client.text_document_prepare_rename_async(
            types.PrepareRenameParams(text_document=doc(main), position=types.Position(line=0, character=8))
        )
    assert module.value.message == "NOT_RENAMEABLE: `pkg` names a module: renaming it means renaming its file"


@pytest.mark.asyncio
async def test_cli_mcp_and_lsp_rename_alike(client, tmp_path):
    """One answer: the three front ends propose the same edits for the same rename."""
    import json
    import os
    import subprocess

    from mcp import ClientSession, StdioServerParameters, stdio_client

    from conftest import SEXTANT

    root = workspace(tmp_path)
    cli = json.loads(
        subprocess.run(
            [SEXTANT, "--root", str(root), "--json", "rename", "main.py:4:1", "assist"],
            capture_output=True, text=True, check=True,
        ).stdout
    )
    cli_edits = sorted((e["path"], e["span"]["start"]["line"], e["span"]["start"]["column"]) for e in cli["edits"])
    assert cli_edits == [("main.py", 2, 22), ("main.py", 4, 1), ("main.py", 5, 9), ("pkg/__init__.py", 1, 19), ("pkg/util.py", 1, 5)]

    params = StdioServerParameters(command=SEXTANT, args=["mcp", "--root", str(root)])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (r, w):
            async with ClientSession(r, w) as session:
                await session.initialize()
                answer = await session.call_tool(
                    "rename_symbol", {"path": "main.py", "line": 4, "column": 1, "new_name": "assist"}
                )
    mcp_edits = sorted((e["path"], e["line"], e["column"]) for e in answer.structured_content["edits"])
    assert mcp_edits == cli_edits

    await start(client, root)
    main = root / "main.py"
    open_doc(client, main, main.read_text(), "python")
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(main), position=types.Position(line=3, character=0), new_name="assist")
    )
    lsp_edits = sorted(
        (path, line + 1, character + 1) for path, edits in edits_by_file(root, edit).items() for line, character, _, _ in edits
    )
    assert lsp_edits == cli_edits


@pytest.mark.asyncio
async def test_a_file_reached_by_two_paths_gets_one_entry(client, tmp_path):
    # A regression: the index held main.py and its symlink as two files, so the edit named
    # both and an editor that resolves links applied it twice (`surfaceace`).
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "geo.py").write_text("def surf(x):\n    return x\n")
    (root / "main.py").write_text("from geo import surf\nprint(surf(1))\n")
    (root / "pkg/user.py").write_text("from geo import surf\n")
    (root / "main_link.py").symlink_to("main.py")
    (root / "pkg_link").symlink_to("pkg", target_is_directory=True)
    await start(client, root)
    # Opened through the link, as an editor following it would.
    link = root / "main_link.py"
    open_doc(client, link, link.read_text(), "python")
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(link), position=types.Position(line=1, character=7), new_name="surface")
    )
    assert edits_by_file(root, edit) == {
        "geo.py": [(0, 4, 8, "surface")],
        "main.py": [(0, 16, 20, "surface"), (1, 6, 10, "surface")],
        "pkg/user.py": [(0, 16, 20, "surface")],
    }


@pytest.mark.asyncio
async def test_a_rename_that_adds_errors_is_refused_with_them(client, tmp_path):
    # An editor applies what it is given, so the LSP always refuses a rename whose renamed
    # files would have new errors (`refuse`, the CLI's and MCP's default: one rule in `ide`).
    # The shorthand property `{ area }` becomes `{ size }` next to a `size:` key.
    (tmp_path / "geo.js").write_text("export function area(w, h) {\n  return w * h;\n}\n")
    main = tmp_path / "main.js"
    main.write_text('import { area } from "./geo";\n\nexport const shapes = { area, size: 2 };\n')
    await start(client, tmp_path)
    open_doc(client, main, main.read_text(), "javascript")
    with pytest.raises(JsonRpcException) as refused:
        await client.text_document_rename_async(
            types.RenameParams(text_document=doc(main), position=types.Position(line=0, character=9), new_name="size")
        )
    assert refused.value.code == -32803
    assert refused.value.message.splitlines() == [
        "NEW_DIAGNOSTICS: the renamed files would have new errors",
        "main.js:3:31: SX009 duplicate key 'size' in object literal",
    ]


@pytest.mark.asyncio
async def test_a_rename_that_adds_only_warnings_is_given_to_the_editor(client, tmp_path):
    # The rename leaves the type comment alone, so the renamed import becomes unused: a new
    # warning, which does not refuse the rename.
    (tmp_path / "models.py").write_text("class Model:\n    pass\n")
    user = tmp_path / "user.py"
    user.write_text("from models import Model\n\ndef load(path):\n    # type: (str) -> Model\n    return None\n")
    await start(client, tmp_path)
    open_doc(client, user, user.read_text(), "python")
    edit = await client.text_document_rename_async(
        types.RenameParams(text_document=doc(user), position=types.Position(line=0, character=19), new_name="Record")
    )
    assert edits_by_file(tmp_path, edit) == {
        "models.py": [(0, 6, 11, "Record")],
        "user.py": [(0, 19, 24, "Record")],
    }
