"""Several workspace folders in one server: each folder a root of its own (its index and
`sextant.toml`), a document answered by the folder holding it, `workspace/symbol` and
`workspace/diagnostic` asked of every folder and merged."""

from pathlib import Path

import pytest
from lsprotocol import types

from conftest import RawLsp, open_doc, wait_diagnostics

REQUEST_CANCELLED = -32800

PYTHON = {
    "models.py": "def load(x):\n    return x\n\n\ndef load_many(xs):\n    return [load(x) for x in xs]\n",
    "main.py": "import os\nfrom models import load\n\nload(1)\n",
}
TYPESCRIPT = {
    "lib.ts": "export function load(x: number): number {\n  return x;\n}\n\nexport function loadAll(): void {}\n",
    "app.ts": 'import { load } from "./lib";\nimport { loadAll } from "./lib";\n\nload(2);\n',
    # This folder's own settings: an unused import is an error here, a warning in the other.
    "sextant.toml": '[check]\nseverity = { unused-import = "error" }\n',
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root.resolve()


async def start_folders(client, *roots: Path):
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name) for root in roots],
        )
    )


def where(roots: dict[str, Path], uri: str) -> tuple[str, str]:
    """(folder name, path in it) of a URI, by the deepest folder holding it."""
    path = Path(uri.removeprefix("file://"))
    name, root = max(((n, r) for n, r in roots.items() if path.is_relative_to(r)), key=lambda nr: len(nr[1].parts))
    return name, str(path.relative_to(root))


def at(path: Path, line: int, character: int):
    return types.TextDocumentIdentifier(uri=path.as_uri()), types.Position(line=line, character=character)


def summary(items):
    return [(d.code, d.severity, d.message, (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character)) for d in items]


@pytest.mark.asyncio
async def test_each_folder_answers_for_its_own_documents(client, tmp_path):
    py = write(tmp_path / "py", PYTHON)
    ts = write(tmp_path / "ts", TYPESCRIPT)
    roots = {"py": py, "ts": ts}
    result = await start_folders(client, py, ts)
    folders = result.capabilities.workspace.workspace_folders
    assert (folders.supported, folders.change_notifications) == (True, True)

    # Every folder's matches, ranked as each folder ranks them, ties in the folders' order.
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="load"))
    assert [(s.name, s.kind, *where(roots, s.location.uri), s.location.range.start.line) for s in found] == [
        ("load", types.SymbolKind.Function, "py", "models.py", 0),
        ("load", types.SymbolKind.Function, "ts", "lib.ts", 0),
        ("loadAll", types.SymbolKind.Function, "ts", "lib.ts", 4),
        ("load_many", types.SymbolKind.Function, "py", "models.py", 4),
    ]

    # Definitions resolve within each folder: `load` is defined in both.
    main, app = py / "main.py", ts / "app.ts"
    open_doc(client, main, PYTHON["main.py"], "python")
    open_doc(client, app, TYPESCRIPT["app.ts"], "typescript")
    for path, line, expected in [(main, 3, ("py", "models.py", 0, 4)), (app, 3, ("ts", "lib.ts", 0, 16))]:
        document, position = at(path, line, 1)
        found = await client.text_document_definition_async(types.DefinitionParams(text_document=document, position=position))
        assert [(*where(roots, l.uri), l.range.start.line, l.range.start.character) for l in found] == [expected]

    # References stay within the folder of the name.
    for path, expected in [
        (py / "models.py", [("py", "main.py", 1, 19), ("py", "main.py", 3, 0), ("py", "models.py", 0, 4), ("py", "models.py", 5, 12)]),
        (ts / "lib.ts", [("ts", "app.ts", 0, 9), ("ts", "app.ts", 3, 0), ("ts", "lib.ts", 0, 16)]),
    ]:
        document, position = at(path, 0, {"py": 4, "ts": 16}[where(roots, path.as_uri())[0]])
        refs = await client.text_document_references_async(
            types.ReferenceParams(text_document=document, position=position, context=types.ReferenceContext(include_declaration=True))
        )
        assert sorted((*where(roots, l.uri), l.range.start.line, l.range.start.character) for l in refs) == expected

    # Each document's diagnostics, under its own folder's `sextant.toml`.
    W, E = types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Error
    published = await wait_diagnostics(client, app.as_uri(), lambda d: len(d) > 0)
    assert summary(published) == [("SX006", E, "'loadAll' imported from './lib' but unused", (1, 9, 1, 16))]
    published = await wait_diagnostics(client, main.as_uri(), lambda d: len(d) > 0)
    assert summary(published) == [("SX006", W, "'os' imported but unused", (0, 7, 0, 9))]

    # The workspace pull gives both folders' files.
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    assert sorted((*where(roots, item.uri), [d.code for d in item.items]) for item in report.items) == [
        ("py", "main.py", ["SX006"]),
        ("ts", "app.ts", ["SX006"]),
    ]

    # A document outside every folder is refused, as on a server of one folder.
    outside = tmp_path / "elsewhere.py"
    document, position = at(outside, 0, 0)
    with pytest.raises(Exception, match="is not a document of this workspace"):
        await client.text_document_hover_async(types.HoverParams(text_document=document, position=position))


