"""Regression tests for what a hostile or busy client found: confinement, blocking files,
work that outlives its request, and answers that lag behind writes. Each test reproduces
one reported failure through the MCP Python SDK against the real binary."""

import os
import time
from pathlib import Path

import anyio
import pytest

from conftest import stdio_session, tool_error, wait_until_checked, wait_until_indexed, write

pytestmark = pytest.mark.anyio


def names(result) -> list[str]:
    assert not result.is_error, result
    return [s["name"] for s in result.structured_content["symbols"]]


def paths(result) -> list[str]:
    assert not result.is_error, result
    return sorted(s["path"] for s in result.structured_content["symbols"])


def exact_paths(result, name: str) -> list[str]:
    """Where `name` itself is defined (search also ranks fuzzy matches after it)."""
    assert not result.is_error, result
    return sorted(s["path"] for s in result.structured_content["symbols"] if s["name"] == name)


def error_code(result) -> str:
    return tool_error(result)["code"]


def server_pid(root: Path) -> int:
    """The `sextant mcp` process serving `root` (started by the SDK's stdio client)."""
    wanted = str(root)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"mcp" in argv and wanted.encode() in argv:
            return int(entry.name)
    raise AssertionError(f"no server process for {root}")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def thread_count(pid: int) -> int:
    return len(list(Path(f"/proc/{pid}/task").iterdir()))


def fifo_waiters(pid: int) -> list[str]:
    """The threads of `pid` blocked opening a FIFO (stdin is a pipe too: reads are not counted)."""
    waiting = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            channel = (task / "wchan").read_text().strip()
        except OSError:
            continue
        if channel in {"wait_for_partner", "fifo_open"}:
            waiting.append(f"{task.name}: {channel}")
    return waiting


