"""`typecheck` with `depth: "deep"` through the MCP Python SDK: the projects' own type
checkers run (tsc from the repository's npm tools, found in the project's
`node_modules/.bin`), their diagnostics merged in with the tool's code and the position
converted from tsc's UTF-16 columns, each run's status in `checkers`; an unchanged project
answered from the memo; a read-only server refusing checkers that execute code; a call's
time limit killing a hanging checker's whole process group."""

import os
import time
from pathlib import Path

import anyio
import pytest

from conftest import REPO, ended, stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio

TSC = REPO / "target/npm-tools/node_modules/.bin/tsc"


def typescript_project(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    write(root, "tsconfig.json", '{"compilerOptions": {"strict": true}}')
    write(root, "src/a.ts", 'const s = "😀"; const n: number = "x";\nexport { s, n };\n')
    (root / "node_modules/.bin").mkdir(parents=True)
    os.symlink(TSC, root / "node_modules/.bin/tsc")
    return root


@pytest.mark.skipif(not TSC.exists(), reason="scripts/test installs tsc under target/npm-tools")
async def test_deep_adds_tsc_errors_then_answers_from_the_memo(tmp_path):
    root = typescript_project(tmp_path)
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        lint = (await session.call_tool("typecheck", {})).structured_content
        first = (await session.call_tool("typecheck", {"depth": "deep", "positions": "full"})).structured_content
        second = (await session.call_tool("typecheck", {"depth": "deep"})).structured_content
    assert lint["diagnostics"] == [] and "checkers" not in lint, lint
    [d] = first["diagnostics"]
    assert (d["path"], d["line"], d["column"], d["code"], d["severity"]) == ("src/a.ts", 1, 22, "tsc:TS2322", "error")
    assert d["message"] == "Type 'string' is not assignable to type 'number'."
    assert d["span"]["byte_start"] == 24
    assert first["summary"]["by_code"] == {"tsc:TS2322": 1}
    [run] = first["checkers"]
    assert (run["tool"], run["project"], run["status"], run["diagnostics"]) == ("tsc", ".", "ran", 1), run
    assert run["duration_ms"] >= 0
    [again] = second["checkers"]
    assert again["status"] == "cached", again
    assert [(x["line"], x["column"], x["code"]) for x in second["diagnostics"]] == [(1, 22, "tsc:TS2322")]


async def test_a_read_only_server_runs_no_checker_that_executes_code(tmp_path):
    root = tmp_path / "ws"
    marker = tmp_path / "ran"
    write(root, "Cargo.toml", '[package]\nname = "p"\nversion = "0.1.0"\nedition = "2021"\n\n[workspace]\n')
    write(root, "src/main.rs", 'fn main() { let n: i32 = "x"; }\n')
    write(root, "sextant.toml", '[typecheck.programs]\ncargo = "./fake-cargo"\n')
    script = write(root, "fake-cargo", f"#!/bin/sh\ntouch {marker}\n")
    script.chmod(0o755)
    # tsc executes nothing, but one shipped inside the repository is the repository's code.
    write(root, "web/tsconfig.json", "{}")
    write(root, "web/a.ts", "export const n = 1;\n")
    local_tsc = write(root, "web/node_modules/.bin/tsc", f"#!/bin/sh\ntouch {marker}\n")
    local_tsc.chmod(0o755)
    async with stdio_session(root, "--read-only") as session:
        await wait_until_indexed(session)
        out = (await session.call_tool("typecheck", {"depth": "deep"})).structured_content
    runs = {(run["tool"], run["project"]): run for run in out["checkers"]}
    assert sorted(runs) == [("cargo", "."), ("tsc", "web")], runs
    cargo = runs[("cargo", ".")]
    assert (cargo["status"], cargo["diagnostics"]) == ("not_allowed", 0), cargo
    assert cargo["detail"] == "a read-only server runs no checker that executes the project's code"
    # From PATH only: missing here unless a tsc is installed there.
    assert runs[("tsc", "web")]["status"] in ("missing", "ran"), runs
    assert not marker.exists()


async def test_a_timed_out_call_kills_the_checkers_process_group(tmp_path):
    root = tmp_path / "ws"
    pid_file = tmp_path / "sleep.pid"
    write(root, "tsconfig.json", "{}")
    write(root, "src/a.ts", "export const n = 1;\n")
    write(root, "sextant.toml", '[typecheck]\ndeep = true\n\n[typecheck.programs]\ntsc = "./hang.sh"\n')
    script = write(root, "hang.sh", f"#!/bin/sh\nsleep 100 &\necho $! > {pid_file}\nwait\n")
    script.chmod(0o755)
    async with stdio_session(root, "--request-timeout-ms", "2000") as session:
        await wait_until_indexed(session)
        started = time.monotonic()
        # `deep = true` in sextant.toml makes deep the default depth.
        timed_out = tool_error(await session.call_tool("typecheck", {}))
        took = time.monotonic() - started
        lint = (await session.call_tool("typecheck", {"depth": "lint"})).structured_content
    assert timed_out["code"] == "TIMEOUT", timed_out
    assert took < 10, took
    assert ended(int(pid_file.read_text()))
    assert "checkers" not in lint and lint["summary"]["total"] == 0, lint


async def test_an_unknown_depth_is_an_invalid_argument(tmp_path):
    root = tmp_path / "ws"
    write(root, "a.py", "x = 1\n")
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        error = tool_error(await session.call_tool("typecheck", {"depth": "deepest"}))
    assert error["code"] == "INVALID_ARGUMENT", error


async def ended_soon(pid: int, timeout: float = 2) -> bool:
    """`ended`, polled without blocking the client's loop (which sends the cancellation)."""
    deadline = time.monotonic() + timeout
    while not ended(pid, timeout=0):
        if time.monotonic() > deadline:
            return False
        await anyio.sleep(0.05)
    return True


async def test_a_cancelled_call_kills_the_checker_mid_run(tmp_path):
    root = tmp_path / "ws"
    pid_file = tmp_path / "sleep.pid"
    write(root, "tsconfig.json", "{}")
    write(root, "src/a.ts", "export const n = 1;\n")
    write(root, "sextant.toml", '[typecheck.programs]\ntsc = "./hang.sh"\n')
    script = write(root, "hang.sh", f"#!/bin/sh\nsleep 100 &\necho $! > {pid_file}\nwait\n")
    script.chmod(0o755)
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        with anyio.move_on_after(1.5):
            await session.call_tool("typecheck", {"depth": "deep"})
        assert pid_file.exists()
        assert await ended_soon(int(pid_file.read_text()))
        # The server serves on, and the same call runs the checker again (nothing memoized).
        pid_file.unlink()
        with anyio.move_on_after(1.5):
            await session.call_tool("typecheck", {"depth": "deep"})
        assert await ended_soon(int(pid_file.read_text()))


async def test_two_calls_never_run_a_projects_checker_at_once(tmp_path):
    root = tmp_path / "ws"
    log = tmp_path / "runs.log"
    write(root, "tsconfig.json", "{}")
    write(root, "src/a.ts", "export const n = 1;\n")
    write(root, "sextant.toml", '[typecheck.programs]\ntsc = "./slow.sh"\n')
    script = write(root, "slow.sh", f"#!/bin/sh\necho start >> {log}\nsleep 1\necho end >> {log}\n")
    script.chmod(0o755)
    results = []
    async with stdio_session(root) as session:
        await wait_until_indexed(session)

        async def call():
            out = await session.call_tool("typecheck", {"depth": "deep"})
            results.append(out.structured_content["checkers"][0]["status"])

        async with anyio.create_task_group() as group:
            group.start_soon(call)
            group.start_soon(call)
    # One run; the call that waited for it is answered from its memo.
    assert log.read_text() == "start\nend\n"
    assert sorted(results) == ["cached", "ran"], results


async def test_explain_diagnostic_explains_checker_codes_with_the_tools_own_words(tmp_path):
    root = tmp_path / "ws"
    write(root, "a.py", "x = 1\n")
    async with stdio_session(root) as session:
        rustc = (await session.call_tool("explain_diagnostic", {"code": "rustc:E0308"})).structured_content
        mypy = (await session.call_tool("explain_diagnostic", {"code": "mypy:arg-type"})).structured_content
        not_rustcs = tool_error(await session.call_tool("explain_diagnostic", {"code": "rustc:E9999"}))
        unknown = tool_error(await session.call_tool("explain_diagnostic", {"code": "eslint:no-undef"}))
    # `rustc --explain E0308`, run through the server (rustc is part of the toolchain).
    assert (rustc["code"], rustc["category"], rustc["tool"]) == ("rustc:E0308", "checker", "cargo"), rustc
    assert rustc["title"] == "Expected type did not match the received type."
    assert "Erroneous code examples:" in rustc["description"]
    assert rustc["url"] == "https://doc.rust-lang.org/error_codes/E0308.html"
    assert rustc["help"] == "Reported by cargo. Its documentation: https://doc.rust-lang.org/error_codes/E0308.html"
    assert mypy == {
        "code": "mypy:arg-type",
        "category": "checker",
        "title": "mypy:arg-type",
        "description": "mypy documents its codes online only",
        "example": "",
        "help": "Reported by mypy. Its documentation: https://mypy.readthedocs.io/en/stable/error_code_list.html#code-arg-type",
        "tool": "mypy",
        "url": "https://mypy.readthedocs.io/en/stable/error_code_list.html#code-arg-type",
    }
    assert not_rustcs["code"] == "NOT_FOUND", not_rustcs
    assert not_rustcs["message"] == '"rustc:E9999": rustc says: error: E9999 is not a valid error code'
    assert unknown["code"] == "NOT_FOUND", unknown
    assert unknown["message"] == '"eslint:no-undef": no checker reports codes in "eslint" (known: tsc:, go:, rustc:, pyright:, ty:, mypy:)'


async def test_a_panic_during_a_checker_run_leaves_the_next_run_its_turn(tmp_path):
    """A run that panics holding its project's turn (one at a time per project) is an
    internal error of that call alone: the next call takes the turn and runs the checker,
    where it used to wait for a turn the panic had poisoned until its time limit."""
    root = tmp_path / "ws"
    ran = tmp_path / "ran"
    write(root, "tsconfig.json", "{}")
    write(root, "src/a.ts", "export const n = 1;\n")
    write(root, "sextant.toml", '[typecheck.programs]\ntsc = "./fake-tsc"\n')
    script = write(root, "fake-tsc", f"#!/bin/sh\ntouch {ran}\n")
    script.chmod(0o755)
    env = {**os.environ, "SEXTANT_TEST_CHECKER_PANIC": "tsc"}
    async with stdio_session(root, "--request-timeout-ms", "5000", env=env) as session:
        await wait_until_indexed(session)
        panicked = tool_error(await session.call_tool("typecheck", {"depth": "deep"}))
        assert not ran.exists()
        again = await session.call_tool("typecheck", {"depth": "deep"}, read_timeout_seconds=10)
    assert panicked == {
        "code": "INTERNAL",
        "message": "internal error: injected fault in a tsc run (SEXTANT_TEST_CHECKER_PANIC)",
    }
    assert not again.is_error, again.content
    [run] = again.structured_content["checkers"]
    assert (run["tool"], run["project"], run["status"], run["diagnostics"]) == ("tsc", ".", "ran", 0), run
    assert ran.exists()