@pytest.mark.asyncio
async def test_nested_folders_answer_each_file_once(client, tmp_path):
    outer = write(tmp_path / "outer", {"a.py": "def alpha():\n    pass\n"})
    inner = write(tmp_path / "outer" / "inner", {"b.py": "def alpha():\n    pass\n\nalpha()\n"})
    roots = {"outer": outer, "inner": inner}
    await start_folders(client, outer, inner)
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="alpha"))
    assert [(s.name, *where(roots, s.location.uri), s.location.range.start.line) for s in found] == [
        ("alpha", "outer", "a.py", 0),
        ("alpha", "inner", "b.py", 0),
    ]
    # A document of the inner folder is the inner folder's: its references are found there.
    document, position = at(inner / "b.py", 3, 0)
    refs = await client.text_document_references_async(
        types.ReferenceParams(text_document=document, position=position, context=types.ReferenceContext(include_declaration=True))
    )
    assert sorted((*where(roots, l.uri), l.range.start.line) for l in refs) == [("inner", "b.py", 0), ("inner", "b.py", 3)]


def test_a_question_of_every_folder_is_cancelled_and_shutdown_ends_them_all(tmp_path):
    py = write(tmp_path / "py", {"a.py": "def served():\n    pass\n"})
    ts = write(tmp_path / "ts", {"b.ts": "export function served(): void {}\n"})
    server = RawLsp(env={"SEXTANT_TEST_DELAY_MS": "workspace/symbol:60000"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (py, ts)]
        answer = server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        assert answer["result"]["capabilities"]["workspace"] == {"workspaceFolders": {"supported": True, "changeNotifications": True}}, answer
        server.notify("initialized", {})
        server.send({"id": 2, "method": "workspace/symbol", "params": {"query": "served"}})
        server.wait_for_stderr("test delay: workspace/symbol started, 6000 steps (request 2)")
        server.notify("$/cancelRequest", {"id": 2})
        assert server.response(2)["error"] == {"code": REQUEST_CANCELLED, "message": "cancelled"}
        server.wait_for_stderr("test delay: workspace/symbol stopped by cancellation")
        server.shut_down()
    finally:
        server.kill()


CONTENT_MODIFIED = -32801
INTERNAL_ERROR = -32603


@pytest.mark.parametrize(
    "method, params",
    [("workspace/symbol", {"query": "load"}), ("workspace/diagnostic", {"previousResultIds": []})],
)
def test_a_folders_failure_answers_at_once_and_stops_the_other_folders_parts(tmp_path, method, params):
    # `slow` comes first in order: its part, stopped, must not answer for the request.
    slow = write(tmp_path / "slow", PYTHON)
    broken = write(tmp_path / "broken", TYPESCRIPT)
    server = RawLsp(env={"SEXTANT_TEST_PART_DELAY_MS": "slow:60000", "SEXTANT_TEST_PART_FAIL": "broken"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (slow, broken)]
        assert "result" in server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        server.notify("initialized", {})
        # The failure is the answer, not a cancellation (the client cancelled nothing), and
        # it comes before `slow`'s part could end (the answer waits for every part to end).
        server.send({"id": 2, "method": method, "params": params})
        assert server.response(2)["error"] == {
            "code": INTERNAL_ERROR,
            "message": f"{method} failed in broken (SEXTANT_TEST_PART_FAIL)",
        }
        # `slow`'s part was stopped: in its wait, or before it began if `broken` failed first.
        stderr = server.wait_for_stderr(f"test delay: {method} in slow stopped by cancellation")
        assert f"test delay: {method} in slow finished" not in stderr
        server.shut_down()
    finally:
        server.kill()


def folder(root: Path) -> types.WorkspaceFolder:
    return types.WorkspaceFolder(uri=root.as_uri(), name=root.name)


def change_folders(client, added=(), removed=()):
    client.workspace_did_change_workspace_folders(
        types.DidChangeWorkspaceFoldersParams(
            event=types.WorkspaceFoldersChangeEvent(added=[folder(r) for r in added], removed=[folder(r) for r in removed])
        )
    )


async def symbols(client, roots: dict[str, Path], query: str):
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=query))
    return [(s.name, *where(roots, s.location.uri)) for s in found]


