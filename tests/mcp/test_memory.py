"""`--max-memory` through a real client: the server reports its resident memory and the
limit, keeps a generous limit, and pauses its background check under an over-tight one
while still answering (docs/memory.md)."""

import os

import anyio
import pytest

from conftest import stdio_session, wait_until_checked, wait_until_indexed, write

pytestmark = pytest.mark.anyio


def generated_tree(root, modules: int = 60):
    """A package of modules importing each other, with an unused import apiece."""
    for i in range(modules):
        lines = [f"import pkg.m{(i + 1) % modules} as nxt", "import os", ""]
        for j in range(20):
            lines += [f"def f{i}_{j}(x):", f"    return nxt.f{(i + 1) % modules}_{j}(x) + {j}", ""]
        write(root, f"pkg/m{i}.py", "\n".join(lines))
    write(root, "pkg/__init__.py", "")
    return root


async def status(session) -> dict:
    return (await session.call_tool("workspace_status", {})).structured_content


async def test_a_generous_limit_is_kept_and_reported(tmp_path):
    root = generated_tree(tmp_path / "ws")
    async with stdio_session(root, "--no-cache", "--max-memory", "2G") as session:
        checked = await wait_until_checked(session)
        memory = (await status(session))["memory"]
    assert checked["memory"]["check_paused"] is False
    assert memory["limit_bytes"] == 2 << 30
    # The check stops an eighth below the limit, leaving room for answers.
    assert memory["check_stops_at_bytes"] == (2 << 30) - (2 << 30) // 8
    assert memory["check_paused"] is False
    assert 0 < memory["resident_bytes"] <= memory["peak_bytes"] < memory["limit_bytes"]


async def test_an_over_tight_limit_pauses_the_background_check_but_answers(tmp_path):
    root = generated_tree(tmp_path / "ws")
    async with stdio_session(root, "--no-cache", "--max-memory", "1M") as session:
        await wait_until_indexed(session)
        for _ in range(300):
            current = await status(session)
            if current["memory"]["check_paused"]:
                break
            await anyio.sleep(0.1)
        assert current["memory"]["check_paused"] is True
        assert current["memory"]["limit_bytes"] == 1 << 20
        assert current["checked"] is False
        # Diagnostics are then computed when asked for: the same answer as unbounded.
        found = await session.call_tool("typecheck", {"file_paths": ["pkg/m0.py"]})
    assert not found.is_error
    assert [d["code"] for d in found.structured_content["diagnostics"]] == ["SX006"]


