"""Work-done progress for the first index, through pytest-lsp (which records `$/progress`
per token, and answers `window/workDoneProgress/create`)."""

import asyncio
import re
from pathlib import Path

import pytest
from lsprotocol import types

from conftest import start

TOKEN = "sextant/indexing"


def generate(root: Path, files: int = 400, functions: int = 60):
    """A workspace large enough for the load to take several throttle intervals."""
    for i in range(files):
        path = root / f"pkg{i % 20}" / f"module_{i}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(
            f"class Thing{i}_{j}:\n    def method_{j}(self, x):\n        return [x * k for k in range({j})]\n\n"
            for j in range(functions)
        )
        path.write_text(body)


async def progress_until_end(client, timeout: float = 120) -> list:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        reports = client.progress_reports.get(TOKEN, [])
        if any(isinstance(r, types.WorkDoneProgressEnd) for r in reports):
            return reports
        assert asyncio.get_running_loop().time() < deadline, f"no end of progress: {reports}"
        await asyncio.sleep(0.05)


@pytest.mark.asyncio
async def test_the_first_index_is_reported_begin_reports_end(client, tmp_path):
    root = tmp_path / "ws"
    generate(root)
    await start(client, root, progress=True)
    reports = await progress_until_end(client)

    kinds = [type(r).__name__ for r in reports]
    assert kinds[0] == "WorkDoneProgressBegin", kinds
    assert kinds[-1] == "WorkDoneProgressEnd", kinds
    assert kinds.count("WorkDoneProgressBegin") == 1 and kinds.count("WorkDoneProgressEnd") == 1, kinds
    assert set(kinds[1:-1]) <= {"WorkDoneProgressReport"}, kinds
    begin, middle, end = reports[0], reports[1:-1], reports[-1]
    assert (begin.title, begin.percentage, begin.cancellable) == ("sextant: indexing", 0, False)
    # There was progress to report, and it never went backwards.
    assert middle, kinds
    percentages = [begin.percentage] + [r.percentage for r in middle]
    assert percentages == sorted(percentages), percentages
    assert all(0 <= p <= 100 for p in percentages), percentages
    assert all(r.message.startswith(("reading ", "indexing ")) and r.message.endswith("/400 files") for r in middle), middle
    assert end.message.startswith("indexed in "), end.message
    # Nothing after the end, and the workspace is served.
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="Thing399_59"))
    assert [s.name for s in found][:1] == ["Thing399_59"]
    assert len(client.progress_reports[TOKEN]) == len(reports)


@pytest.mark.asyncio
async def test_no_progress_without_the_client_capability(client, tmp_path):
    root = tmp_path / "ws"
    generate(root, files=50, functions=2)
    await start(client, root, progress=False)
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="Thing49_1"))
    assert [s.name for s in found][:1] == ["Thing49_1"]
    assert client.progress_reports == {}


@pytest.mark.asyncio
async def test_several_folders_are_reported_as_one_progress(client, tmp_path):
    big, small = tmp_path / "big", tmp_path / "small"
    generate(big)
    generate(small, files=20, functions=2)
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True)),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name) for root in (big, small)],
        )
    )
    reports = await progress_until_end(client)
    kinds = [type(r).__name__ for r in reports]
    assert kinds.count("WorkDoneProgressBegin") == 1 and kinds.count("WorkDoneProgressEnd") == 1, kinds
    assert (kinds[0], kinds[-1]) == ("WorkDoneProgressBegin", "WorkDoneProgressEnd"), kinds
    middle, end = reports[1:-1], reports[-1]
    assert middle, kinds
    percentages = [r.percentage for r in middle]
    assert percentages == sorted(percentages) and all(0 <= p <= 100 for p in percentages), percentages
    # Each report names the first folder still loading, with that folder's own count.
    assert all(re.fullmatch(r"(big: (reading|indexing) \d+/400|small: (reading|indexing) \d+/20) files", r.message) for r in middle), middle
    assert re.fullmatch(r"big: indexed in \d+ ms; small: indexed in \d+ ms", end.message), end.message