@pytest.mark.asyncio
async def test_a_folder_added_at_run_time_is_served_with_the_editors_texts(client, tmp_path):
    py = write(tmp_path / "py", PYTHON)
    ts = write(tmp_path / "ts", TYPESCRIPT)
    roots = {"py": py, "ts": ts}
    await start_folders(client, py)
    assert await symbols(client, roots, "load") == [("load", "py", "models.py"), ("load_many", "py", "models.py")]

    # Opened while no folder holds it: nothing is published, and a request is refused.
    app = ts / "app.ts"
    edited = 'import { load } from "./lib";\nimport { loadAll } from "./lib";\n\nconst n = load(2);\n'
    open_doc(client, app, edited, "typescript")
    document, position = at(app, 3, 10)
    with pytest.raises(Exception, match="is not a document of this workspace"):
        await client.text_document_definition_async(types.DefinitionParams(text_document=document, position=position))

    change_folders(client, added=[ts])
    # The open document is checked in its new folder, under that folder's `sextant.toml`.
    published = await wait_diagnostics(client, app.as_uri(), lambda d: len(d) > 0)
    assert summary(published) == [
        ("SX006", types.DiagnosticSeverity.Error, "'loadAll' imported from './lib' but unused", (1, 9, 1, 16))
    ]
    # The editor's text, not the disk's: `load` is called at column 10 only there.
    found = await client.text_document_definition_async(types.DefinitionParams(text_document=document, position=position))
    assert [(*where(roots, l.uri), l.range.start.line, l.range.start.character) for l in found] == [("ts", "lib.ts", 0, 16)]
    assert await symbols(client, roots, "load") == [
        ("load", "py", "models.py"),
        ("load", "ts", "lib.ts"),
        ("loadAll", "ts", "lib.ts"),
        ("load_many", "py", "models.py"),
    ]

    # Adding a folder already served, or removing one that is not, changes nothing.
    change_folders(client, added=[ts, py], removed=[tmp_path / "never-added"])
    assert await symbols(client, roots, "load") == [
        ("load", "py", "models.py"),
        ("load", "ts", "lib.ts"),
        ("loadAll", "ts", "lib.ts"),
        ("load_many", "py", "models.py"),
    ]


