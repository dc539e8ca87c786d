"""A restart after files were edited while no server ran: the persistent cache's diagnostics
of files whose checks cannot see the edits are reused, the others computed again, and every
answer is a cold server's."""

import os

import anyio
import pytest

from conftest import stdio_session, wait_until_checked, write

pytestmark = pytest.mark.anyio

SHAPES = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"


def mixed_workspace(root):
    """Two Python files, one importing the other, and a Rust crate of three files."""
    write(root, "geo/shapes.py", SHAPES)
    write(root, "geo/report.py", "from geo.shapes import area, perimeter\n\nprint(area(1, 2), perimeter(1, 2))\n")
    write(root, "Cargo.toml", '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n')
    write(root, "src/lib.rs", "mod util;\nmod shapes;\n\npub use util::double;\n")
    write(root, "src/util.rs", "use crate::missing::Thing;\n\npub fn double(x: u32) -> u32 {\n    x * 2\n}\n")
    write(root, "src/shapes.rs", "pub fn area(w: u32, h: u32) -> u32 {\n    crate::util::double(w) * h\n}\n")


async def answers_and_cache(root, *args):
    """The background check's diagnostics (as `typecheck` lists them) and the cache's counts
    once the server has checked every file."""
    async with stdio_session(root, *args) as session:
        await wait_until_checked(session)
        found = (await session.call_tool("typecheck", {})).structured_content
        status = (await session.call_tool("workspace_status", {})).structured_content
        if "--cache-dir" in args:
            # Once idle after the background check, the server saves what it computed.
            for _ in range(100):
                if status["cache"]["saves"] >= 2 or status["cache"]["computed"] == 0:
                    break
                await anyio.sleep(0.1)
                status = (await session.call_tool("workspace_status", {})).structured_content
    cache = status.get("cache")
    return found, cache and (cache["used"], cache["computed"], cache["faults"])


def codes(found):
    return [(d["path"], d["line"], d["code"]) for d in found["diagnostics"]]


async def test_an_edit_while_stopped_rechecks_its_family_only(tmp_path):
    root = tmp_path / "ws"
    mixed_workspace(root)
    cache = str(tmp_path / "cache")

    warmed, counts = await answers_and_cache(root, "--cache-dir", cache)
    assert codes(warmed) == [("src/util.rs", 1, "SX003")]
    # Each of the five files' symbols, identifiers and diagnostics, the names of the two
    # Python files (whose checks read names), and the two indexes' one shard each.
    assert counts == (0, 19, 0)

    # `perimeter` goes while no server runs: report.py's import of it is now unknown.
    write(root, "geo/shapes.py", SHAPES.split("\n\n\n")[0] + "\n")
    restarted, counts = await answers_and_cache(root, "--cache-dir", cache)
    cold, _ = await answers_and_cache(root, "--no-cache")
    assert restarted == cold
    assert codes(restarted) == [("geo/report.py", 1, "SX004"), ("src/util.rs", 1, "SX003")]
    # Computed: shapes.py's symbols, identifiers and names, the two shards its text is in,
    # and both Python files' diagnostics (report.py's check reads shapes.py's names). Used:
    # the four other files' symbols and identifiers (the shards are built from them),
    # report.py's names, and the three Rust files' diagnostics, whose checks read no Python
    # file.
    assert counts == (12, 7, 0)


async def checked_status(root, cache, env):
    """`workspace_status` once the background check has checked every file."""
    async with stdio_session(root, "--cache-dir", cache, env=env) as session:
        status = await wait_until_checked(session)
        for _ in range(100):
            if status["cache"]["saves"] >= 2 or status["cache"]["computed"] == 0:
                break
            await anyio.sleep(0.1)
            status = (await session.call_tool("workspace_status", {})).structured_content
        return status


async def test_a_warm_check_goes_through_batches_it_reads_from_records(tmp_path):
    """The background check steps aside every few files (2 here) for the writer to drop the
    name tables it built, which waits for the writer's next idle moment (an eviction): a
    cold check of 16 files does so 7 times. A warm one reads every result from records,
    builds no table, and goes on without waiting."""
    root = tmp_path / "ws"
    for i in range(16):
        write(root, f"pkg/m{i}.py", f"import os\n\n\ndef f{i}(x):\n    return os.path.join(x, 'a')\n")
    cache = str(tmp_path / "cache")
    env = {**os.environ, "SEXTANT_TEST_CHECK_BATCH": "2"}

    cold = await checked_status(root, cache, env)
    assert cold["cache"]["used"] == 0
    assert cold["evictions"] >= 7, cold["evictions"]

    warm = await checked_status(root, cache, env)
    # Used: the 16 files' diagnostics and the two indexes' one shard each; nothing computed.
    assert (warm["cache"]["used"], warm["cache"]["computed"]) == (18, 0)
    # At most the evictions a server makes once idle after its first answers, a second in.
    assert warm["evictions"] <= 2, warm["evictions"]


async def lookups(session):
    """`lookup_symbol`'s answers for a definition the edit adds and one it removes."""
    found = {}
    for query in ("volume", "perimeter"):
        found[query] = (await session.call_tool("lookup_symbol", {"query": query})).structured_content
    return found


async def test_a_restart_after_edits_answers_before_its_first_save(tmp_path):
    """The first save of a restarted server rewrites the whole cache file: its answers do not
    wait for it. Here every save waits a minute, as on a very slow disk."""
    root = tmp_path / "ws"
    mixed_workspace(root)
    cache = str(tmp_path / "cache")
    await answers_and_cache(root, "--cache-dir", cache)

    # While no server runs, `perimeter` goes and `volume` comes.
    write(root, "geo/shapes.py", "def area(w, h):\n    return w * h\n\n\ndef volume(w, h, d):\n    return w * h * d\n")
    slow_disk = {**os.environ, "SEXTANT_TEST_CACHE_SAVE_PAUSE_MS": "60000"}
    async with stdio_session(root, "--cache-dir", cache, "--no-background-check", env=slow_disk) as session:
        restarted = await lookups(session)
        status = (await session.call_tool("workspace_status", {})).structured_content
    async with stdio_session(root, "--no-cache", "--no-background-check") as session:
        cold = await lookups(session)

    assert restarted == cold
    added = [(s["name"], s["path"], s["line"]) for s in restarted["volume"]["symbols"]]
    assert added == [("volume", "geo/shapes.py", 5)]
    assert restarted["perimeter"]["symbols"] == []
    assert status["ready"] is True
    # Answered with no save made: computed, shapes.py's symbols and the symbol index's
    # shard it is in; used, the four other files' symbols that shard is built from.
    counts = status["cache"]
    assert (counts["used"], counts["computed"], counts["faults"], counts["saves"]) == (4, 2, 0, 0)

    # The server was stopped during that save's wait, before it wrote anything: the next
    # start computes the same two records again, and answers as a cold server.
    async with stdio_session(root, "--cache-dir", cache, "--no-background-check") as session:
        again = await lookups(session)
        counts = (await session.call_tool("workspace_status", {})).structured_content["cache"]
    assert again == cold
    assert (counts["used"], counts["computed"], counts["faults"]) == (4, 2, 0)
