"""Deep diagnostics in the editor: the project's own type checker (tsc from the repository's
npm tools) runs after `textDocument/didSave`, never on an edit, only when enabled
(`initializationOptions.typecheck.deep` or `[typecheck] deep` in sextant.toml); its
diagnostics come with the tool as their source and its code, a save that fixes the error
clears them, and a newer save cancels a running check (its process group killed)."""

import asyncio
import os
import time
from pathlib import Path

import pytest
from lsprotocol import types

from conftest import REPO, ended, open_doc, wait_diagnostics

# A checker may be slow on a busy machine: a generous deadline, not a timing check.
CHECKER_TIMEOUT = 60.0

TSC = REPO / "target/npm-tools/node_modules/.bin/tsc"
needs_tsc = pytest.mark.skipif(not TSC.exists(), reason="scripts/test installs tsc under target/npm-tools")


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


async def start(client, root: Path, options=None):
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
            initialization_options=options,
        )
    )


def change(client, uri: str, version: int, text: str):
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def save(client, path: Path, text: str):
    """What an editor does: the text written to disk, then `didSave`."""
    path.write_text(text)
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=path.as_uri())))


def typescript_project(tmp_path: Path, text: str) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    write(root, "tsconfig.json", '{"compilerOptions": {"strict": true}}')
    path = write(root, "src/a.ts", text)
    (root / "node_modules/.bin").mkdir(parents=True)
    os.symlink(TSC, root / "node_modules/.bin/tsc")
    return root, path


def codes(diagnostics):
    return [(d.code, d.source) for d in diagnostics]


BROKEN = 'const s = "😀"; const n: number = "x";\nexport { s, n };\n'
FIXED = 'const s = "😀"; const n: number = 1;\nexport { s, n };\n'


@needs_tsc
@pytest.mark.asyncio
async def test_tsc_errors_after_a_save_only_then_cleared_by_a_fixing_save(client, tmp_path):
    root, path = typescript_project(tmp_path, BROKEN)
    await start(client, root, {"typecheck": {"deep": True}})
    uri = path.as_uri()
    open_doc(client, path, BROKEN, "typescript")
    # Opening and editing check with sextant's own checks only.
    await wait_diagnostics(client, uri, lambda d: len(d) == 0, timeout=CHECKER_TIMEOUT)
    change(client, uri, 2, BROKEN + "// edited\n")
    await wait_diagnostics(client, uri, lambda d: len(d) == 0, timeout=CHECKER_TIMEOUT)

    save(client, path, BROKEN + "// edited\n")
    [d] = await wait_diagnostics(client, uri, lambda d: len(d) == 1, timeout=CHECKER_TIMEOUT)
    assert (d.code, d.source, d.severity) == ("tsc:TS2322", "tsc", types.DiagnosticSeverity.Error)
    assert d.message == "Type 'string' is not assignable to type 'number'."
    # Line 1, after the emoji's two UTF-16 units: the client's encoding.
    assert d.range.start == types.Position(line=0, character=22)

    # An edit keeps the save's diagnostics (the checker has not run on the edit).
    change(client, uri, 3, FIXED)
    after_edit = await wait_diagnostics(client, uri, lambda d: True, timeout=CHECKER_TIMEOUT)
    assert codes(after_edit) == [("tsc:TS2322", "tsc")]
    save(client, path, FIXED)
    await wait_diagnostics(client, uri, lambda d: len(d) == 0, timeout=CHECKER_TIMEOUT)


@needs_tsc
@pytest.mark.asyncio
async def test_sextant_toml_enables_it_and_an_error_in_another_file_is_published_too(client, tmp_path):
    root, path = typescript_project(tmp_path, "export function f(x: number): number {\n  return x;\n}\n")
    write(root, "sextant.toml", "[typecheck]\ndeep = true\n")
    other = write(root, "src/b.ts", 'import { f } from "./a";\nexport const y = f(1);\n')
    await start(client, root)
    uri = path.as_uri()
    open_doc(client, path, path.read_text(), "typescript")
    await wait_diagnostics(client, uri, lambda d: len(d) == 0, timeout=CHECKER_TIMEOUT)
    # The saved file's new signature breaks the call in a file the editor has not opened.
    save(client, path, "export function f(x: string): number {\n  return x.length;\n}\n")
    [d] = await wait_diagnostics(client, other.as_uri(), lambda d: len(d) == 1, timeout=CHECKER_TIMEOUT)
    assert (d.code, d.source) == ("tsc:TS2345", "tsc")
    assert d.range.start == types.Position(line=1, character=19)
    assert d.message == "Argument of type 'number' is not assignable to parameter of type 'string'."


@pytest.mark.asyncio
async def test_nothing_runs_unless_enabled(client, tmp_path):
    root = tmp_path / "ws"
    marker = tmp_path / "ran"
    write(root, "tsconfig.json", "{}")
    path = write(root, "src/a.ts", "export const n = 1;\n")
    write(root, "sextant.toml", '[typecheck.programs]\ntsc = "./fake-tsc"\n')
    write(root, "fake-tsc", f"#!/bin/sh\ntouch {marker}\n").chmod(0o755)
    # sextant.toml enables nothing, and the client turns it off explicitly as well.
    await start(client, root, {"typecheck": {"deep": False}})
    uri = path.as_uri()
    open_doc(client, path, path.read_text(), "typescript")
    await wait_diagnostics(client, uri, lambda d: len(d) == 0, timeout=CHECKER_TIMEOUT)
    save(client, path, "export const n = 2;\n")
    # A request after the save is answered after it was handled, on the same loop.
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    await asyncio.sleep(1)
    assert not marker.exists()


@pytest.mark.asyncio
async def test_a_newer_save_cancels_the_running_check_and_kills_it(client, tmp_path):
    root = tmp_path / "ws"
    first, pid_file = tmp_path / "first", tmp_path / "sleep.pid"
    write(root, "tsconfig.json", "{}")
    path = write(root, "src/a.ts", "export const n = 1;\n")
    write(root, "sextant.toml", '[typecheck]\ndeep = true\n\n[typecheck.programs]\ntsc = "./fake-tsc"\n')
    # The first run hangs; the second reports an error.
    script = (
        "#!/bin/sh\n"
        f"if [ ! -e {first} ]; then touch {first}; sleep 100 & echo $! > {pid_file}; wait; fi\n"
        "echo \"src/a.ts(1,14): error TS2322: Type 'number' is not assignable to type 'string'.\"\n"
        "exit 2\n"
    )
    write(root, "fake-tsc", script).chmod(0o755)
    await start(client, root)
    uri = path.as_uri()
    open_doc(client, path, path.read_text(), "typescript")
    await wait_diagnostics(client, uri, lambda d: len(d) == 0, timeout=CHECKER_TIMEOUT)
    save(client, path, "export const n = 2;\n")
    deadline = time.monotonic() + 30
    while not pid_file.exists():
        assert time.monotonic() < deadline, "the first check never started"
        await asyncio.sleep(0.05)
    pid = int(pid_file.read_text())
    save(client, path, "export const n = 3;\n")
    [d] = await wait_diagnostics(client, uri, lambda d: len(d) == 1, timeout=CHECKER_TIMEOUT)
    assert (d.code, d.source, d.range.start) == ("tsc:TS2322", "tsc", types.Position(line=0, character=13))
    assert ended(pid), "the cancelled check's process is still running"