@pytest.mark.asyncio
async def test_a_removed_folder_stops_and_its_diagnostics_are_cleared(client, tmp_path):
    py = write(tmp_path / "py", PYTHON)
    ts = write(tmp_path / "ts", TYPESCRIPT)
    roots = {"py": py, "ts": ts}
    await start_folders(client, py, ts)
    app = ts / "app.ts"
    open_doc(client, app, TYPESCRIPT["app.ts"], "typescript")
    published = await wait_diagnostics(client, app.as_uri(), lambda d: len(d) > 0)
    assert [d.code for d in published] == ["SX006"]

    change_folders(client, removed=[ts])
    assert list(await wait_diagnostics(client, app.as_uri(), lambda d: len(d) == 0)) == []
    assert await symbols(client, roots, "load") == [("load", "py", "models.py"), ("load_many", "py", "models.py")]
    document, position = at(app, 3, 1)
    with pytest.raises(Exception, match="is not a document of this workspace"):
        await client.text_document_hover_async(types.HoverParams(text_document=document, position=position))
    report = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    assert sorted((*where(roots, item.uri), [d.code for d in item.items]) for item in report.items) == [
        ("py", "main.py", ["SX006"]),
    ]

    # Served again, it picks the open document up again with the text the editor holds.
    change_folders(client, added=[ts])
    published = await wait_diagnostics(client, app.as_uri(), lambda d: len(d) > 0)
    assert [d.code for d in published] == ["SX006"]


@pytest.mark.asyncio
async def test_a_document_of_a_removed_folder_falls_back_to_the_folder_holding_it(client, tmp_path):
    outer = write(tmp_path / "outer", {"sextant.toml": '[check]\nseverity = { unused-import = "error" }\n'})
    inner = write(tmp_path / "outer" / "inner", {"b.py": "x = 1\n"})
    await start_folders(client, outer, inner)
    b = inner / "b.py"
    open_doc(client, b, "import os\n", "python")
    W, E = types.DiagnosticSeverity.Warning, types.DiagnosticSeverity.Error
    published = await wait_diagnostics(client, b.as_uri(), lambda d: len(d) > 0)
    assert summary(published) == [("SX006", W, "'os' imported but unused", (0, 7, 0, 9))]

    # The outer folder holds it now: checked there (its settings), on the editor's text.
    change_folders(client, removed=[inner])
    published = await wait_diagnostics(client, b.as_uri(), lambda d: [x.severity for x in d] == [E])
    assert summary(published) == [("SX006", E, "'os' imported but unused", (0, 7, 0, 9))]
    symbols_found = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=b.as_uri()))
    )
    assert symbols_found == []


@pytest.mark.asyncio
async def test_a_folder_that_cannot_be_served_is_said_and_the_others_go_on(client, tmp_path):
    py = write(tmp_path / "py", PYTHON)
    broken = write(tmp_path / "broken", {"a.py": "def lost():\n    pass\n", "sextant.toml": "[check\n"})
    roots = {"py": py, "broken": broken}
    await start_folders(client, py)

    missing = tmp_path / "missing"
    change_folders(client, added=[missing])
    await client.wait_for_notification("window/showMessage")
    change_folders(client, added=[broken])
    await client.wait_for_notification("window/showMessage")
    assert [(m.type, m.message) for m in client.messages] == [
        (types.MessageType.Warning, f"sextant: cannot serve a workspace folder: {missing}: No such file or directory (os error 2)"),
        (
            types.MessageType.Warning,
            f"sextant: cannot load the workspace folder {broken}: {broken}/sextant.toml: unclosed table, expected `]`",
        ),
    ]
    assert await symbols(client, roots, "lo") == [("load", "py", "models.py"), ("load_many", "py", "models.py")]