async def test_a_malformed_limit_is_a_usage_error(tmp_path):
    import subprocess

    from conftest import SEXTANT

    done = subprocess.run(
        [SEXTANT, "mcp", "--root", str(tmp_path), "--max-memory", "lots"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "`lots` is not a size (a number with K, M, G or T: `400M`)" in done.stderr


async def test_sextant_toml_sets_the_limit_and_a_bad_one_is_reported(tmp_path):
    root = generated_tree(tmp_path / "ws", modules=3)
    write(root, "sextant.toml", 'max_memory = "1M"\n')
    async with stdio_session(root, "--no-cache") as session:
        await wait_until_indexed(session)
        memory = (await status(session))["memory"]
        assert (memory["limit_bytes"], memory["check_stops_at_bytes"]) == (1 << 20, 7 << 17)
        # A new limit applies to the running server once it has read the change.
        write(root, "sextant.toml", 'max_memory = "2G"\n')
        for _ in range(300):
            memory = (await status(session))["memory"]
            if memory["limit_bytes"] != 1 << 20:
                break
            await anyio.sleep(0.1)
        assert (memory["limit_bytes"], memory["check_stops_at_bytes"]) == (2 << 30, 7 << 28)
    write(root, "sextant.toml", 'max_memory = "a lot"\n')
    async with stdio_session(root, "--no-cache") as session:
        current = await status(session)
    assert "`a lot` is not a size (a number with K, M, G or T: `400M`)" in current["config_error"]


async def wait_for_eviction(session, after: int) -> dict:
    """Polls `workspace_status` until the idle server has applied its bounds again."""
    for _ in range(300):
        current = await status(session)
        if current["evictions"] > after:
            return current
        await anyio.sleep(0.1)
    raise AssertionError("the server never applied its bounds")


async def read_whole(session, path: str) -> str:
    """A file's text as `read_file` answers it (one page: the files here are short)."""
    result = await session.call_tool("read_file", {"path": path})
    assert not result.is_error, result
    header, body = result.content[0].text.split("\n", 1)
    assert header == f"{path}:1-{result.structured_content['total_lines']}"
    fence, code = body.split("\n", 1)
    assert fence == "```python" and code.endswith("```\n")
    return code[: -len("```\n")]


async def test_texts_are_kept_compressed_once_indexed_and_read_back_whole(tmp_path):
    """Under a memory limit indexed texts are kept compressed (docs/memory.md); every
    answer reads them whole, an edited text is kept plain until the next idle moment
    compresses it again."""
    root = generated_tree(tmp_path / "ws", modules=4)
    write(root, "pkg/tiny.py", "X = 1\n")
    texts = {p.relative_to(root).as_posix(): p.read_text() for p in sorted(root.rglob("*.py"))}
    async with stdio_session(root, "--no-cache", "--no-background-check", "--max-memory", "4G") as session:
        ready = await wait_until_indexed(session)
        stats = ready["stats"] or (await status(session))["stats"]
        assert stats["bytes"] == sum(len(t) for t in texts.values())
        # The generated modules compress to under half; the tiny file (and the empty
        # `__init__.py`) stay plain.
        kept = stats["text_bytes_kept"]
        assert len(texts["pkg/tiny.py"]) < kept < stats["bytes"] // 2

        assert await read_whole(session, "pkg/m1.py") == texts["pkg/m1.py"]
        found = await session.call_tool("search", {"pattern": "def f1_7("})
        hits = [(f["path"], line["line"]) for f in found.structured_content["files"] for line in f["lines"]]
        assert hits == [("pkg/m1.py", 25)]

        edited = texts["pkg/m1.py"] + "\ndef added(x):\n    return x\n"
        write(root, "pkg/m1.py", edited)
        assert await read_whole(session, "pkg/m1.py") == edited
        after_edit = await status(session)
        # The edited text is plain until the server is idle: it now counts whole, where its
        # old text counted less than its length.
        grown = after_edit["stats"]["text_bytes_kept"] - kept
        assert grown > len(edited) - len(texts["pkg/m1.py"])
        idle = await wait_for_eviction(session, after_edit["evictions"])
        assert idle["stats"]["text_bytes_kept"] < after_edit["stats"]["text_bytes_kept"] - len(edited) // 2
        assert await read_whole(session, "pkg/m1.py") == edited
        found = await session.call_tool("search", {"pattern": "def added("})
        hits = [(f["path"], line["line"]) for f in found.structured_content["files"] for line in f["lines"]]
    assert hits == [("pkg/m1.py", 64)]
    # Without a limit a workspace this small keeps its texts as read.
    async with stdio_session(root, "--no-cache", "--no-background-check") as session:
        await wait_until_indexed(session)
        stats = (await status(session))["stats"]
    assert stats["text_bytes_kept"] == stats["bytes"] == len(edited) + sum(
        len(t) for p, t in texts.items() if p != "pkg/m1.py"
    )


def modules_of_one_text(root, modules: int = 80):
    """Modules of one text, so that their name tables are of one size."""
    lines = []
    for j in range(150):
        lines += [f"def f{j}(a, b):", "    c = a + b", "    return len(c)", ""]
    for i in range(modules):
        write(root, f"m{i:02}.py", "\n".join(lines))
    return root


async def test_name_tables_are_kept_within_their_budget_in_bytes(tmp_path):
    """The name tables kept between questions fit a budget in bytes (a sixty-fourth of the
    limit: 3 MiB of 192M), and the background check steps aside (for the server to drop
    what is over it) once the tables it computed hold a set number of bytes
    (docs/memory.md)."""
    root = modules_of_one_text(tmp_path / "ws")
    budget = 3 << 20
    async with stdio_session(root, "--no-cache", "--max-memory", "192M") as session:
        checked = await wait_until_checked(session)
        kept = (await wait_for_eviction(session, checked["evictions"]))["memory"]["name_tables"]
    assert checked["memory"]["check_paused"] is False
    assert kept["kept_bytes"] == budget
    each = kept["bytes"] // kept["tables"]
    # As many tables as fit the budget are kept, all of one size.
    assert (kept["tables"], kept["bytes"]) == (budget // each, budget // each * each)
    assert 4 < budget // each < 80
    # The check held every module's table at once: its allowance (a sixteenth of the
    # limit) is more than they take.
    assert kept["peak_bytes"] >= 80 * each

    allowance = 1 << 20
    env = {"SEXTANT_TEST_CHECK_TABLE_BYTES": str(allowance)}
    async with stdio_session(root, "--no-cache", "--max-memory", "192M", env=env) as session:
        checked = await wait_until_checked(session)
        stepping = (await wait_for_eviction(session, checked["evictions"]))["memory"]["name_tables"]
    # What was kept, what a run may add, and the tables of the files in flight when it
    # stepped aside (a worker per core, and the file that took it over).
    in_flight = (os.cpu_count() or 1) + 1
    assert stepping["peak_bytes"] <= budget + allowance + in_flight * each
    assert budget + allowance + 3 * each < 80 * each
    assert (stepping["tables"], stepping["bytes"]) == (kept["tables"], kept["bytes"])
