"""Pull diagnostics (`textDocument/diagnostic`, `workspace/diagnostic`) beside the pushed ones,
with suppression comments and `sextant.toml`'s `[check]` table applied as everywhere else."""

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types

from conftest import open_doc, start


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def summary(items):
    return [
        (d.code, d.severity, d.message, (d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character))
        for d in items
    ]


async def pull(client, uri: str, previous: str | None = None):
    return await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri), previous_result_id=previous)
    )


@pytest.mark.asyncio
async def test_document_pull_reports_unchanged_until_the_text_changes(client, tmp_path):
    root = tmp_path / "ws"
    path = write(
        root,
        "app.py",
        "import os  # sextant: ignore[SX006]\nimport sys\nprint(missing)  # noqa: F401\n",
    )
    write(root, "sextant.toml", '[check]\nseverity = { undefined-name = "warning" }\n')
    result = await start(client, root)
    provider = result.capabilities.diagnostic_provider
    assert (provider.identifier, provider.inter_file_dependencies, provider.workspace_diagnostics) == ("sextant", True, True)
    uri = path.as_uri()

    first = await pull(client, uri)
    assert first.kind == "full"
    W = types.DiagnosticSeverity.Warning
    assert summary(first.items) == [
        ("SX006", W, "'sys' imported but unused", (1, 7, 1, 10)),
        ("SX005", W, "undefined name 'missing'", (2, 6, 2, 13)),
    ]
    assert list(first.items[0].tags) == [types.DiagnosticTag.Unnecessary]
    assert first.items[0].source == "sextant"
    # The package names no repository, so there is no honest link to give.
    assert all(d.code_description is None for d in first.items)
    assert all(d.related_information is None for d in first.items)
    assert first.result_id

    again = await pull(client, uri, first.result_id)
    assert (again.kind, again.result_id) == ("unchanged", first.result_id)

    # An editor's change is seen by the next pull, and the old id no longer stands.
    open_doc(client, path, "import os  # sextant: ignore[SX006]\nprint(missing)\n", "python")
    changed = await pull(client, uri, first.result_id)
    assert changed.kind == "full"
    assert changed.result_id != first.result_id
    assert summary(changed.items) == [("SX005", W, "undefined name 'missing'", (1, 6, 1, 13))]

    # A redefinition points at the earlier definition.
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="import sys\nimport sys\nprint(sys)\n")],
        )
    )
    redefined = await pull(client, uri)
    assert summary(redefined.items) == [("SX008", W, "redefinition of unused 'sys' from line 1", (1, 7, 1, 10))]
    [related] = redefined.items[0].related_information
    assert (related.location.uri, related.message) == (uri, "'sys' first defined here")
    assert (related.location.range.start.line, related.location.range.start.character) == (0, 7)

    # Pushed and pulled diagnostics are the same: the push for the last text ends equal to the pull.
    deadline = asyncio.get_running_loop().time() + 10
    while client.diagnostics.get(uri) != redefined.items:
        assert asyncio.get_running_loop().time() < deadline, client.diagnostics.get(uri)
        try:
            await asyncio.wait_for(client.wait_for_notification("textDocument/publishDiagnostics"), 1)
        except asyncio.TimeoutError:
            pass


@pytest.mark.asyncio
async def test_document_pull_of_an_unindexed_file_is_empty_and_outside_the_root_an_error(client, tmp_path):
    root = tmp_path / "ws"
    write(root, "a.py", "x = 1\n")
    notes = write(root, "notes.txt", "import os\n")
    await start(client, root)
    report = await pull(client, notes.as_uri())
    assert (report.kind, list(report.items)) == ("full", [])
    outside = write(tmp_path, "outside.py", "import os\n")
    with pytest.raises(Exception, match="not a document of this workspace"):
        await pull(client, outside.as_uri())


@pytest.mark.asyncio
async def test_workspace_pull_reports_files_with_diagnostics_and_what_the_client_holds(client, tmp_path):
    root = tmp_path / "ws"
    a = write(root, "a.py", "import os\n")
    b = write(root, "b.py", "print('clean')\n")
    c = write(root, "pkg/c.py", "print(undefined)\n")
    write(root, "tests/t.py", "print(undefined)\n")
    write(root, "sextant.toml", '[[check.overrides]]\npaths = ["tests/"]\nignore = ["SX005"]\n')
    await start(client, root)

    first = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    by_uri = {item.uri: item for item in first.items}
    assert sorted(by_uri) == sorted([a.as_uri(), c.as_uri()])
    assert all(item.kind == "full" for item in first.items)
    assert summary(by_uri[a.as_uri()].items) == [
        ("SX006", types.DiagnosticSeverity.Warning, "'os' imported but unused", (0, 7, 0, 9))
    ]
    assert summary(by_uri[c.as_uri()].items) == [
        ("SX005", types.DiagnosticSeverity.Error, "undefined name 'undefined'", (0, 6, 0, 15))
    ]

    # The same as a document pull of each file.
    for uri, item in by_uri.items():
        report = await pull(client, uri)
        assert (report.items, report.result_id) == (item.items, item.result_id)

    previous = [types.PreviousResultId(uri=uri, value=item.result_id) for uri, item in by_uri.items()]
    # b.py's result the client holds is stale: it gets an empty full report (clears it).
    previous.append(types.PreviousResultId(uri=b.as_uri(), value="stale"))
    second = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=previous))
    kinds = {item.uri: (item.kind, tuple(item.items) if item.kind == "full" else None) for item in second.items}
    assert kinds == {
        a.as_uri(): ("unchanged", None),
        c.as_uri(): ("unchanged", None),
        b.as_uri(): ("full", ()),
    }


@pytest.mark.asyncio
async def test_a_workspace_pull_with_nothing_new_is_held_until_the_workspace_changes(client, tmp_path):
    root = tmp_path / "ws"
    a = write(root, "a.py", "import os\n")
    b = write(root, "b.py", "print('clean')\n")
    await start(client, root)
    first = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    assert [item.uri for item in first.items] == [a.as_uri()]
    held = [types.PreviousResultId(uri=a.as_uri(), value=first.items[0].result_id)]

    # Every report would be `unchanged`: the answer waits (a client would ask again at once).
    waiting = asyncio.ensure_future(
        client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=held))
    )
    done, _ = await asyncio.wait([waiting], timeout=1.0)
    assert not done, "answered although nothing changed"

    # A file changes on disk: the held request is answered with what changed.
    write(root, "b.py", "print(missing)\n")
    report = await asyncio.wait_for(waiting, 10)
    kinds = {item.uri: (item.kind, summary(item.items) if item.kind == "full" else None) for item in report.items}
    assert kinds == {
        a.as_uri(): ("unchanged", None),
        b.as_uri(): ("full", [("SX005", types.DiagnosticSeverity.Error, "undefined name 'missing'", (0, 6, 0, 13))]),
    }

    # A held request that the client cancels is answered as cancelled.
    current = [types.PreviousResultId(uri=item.uri, value=item.result_id) for item in report.items]
    again = asyncio.wrap_future(
        client.protocol.send_request(
            types.WORKSPACE_DIAGNOSTIC, types.WorkspaceDiagnosticParams(previous_result_ids=current), msg_id="held-pull"
        )
    )
    done, _ = await asyncio.wait([again], timeout=1.0)
    assert not done, "answered although nothing changed"
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="held-pull"))
    with pytest.raises(Exception, match="cancelled while waiting for a change"):
        await asyncio.wait_for(again, 10)