def test_a_folder_still_indexing_holds_back_no_answer_and_can_be_removed(tmp_path):
    fast = write(tmp_path / "fast", {"a.py": "import os\n\n\ndef served():\n    pass\n"})
    # Two shards of the symbol index (256 files each): the slow folder stops after the first.
    many = {f"m{i:03}.py": f"import sys\n\n\ndef served_{i:03}():\n    pass\n" for i in range(300)}
    many["m000.py"] += "\n\ndef early():\n    pass\n"
    many["m299.py"] += "\n\ndef late():\n    pass\n"
    slow = write(tmp_path / "slow", many)
    server = RawLsp(env={"SEXTANT_TEST_LOAD_PAUSE_MS": "slow:600000"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (fast, slow)]
        answer = server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        assert "result" in answer, answer
        server.notify("initialized", {})
        # The slow folder answers from the shard it has built, the fast one in full.
        found = server.request(2, "workspace/symbol", {"query": "served"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found][:3] == [
            ("served", (fast / "a.py").as_uri()),
            ("served_000", (slow / "m000.py").as_uri()),
            ("served_001", (slow / "m001.py").as_uri()),
        ]
        found = server.request(3, "workspace/symbol", {"query": "early"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [("early", (slow / "m000.py").as_uri())]
        assert server.request(4, "workspace/symbol", {"query": "late"})["result"] == []
        # Diagnostics need the whole index: the slow folder is left out of the pull.
        report = server.request(5, "workspace/diagnostic", {"previousResultIds": []})["result"]
        assert [(item["uri"], [d["code"] for d in item["items"]]) for item in report["items"]] == [
            ((fast / "a.py").as_uri(), ["SX006"])
        ]
        # A request reading the slow folder waits for its index; removing the folder ends it.
        server.send({"id": 6, "method": "textDocument/hover", "params": {
            "textDocument": {"uri": (slow / "m000.py").as_uri()}, "position": {"line": 3, "character": 4},
        }})
        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [], "removed": [folders[1]]}})
        assert server.response(6)["error"] == {
            "code": CONTENT_MODIFIED,
            "message": "a workspace folder it reads was removed; ask again",
        }
        # Its workspace winds down off the main loop: the server goes on answering.
        found = server.request(7, "workspace/symbol", {"query": "served"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [("served", (fast / "a.py").as_uri())]
        # A pull with nothing new is held; a folder added gives it back, to be asked again.
        previous = [{"uri": (fast / "a.py").as_uri(), "value": report["items"][0]["resultId"]}]
        server.send({"id": 8, "method": "workspace/diagnostic", "params": {"previousResultIds": previous}})
        other = write(tmp_path / "other", {"c.py": "x = 1\n"})
        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [{"uri": other.as_uri(), "name": "other"}], "removed": []}})
        assert server.response(8)["error"] == {
            "code": -32802,
            "message": "the workspace folders changed; ask again",
            "data": {"retriggerRequest": True},
        }
        server.shut_down()
    finally:
        server.kill()


