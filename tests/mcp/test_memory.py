"""`--max-memory` through a real client: the server reports its resident memory and the
limit, keeps a generous limit, and pauses its background check under an over-tight one
while still answering (docs/memory.md)."""

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
        assert (await status(session))["memory"]["limit_bytes"] == 1 << 20
    write(root, "sextant.toml", 'max_memory = "a lot"\n')
    async with stdio_session(root, "--no-cache") as session:
        current = await status(session)
    assert "`a lot` is not a size (a number with K, M, G or T: `400M`)" in current["config_error"]
