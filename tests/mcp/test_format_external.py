"""`format_source` with the external formatters a workspace's `sextant.toml` names, through
the MCP Python SDK: a command from the workspace runs only when the server was started with
`--allow-external-formatter` (never with `--read-only`), its output is judged before it is
proposed or written, and a formatter that hangs or leaves a process behind is killed with
its process group when the call times out, freeing its slot."""

import os
import time

import anyio
import pytest

from conftest import ended, stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio

OK_PY = "def f():\n    return 1\n"


def workspace(tmp_path, formatter: str, extra: str = ""):
    root = tmp_path / "ws"
    write(root, "app/ok.py", OK_PY)
    write(root, "sextant.toml", f"[format.python]\ncommand = {formatter}\n{extra}")
    return root


def shipped_script(tmp_path):
    """A formatter script shipped inside the repository, which leaves a mark when run."""
    marker = tmp_path / "ran"
    root = workspace(tmp_path, '["./fmt.sh"]')
    script = write(root, "fmt.sh", f"#!/bin/sh\ntouch {marker}\ncat\n")
    script.chmod(0o755)
    return root, marker


@pytest.mark.parametrize("flags", [(), ("--read-only",)])
async def test_the_workspaces_formatter_is_not_run_without_permission(tmp_path, flags):
    root, marker = shipped_script(tmp_path)
    async with stdio_session(root, *flags) as session:
        await wait_until_indexed(session)
        dry = tool_error(await session.call_tool("format_source", {"path": "app/ok.py"}))
        source = tool_error(await session.call_tool("format_source", {"source": "x = 1\n", "language": "python"}))
    how = "and a read-only server runs none" if flags else "run only when allowed (pass --allow-external-formatter)"
    expected = {
        "code": "FORMATTER_NOT_ALLOWED",
        "message": 'sextant.toml names the formatter "./fmt.sh" for python: a command named by the '
        f"workspace is code from the workspace, {how}",
    }
    assert dry == expected
    assert source == expected
    assert not marker.exists(), "the workspace's formatter ran"


async def test_allowed_the_workspaces_formatter_runs(tmp_path):
    root, marker = shipped_script(tmp_path)
    async with stdio_session(root, "--allow-external-formatter") as session:
        await wait_until_indexed(session)
        dry = await session.call_tool("format_source", {"path": "app/ok.py"})
    assert not dry.is_error, dry
    assert dry.structured_content["changed"] is False
    assert marker.exists()


async def test_empty_output_is_rejected_and_not_written(tmp_path):
    root = workspace(tmp_path, '["true"]')
    async with stdio_session(root, "--allow-external-formatter") as session:
        await wait_until_indexed(session)
        applied = tool_error(await session.call_tool("format_source", {"path": "app/ok.py", "apply": True}))
        source = tool_error(await session.call_tool("format_source", {"source": OK_PY, "language": "python"}))
    assert applied == {
        "code": "FORMATTER_OUTPUT_REJECTED",
        "message": 'the output of the formatter "true" was not used: its output is empty; nothing was changed',
    }
    assert source == applied
    assert (root / "app/ok.py").read_text() == OK_PY


async def test_a_formatter_leaving_a_process_behind_frees_its_slot(tmp_path):
    """One slot: a formatter whose grandchild keeps the pipe open answers when the formatter
    exits, and the next call gets the slot at once."""
    root = workspace(tmp_path, '["sh", "-c", "cat; (sleep 100 &)"]')
    async with stdio_session(root, "--allow-external-formatter", "--max-in-flight", "1") as session:
        await wait_until_indexed(session)
        started = time.monotonic()
        with anyio.fail_after(20):
            first = await session.call_tool("format_source", {"path": "app/ok.py"})
            second = await session.call_tool("format_source", {"source": OK_PY, "language": "python"})
        took = time.monotonic() - started
    assert not first.is_error, first
    assert first.structured_content["changed"] is False
    assert second.structured_content["formatted"] == OK_PY
    assert took < 10, took


async def test_a_timed_out_call_kills_its_formatter_and_frees_the_slot(tmp_path):
    """The call's time limit kills the formatter's whole process group (its child too),
    and the one slot is free again within moments, not when the formatter would end."""
    pid_file = tmp_path / "sleep.pid"
    root = workspace(tmp_path, f'["sh", "-c", "sleep 100 & echo $! > {pid_file}; wait"]')
    async with stdio_session(
        root, "--allow-external-formatter", "--max-in-flight", "1", "--request-timeout-ms", "1500"
    ) as session:
        await wait_until_indexed(session)
        timed_out = tool_error(await session.call_tool("format_source", {"path": "app/ok.py"}))
        assert timed_out["code"] == "TIMEOUT", timed_out
        # The built-in formatter (Rust has no external one here) needs the same one slot.
        started = time.monotonic()
        rust = await session.call_tool("format_source", {"source": "fn f() {}\n", "language": "rust"})
        waited = time.monotonic() - started
    assert not rust.is_error, rust
    assert waited < 1.5, waited
    assert ended(int(pid_file.read_text())), "the formatter's child outlived the call"