def test_a_held_pull_is_answered_when_a_folder_left_out_finishes_indexing(tmp_path):
    fast = write(tmp_path / "fast", {"a.py": "import os\n"})
    slow = write(tmp_path / "slow", {"b.py": "import sys\n"})
    server = RawLsp(env={"SEXTANT_TEST_LOAD_PAUSE_MS": "slow:3000"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (fast, slow)]
        assert "result" in server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        server.notify("initialized", {})
        a, b = (fast / "a.py").as_uri(), (slow / "b.py").as_uri()
        first = server.request(2, "workspace/diagnostic", {"previousResultIds": []})["result"]["items"]
        previous = [{"uri": item["uri"], "value": item["resultId"]} for item in first if item["uri"] == a]
        # Held while the slow folder indexes (or answered at once if it is done already).
        second = server.request(3, "workspace/diagnostic", {"previousResultIds": previous})["result"]["items"]
        assert sorted((item["uri"], item["kind"], [d["code"] for d in item.get("items", [])]) for item in second) == [
            (a, "unchanged", []),
            (b, "full", ["SX006"]),
        ]
        server.shut_down()
    finally:
        server.kill()


@pytest.mark.asyncio
async def test_an_added_folder_is_reported_in_a_progress_round_of_its_own(client, tmp_path):
    import asyncio
    import re

    py = write(tmp_path / "py", PYTHON)
    ts = write(tmp_path / "ts", TYPESCRIPT)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            workspace_folders=[folder(py)],
        )
    )

    async def ended(token: str) -> list:
        deadline = asyncio.get_running_loop().time() + 60
        while not any(isinstance(r, types.WorkDoneProgressEnd) for r in client.progress_reports.get(token, [])):
            assert asyncio.get_running_loop().time() < deadline, client.progress_reports
            await asyncio.sleep(0.05)
        return client.progress_reports[token]

    first = await ended("sextant/indexing")
    assert re.fullmatch(r"indexed in \d+ ms", first[-1].message), first[-1].message
    change_folders(client, added=[ts])
    round = await ended("sextant/indexing/1")
    kinds = [type(r).__name__ for r in round]
    assert (kinds[0], kinds[-1], kinds.count("WorkDoneProgressEnd")) == ("WorkDoneProgressBegin", "WorkDoneProgressEnd", 1)
    # Two folders are served now: the round names the one it reports on.
    assert re.fullmatch(r"ts: indexed in \d+ ms", round[-1].message), round[-1].message
    assert len(client.progress_reports["sextant/indexing"]) == len(first)


def test_with_root_the_folders_stay_as_given(tmp_path):
    py = write(tmp_path / "py", PYTHON)
    ts = write(tmp_path / "ts", TYPESCRIPT)
    server = RawLsp("--root", str(py))
    try:
        answer = server.request(1, "initialize", {"processId": None, "capabilities": {}})
        assert answer["result"]["capabilities"]["workspace"] == {"workspaceFolders": {"supported": True}}, answer
        server.notify("initialized", {})
        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [{"uri": ts.as_uri(), "name": "ts"}], "removed": []}})
        found = server.request(2, "workspace/symbol", {"query": "load"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [
            ("load", (py / "models.py").as_uri()),
            ("load_many", (py / "models.py").as_uri()),
        ]
        server.shut_down()
    finally:
        server.kill()


def test_a_folder_removed_while_indexing_stops_its_index_and_shutdown_stops_the_rest(tmp_path):
    fast = write(tmp_path / "fast", {"a.py": "def served():\n    pass\n"})
    many = {f"m{i:03}.py": f"def served_{i:03}():\n    pass\n" for i in range(300)}
    many["m000.py"] += "\n\ndef early():\n    pass\n"
    slow = write(tmp_path / "slow", many)
    # Ten minutes' pause after the slow folder's first shard: only a stop ends it sooner.
    server = RawLsp(env={"SEXTANT_TEST_LOAD_PAUSE_MS": "slow:600000"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (fast, slow)]
        assert "result" in server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        server.notify("initialized", {})
        # The slow folder has built its first shard, and is held in its first index.
        found = server.request(2, "workspace/symbol", {"query": "early"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [("early", (slow / "m000.py").as_uri())]

        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [], "removed": [folders[1]]}})
        # Said once its writer thread has ended, its index stopped with it.
        stderr = server.wait_for_stderr(f"the removed workspace folder {slow} has stopped")
        assert f"sextant: lsp: the removed workspace folder {slow} has stopped (its first index stopped before the end)\n" in stderr
        found = server.request(3, "workspace/symbol", {"query": "served"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [("served", (fast / "a.py").as_uri())]

        # Added again, it starts indexing again; `shutdown` and `exit` stop that index too.
        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [folders[1]], "removed": []}})
        found = server.request(4, "workspace/symbol", {"query": "early"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [("early", (slow / "m000.py").as_uri())]
        server.shut_down()
    finally:
        server.kill()


def test_a_question_of_every_folder_goes_on_without_a_folder_removed_meanwhile(tmp_path):
    py = write(tmp_path / "py", PYTHON)
    ts = write(tmp_path / "ts", TYPESCRIPT)
    server = RawLsp(env={"SEXTANT_TEST_DELAY_MS": "workspace/symbol:5000"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (py, ts)]
        assert "result" in server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        server.notify("initialized", {})
        server.send({"id": 2, "method": "workspace/symbol", "params": {"query": "load"}})
        server.wait_for_stderr("test delay: workspace/symbol started, 500 steps (request 2)")
        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [], "removed": [folders[1]]}})
        # Answered by the folder left, as if asked now: `ts` defines `load` and `loadAll` too.
        found = server.response(2)["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [
            ("load", (py / "models.py").as_uri()),
            ("load_many", (py / "models.py").as_uri()),
        ]
        assert "test delay: workspace/symbol finished (request 2)" in server.stderr
        server.shut_down()
    finally:
        server.kill()


def test_a_folder_removed_inside_another_one_asked_modifies_the_answer(tmp_path):
    outer = write(tmp_path / "outer", {"a.py": "def alpha():\n    pass\n"})
    inner = write(tmp_path / "outer" / "inner", {"b.py": "def alpha():\n    pass\n"})
    server = RawLsp(env={"SEXTANT_TEST_DELAY_MS": "workspace/symbol:5000"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (outer, inner)]
        assert "result" in server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        server.notify("initialized", {})
        server.send({"id": 2, "method": "workspace/symbol", "params": {"query": "alpha"}})
        server.wait_for_stderr("test delay: workspace/symbol started, 500 steps (request 2)")
        # The outer folder's part leaves `inner/b.py` to the inner folder: without it, the
        # answer would miss a file a folder still served holds.
        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [], "removed": [folders[1]]}})
        assert server.response(2)["error"] == {
            "code": CONTENT_MODIFIED,
            "message": "a workspace folder it reads was removed; ask again",
        }
        server.wait_for_stderr("test delay: workspace/symbol stopped by cancellation")
        # Asked again, the outer folder answers for the file.
        found = server.request(3, "workspace/symbol", {"query": "alpha"})["result"]
        assert [(s["name"], s["location"]["uri"]) for s in found] == [
            ("alpha", (outer / "a.py").as_uri()),
            ("alpha", (inner / "b.py").as_uri()),
        ]
        server.shut_down()
    finally:
        server.kill()