def peak_rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory next to the workspace with a file that must never be served."""
    out = tmp_path / "outside"
    write(out, "secret.py", 'API_KEY = "do-not-serve"\n')
    write(out, "deep/more.py", "def outside_function():\n    pass\n")
    return out


# --- confinement ------------------------------------------------------------------------


async def test_directory_symlink_pointing_outside_is_not_followed(workspace, outside):
    (workspace / "vendor").symlink_to(outside, target_is_directory=True)
    async with stdio_session(workspace) as session:
        assert names(await session.call_tool("lookup_symbol", {"query": "API_KEY"})) == []
        assert names(await session.call_tool("lookup_symbol", {"query": "outside_function"})) == []
        status = (await session.call_tool("workspace_status", {})).structured_content
        skipped = {s["path"]: s["reason"] for s in status["skipped"]}
        assert skipped["vendor"] == "outside_workspace"
        out = await session.call_tool("outline", {"path": "vendor/secret.py"})
        assert error_code(out) == "PATH_OUTSIDE_WORKSPACE"


async def test_symlink_retargeted_outside_while_serving_is_refused(workspace, outside):
    write(workspace, "app/good.py", "GOOD_NAME = 1\n")
    link = workspace / "app/link.py"
    link.symlink_to("good.py")
    async with stdio_session(workspace) as session:
        found = await session.call_tool("lookup_symbol", {"query": "GOOD_NAME"})
        # The link is a second path to good.py, indexed once.
        assert paths(found) == ["app/good.py"]
        # Retarget in place, as `ln -sf` does, then ask at once.
        link.unlink()
        link.symlink_to(outside / "secret.py")
        assert names(await session.call_tool("lookup_symbol", {"query": "API_KEY"})) == []
        assert paths(await session.call_tool("lookup_symbol", {"query": "GOOD_NAME"})) == ["app/good.py"]
        out = await session.call_tool("outline", {"path": "app/link.py"})
        assert error_code(out) == "PATH_OUTSIDE_WORKSPACE"
        status = (await session.call_tool("workspace_status", {})).structured_content
        skipped = {s["path"]: s["reason"] for s in status["skipped"]}
        assert skipped["app/link.py"] == "outside_workspace"


async def test_symlinked_files_follow_their_targets(workspace):
    # A file reached by a second path (a file symlink, a directory symlink) is indexed once,
    # under its real path; a link whose real file is ignored is indexed under the link.
    write(workspace, "lib/real.py", "def before_edit():\n    pass\n")
    (workspace / "lib/alias.py").symlink_to("real.py")
    write(workspace, "pkg/mod.py", "class Before:\n    pass\n")
    (workspace / "pkg_link").symlink_to(workspace / "pkg", target_is_directory=True)
    write(workspace, ".gitignore", "vendored/\n")
    write(workspace, "vendored/v.py", "def vendored_before():\n    pass\n")
    (workspace / "lib/vend.py").symlink_to("../vendored/v.py")
    async with stdio_session(workspace) as session:
        assert paths(await session.call_tool("lookup_symbol", {"query": "before_edit"})) == ["lib/real.py"]
        assert paths(await session.call_tool("lookup_symbol", {"query": "vendored_before"})) == ["lib/vend.py"]
        status = (await session.call_tool("workspace_status", {})).structured_content
        skipped = {s["path"]: (s["reason"], s["detail"]) for s in status["skipped"]}
        assert skipped["lib/alias.py"] == ("same_file", "the same file as lib/real.py")
        assert skipped["pkg_link/mod.py"] == ("same_file", "the same file as pkg/mod.py")
        write(workspace, "lib/real.py", "def after_edit():\n    pass\n")
        write(workspace, "pkg/mod.py", "class After:\n    pass\n")
        write(workspace, "vendored/v.py", "def vendored_after():\n    pass\n")
        assert paths(await session.call_tool("lookup_symbol", {"query": "after_edit"})) == ["lib/real.py"]
        assert names(await session.call_tool("lookup_symbol", {"query": "before_edit"})) == []
        assert paths(await session.call_tool("lookup_symbol", {"query": "After", "kinds": ["class"]})) == [
            "pkg/mod.py",
        ]
        assert names(await session.call_tool("lookup_symbol", {"query": "Before", "kinds": ["class"]})) == []
        assert paths(await session.call_tool("lookup_symbol", {"query": "vendored_after"})) == ["lib/vend.py"]
        # Asked for by the link's path, the answer is the indexed file's.
        outline = (await session.call_tool("outline", {"path": "lib/alias.py"})).structured_content
        assert outline["path"] == "lib/real.py"


# --- nothing blocks the server ----------------------------------------------------------


async def test_fifo_in_place_of_an_indexed_file_blocks_nothing(workspace):
    async with stdio_session(workspace) as session:
        pid = server_pid(workspace)
        models = workspace / "app/models.py"
        models.unlink()
        os.mkfifo(models)
        # The writer must not hang on the FIFO: every call still answers.
        assert names(await session.call_tool("lookup_symbol", {"query": "load"})) == ["load_config"]
        status = (await session.call_tool("workspace_status", {})).structured_content
        skipped = {s["path"]: s["reason"] for s in status["skipped"]}
        assert skipped["app/models.py"] == "not_regular_file"
        threads = thread_count(pid)
        for _ in range(20):
            out = await session.call_tool("outline", {"path": "app/models.py"})
            assert error_code(out) == "INVALID_ARGUMENT"
            assert "FIFO" in tool_error(out)["message"]
        # No call left a thread blocked behind: none waits on the FIFO (the kernel's wait
        # channel of a FIFO open without a writer is `wait_for_partner`), and the thread
        # count did not grow with the calls (a pool may start a thread or two on demand
        # when calls overlap on a loaded machine).
        assert fifo_waiters(pid) == []
        assert thread_count(pid) <= threads + 2


async def test_fifo_read_on_demand_is_refused_without_blocking(workspace):
    write(workspace, ".gitignore", "ignored/\n")
    (workspace / "ignored").mkdir()
    os.mkfifo(workspace / "ignored/pipe.py")
    async with stdio_session(workspace) as session:
        for tool, args in [("outline", {}), ("parse_source", {})]:
            out = await session.call_tool(tool, {"path": "ignored/pipe.py", **args})
            assert error_code(out) == "INVALID_ARGUMENT"
            assert tool_error(out)["message"] == "ignored/pipe.py: not a regular file (a FIFO)"


async def test_huge_unindexed_file_is_refused_before_reading(workspace):
    write(workspace, ".gitignore", "data/\n")
    huge = workspace / "data/huge.py"
    huge.parent.mkdir()
    with open(huge, "wb") as f:
        f.truncate(600 * 1024 * 1024)  # sparse: costs no disk
    unknown = workspace / "data/huge.bin"
    with open(unknown, "wb") as f:
        f.truncate(600 * 1024 * 1024)
    async with stdio_session(workspace) as session:
        pid = server_pid(workspace)
        out = await session.call_tool("outline", {"path": "data/huge.py"})
        assert error_code(out) == "TOO_LARGE"
        assert tool_error(out)["message"] == "data/huge.py: 629145600 bytes, over the 10000 byte limit"
        out = await session.call_tool("parse_source", {"path": "data/huge.bin"})
        assert error_code(out) == "UNSUPPORTED_LANGUAGE"
        # Nothing close to the file's size was ever held in memory.
        assert peak_rss_kb(pid) < 200 * 1024


# --- work stops with its request --------------------------------------------------------


def heavy_source(i: int) -> str:
    """About 900 KB of Python: takes a debug build a good while to parse."""
    return f"value_{i} = call(first, second, [third, {{'key': fourth}}])\n" * 15000


async def test_timed_out_calls_stop_computing(workspace):
    args = ["--max-in-flight", "1", "--request-timeout-ms", "100"]
    async with stdio_session(workspace, *args) as session:
        pid = server_pid(workspace)
        await wait_until_checked(session)
        results = [None] * 6

        async def call(i):
            results[i] = await session.call_tool("parse_source", {"source": heavy_source(i), "language": "python"})

        async with anyio.create_task_group() as group:
            for i in range(6):
                group.start_soon(call, i)
        assert [error_code(r) for r in results] == ["TIMEOUT"] * 6
        # Give the work a moment to notice, then the server must be idle.
        await anyio.sleep(0.5)
        before = cpu_seconds(pid)
        await anyio.sleep(1.0)
        assert cpu_seconds(pid) - before < 0.1


async def test_cancelled_call_stops_computing(workspace):
    async with stdio_session(workspace) as session:
        pid = server_pid(workspace)
        await wait_until_checked(session)
        with anyio.move_on_after(0.3):
            await session.call_tool("parse_source", {"source": heavy_source(0), "language": "python"})
        await anyio.sleep(0.5)
        before = cpu_seconds(pid)
        await anyio.sleep(1.0)
        assert cpu_seconds(pid) - before < 0.1
        assert names(await session.call_tool("lookup_symbol", {"query": "User"}))[0] == "User"


def many_modules(root: Path, count: int) -> None:
    """`count` Python modules importing each other: a whole-workspace check of them takes a
    debug build several seconds."""
    for i in range(count):
        body = "".join(
            f"def f{i}_{j}(a, b=1, *rest, **options):\n    total = a + b\n    for x in rest:\n"
            f"        total += x if x else options.get('k', {j})\n    return total\n\n\n"
            for j in range(40)
        )
        write(root, f"pkg/m{i}.py", f"from pkg.m{(i + 1) % count} import f{(i + 1) % count}_0\n\n\n{body}")


async def test_timed_out_whole_workspace_check_stops_computing(workspace):
    # The check runs on every core, each worker on a database clone of its own: the
    # request's time limit must reach the workers, not only the thread that started them.
    many_modules(workspace, 150)
    args = ["--request-timeout-ms", "300", "--no-background-check"]
    async with stdio_session(workspace, *args) as session:
        pid = server_pid(workspace)
        await wait_until_indexed(session)
        out = await session.call_tool("typecheck", {})
        assert error_code(out) == "TIMEOUT"
        await anyio.sleep(0.5)
        before = cpu_seconds(pid)
        await anyio.sleep(1.0)
        assert cpu_seconds(pid) - before < 0.1


async def test_status_answers_while_every_slot_computes(workspace):
    async with stdio_session(workspace, "--max-in-flight", "1") as session:
        await wait_until_indexed(session)
        done = []
        status = None

        async def heavy(i):
            result = await session.call_tool("parse_source", {"source": heavy_source(i), "language": "python"})
            assert not result.is_error
            done.append(i)

        async with anyio.create_task_group() as group:
            for i in range(3):
                group.start_soon(heavy, i)
            await anyio.sleep(0.2)
            status = await session.call_tool("workspace_status", {})
            # The heavy calls run one at a time; the status call did not wait for them.
            assert len(done) < 3
        assert not status.is_error and status.structured_content["ready"] is True
        assert sorted(done) == [0, 1, 2]


# --- read-your-writes -------------------------------------------------------------------


async def test_answers_reflect_writes_with_zero_settle_time(workspace):
    """Churn: every operation is followed at once by a query that must see it."""
    import random

    rng = random.Random(7)
    live: dict[str, str] = {}  # path -> the one symbol it defines
    stale = []
    operations = 0
    async with stdio_session(workspace) as session:
        for step in range(1000):
            op = rng.choice(["create", "edit", "edit", "delete", "rename"]) if live else "create"
            if op == "create":
                rel = f"churn/d{rng.randrange(5)}/f{step}.py"
                live[rel] = f"sym_{step}_created"
            elif op == "edit":
                rel = rng.choice(sorted(live))
                live[rel] = f"sym_{step}_edited"
            elif op == "delete":
                rel = rng.choice(sorted(live))
                gone = live.pop(rel)
                (workspace / rel).unlink()
                operations += 1
                if exact_paths(await session.call_tool("lookup_symbol", {"query": gone}), gone) != []:
                    stale.append((step, op, rel))
                continue
            else:
                old = rng.choice(sorted(live))
                rel = f"churn/d{rng.randrange(5)}/r{step}.py"
                live[rel] = live.pop(old)
                (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(workspace / old, workspace / rel)
                operations += 1
                found = await session.call_tool("lookup_symbol", {"query": live[rel]})
                if exact_paths(found, live[rel]) != [rel]:
                    stale.append((step, op, rel))
                continue
            write(workspace, rel, f"def {live[rel]}():\n    pass\n")
            operations += 1
            found = await session.call_tool("lookup_symbol", {"query": live[rel]})
            if exact_paths(found, live[rel]) != [rel]:
                stale.append((step, op, rel))
    assert operations == 1000
    assert stale == []


async def test_cookies_of_another_server_on_the_same_root_are_not_content(workspace):
    """Two servers on one root (no `.git`, so cookies go in the root): one server's cookies
    must not make the other walk the root again, nor show up anywhere."""
    async with stdio_session(workspace) as first, stdio_session(workspace) as second:
        await wait_until_indexed(first)
        await wait_until_indexed(second)
        for _ in range(20):
            assert names(await first.call_tool("lookup_symbol", {"query": "User"}))[0] == "User"
        status = (await second.call_tool("workspace_status", {})).structured_content
        assert status["rescans"] == 0
        assert [s for s in status["skipped"] if "cookie" in s["path"]] == []
    assert [p.name for p in workspace.iterdir() if p.name.startswith(".sextant-cookie-")] == []


async def test_a_read_only_server_writes_no_cookie_into_the_workspace(workspace):
    # A regression: `--read-only` still created (and removed) its read-your-writes markers
    # in the root, which changes the root directory's modification time.
    write(workspace, "fresh.py", "def first_name():\n    pass\n")
    async with stdio_session(workspace, "--read-only") as session:
        assert names(await session.call_tool("lookup_symbol", {"query": "first_name"})) == ["first_name"]
        before = os.stat(workspace).st_mtime_ns
        for n in range(5):
            # Rewritten in place: the root directory itself is not touched.
            with open(workspace / "fresh.py", "w") as f:
                f.write(f"def name_{n}():\n    pass\n")
            # Read-your-writes still holds, with no settle time.
            assert names(await session.call_tool("lookup_symbol", {"query": f"name_{n}"})) == [f"name_{n}"]
        assert os.stat(workspace).st_mtime_ns == before
        assert not [p for p in workspace.rglob(".sextant-cookie-*")]


async def test_an_idle_server_evicts_and_answers_the_same(workspace):
    """Issue: memoized answers grew with every question (24 rename dry runs on the standard
    library took a server from 167 MB to 449 MB, and a quiet server never shrank). Idle, the
    server now drops what is beyond its caches' bounds, and answers as before."""
    async with stdio_session(workspace) as session:
        await wait_until_indexed(session)
        query = {"query": "load_user"}
        first = (await session.call_tool("find_references", query)).structured_content
        status = lambda: session.call_tool("workspace_status", {})
        before = (await status()).structured_content["evictions"]
        deadline = time.monotonic() + 30
        while (await status()).structured_content["evictions"] == before:
            assert time.monotonic() < deadline, "no eviction after 30 s idle"
            await anyio.sleep(0.2)
        assert (await session.call_tool("find_references", query)).structured_content == first


async def test_a_writers_left_over_temporary_files_are_removed_at_start(workspace):
    """Issue: kill -9 while staging left `.sextant-write-*` files (full copies of new texts)
    in the workspace until the next write to the same directory. A server that may write
    removes them when it starts, except one a live writer holds locked; a read-only server
    removes nothing."""
    import fcntl

    left = [write(workspace, ".sextant-write-a1", "x = 1\n"), write(workspace, "app/.sextant-write-b2", "y = 2\n")]
    held = write(workspace, "app/.sextant-write-held", "z = 3\n")
    with open(held) as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        async with stdio_session(workspace, "--read-only") as session:
            await wait_until_indexed(session)
        assert [p.exists() for p in left] == [True, True]
        async with stdio_session(workspace) as session:
            await wait_until_indexed(session)
            # Removed beside the first index, not before it.
            deadline = time.monotonic() + 30
            while any(p.exists() for p in left):
                assert time.monotonic() < deadline, [p.exists() for p in left]
                await anyio.sleep(0.1)
            assert held.exists()
