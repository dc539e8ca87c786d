"""Progress of the first index, reported to clients that send a progress token."""

from pathlib import Path

import pytest

from conftest import stdio_session, write

pytestmark = pytest.mark.anyio

FILES = 3000


def big_workspace(root: Path) -> Path:
    for i in range(FILES):
        write(root, f"pkg{i % 30}/m{i}.py", f"class Widget{i}:\n    def area(self):\n        return {i}\n" * 5)
    return root


async def test_a_call_waiting_for_the_first_index_reports_its_progress(tmp_path):
    root = big_workspace(tmp_path / "ws")
    seen = []

    async def on_progress(progress, total, message):
        seen.append((progress, total, message))

    async with stdio_session(root) as session:
        # (`lookup_symbol` would answer from the shards indexed so far instead of waiting.)
        result = await session.call_tool(
            "find_references", {"query": "Widget2999", "limit": 1}, progress_callback=on_progress
        )
        assert not result.is_error, result.content
        assert result.structured_content["definitions"][0]["name"] == "Widget2999"
        # Later calls find the index ready: nothing to report.
        later = []

        async def on_later(progress, total, message):
            later.append(progress)

        await session.call_tool("lookup_symbol", {"query": "Widget1"}, progress_callback=on_later)
        assert later == []

    assert seen, "no progress was reported while the index was built"
    assert all(total == 2 * FILES for _, total, _ in seen), seen
    progresses = [p for p, _, _ in seen]
    assert progresses == sorted(progresses), progresses
    assert all(0 <= p <= 2 * FILES for p in progresses)
    for progress, _, message in seen:
        phase, done, _, total, _ = message.split(" ")
        assert phase in ("reading", "indexing") and total == str(FILES), message
        assert progress == int(done) + (FILES if phase == "indexing" else 0), (progress, message)