def test_removing_a_folder_leaves_the_other_folders_requests_alone(tmp_path):
    py = write(tmp_path / "py", PYTHON)
    ts = write(tmp_path / "ts", TYPESCRIPT)
    server = RawLsp(env={"SEXTANT_TEST_DELAY_MS": "textDocument/hover:5000", "SEXTANT_TEST_LSP_POOL": "2:16"})
    try:
        folders = [{"uri": root.as_uri(), "name": root.name} for root in (py, ts)]
        assert "result" in server.request(1, "initialize", {"processId": None, "capabilities": {}, "workspaceFolders": folders})
        server.notify("initialized", {})

        def hover(id, path: Path, line: int, character: int):
            position = {"textDocument": {"uri": path.as_uri()}, "position": {"line": line, "character": character}}
            server.send({"id": id, "method": "textDocument/hover", "params": position})

        hover(2, py / "main.py", 3, 0)
        hover(3, ts / "app.ts", 3, 0)
        server.wait_for_stderr("test delay: textDocument/hover started, 500 steps (request 2)")
        server.notify("workspace/didChangeWorkspaceFolders", {"event": {"added": [], "removed": [folders[1]]}})
        assert server.response(3)["error"] == {
            "code": CONTENT_MODIFIED,
            "message": "a workspace folder it reads was removed; ask again",
        }
        answer = server.response(2)["result"]
        assert answer["contents"]["value"].startswith("```python\ndef load(x)\n```"), answer
        assert "test delay: textDocument/hover finished (request 2)" in server.stderr
        server.shut_down()
    finally:
        server.kill()
