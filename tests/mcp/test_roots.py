"""One server, several roots (`sextant mcp --root A --root B`), through the MCP Python SDK:
every tool takes an optional `root`, answers come from that root alone, and writes stay in
it."""

import subprocess
from pathlib import Path

import pytest

from conftest import SEXTANT, stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def two_roots(tmp_path: Path) -> tuple[Path, Path]:
    billing = tmp_path / "team-a" / "service"
    write(billing, "billing.py", "def charge(amount):\n    return amount\n")
    search = tmp_path / "team-b" / "service"
    write(search, "search.py", "def query(text):\n    return text\n\n\ndef charge_free():\n    pass\n")
    return billing, search


def symbol_names(result) -> list[str]:
    assert not result.is_error, result
    return [s["name"] for s in result.structured_content["symbols"]]


async def test_every_tool_takes_a_root_and_answers_from_it_alone(two_roots):
    billing, search = two_roots
    async with stdio_session(billing, "--root", str(search)) as session:
        tools = (await session.list_tools()).tools
        for tool in tools:
            assert tool.input_schema["properties"]["root"]["enum"] == ["team-a/service", "team-b/service"], tool.name
        for root in ["team-a/service", "team-b/service"]:
            await wait_until_indexed_in(session, root)

        status = (await session.call_tool("workspace_status", {"root": "team-b/service"})).structured_content
        assert status["root"] == str(search.resolve())
        assert status["roots"] == [
            {"name": "team-a/service", "path": str(billing.resolve())},
            {"name": "team-b/service", "path": str(search.resolve())},
        ]
        assert status["stats"]["files"] == 1

        # No root: the first one.
        assert symbol_names(await session.call_tool("lookup_symbol", {"query": "charge"})) == ["charge"]
        found = await session.call_tool("lookup_symbol", {"query": "charge", "root": "team-b/service"})
        assert symbol_names(found) == ["charge_free"]
        assert found.structured_content["symbols"][0]["path"] == "search.py"
        # A root's path names it too.
        found = await session.call_tool("lookup_symbol", {"query": "query", "root": str(search)})
        assert symbol_names(found) == ["query"]

        # An absolute path picks the root holding it.
        outline = await session.call_tool("outline", {"path": str(search / "search.py")})
        assert not outline.is_error, outline
        assert [s["name"] for s in outline.structured_content["symbols"]] == ["query", "charge_free"]

        # Paths stay confined to the chosen root.
        escaped = await session.call_tool("outline", {"path": "../../team-a/service/billing.py", "root": "team-b/service"})
        assert tool_error(escaped)["code"] == "PATH_OUTSIDE_WORKSPACE"

        unknown = tool_error(await session.call_tool("lookup_symbol", {"query": "x", "root": "service"}))
        assert unknown["code"] == "NOT_FOUND"
        assert unknown["roots"] == ["team-a/service", "team-b/service"]
        wrong_type = tool_error(await session.call_tool("lookup_symbol", {"query": "x", "root": 3}))
        assert wrong_type["code"] == "INVALID_ARGUMENT"


async def test_a_write_lands_in_the_chosen_root_only(two_roots):
    billing, search = two_roots
    patch = "--- a/search.py\n+++ b/search.py\n@@ -1,2 +1,2 @@\n-def query(text):\n+def query(words):\n     return text\n"
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, "team-b/service")
        result = await session.call_tool("apply_patch", {"patch": patch, "apply": True, "check": "off", "root": "team-b/service"})
        assert not result.is_error, result
        assert result.structured_content["applied"] is True
        # The first root has no such file: the same patch there is refused, nothing written.
        refused = await session.call_tool("apply_patch", {"patch": patch, "apply": True, "check": "off"})
        assert tool_error(refused)["code"] == "PATCH_DOES_NOT_APPLY"
    assert (search / "search.py").read_text().startswith("def query(words):\n")
    assert sorted(p.name for p in billing.iterdir()) == ["billing.py"]


async def test_a_one_root_server_keeps_its_schemas_and_takes_its_own_root(two_roots):
    billing, _ = two_roots
    async with stdio_session(billing) as session:
        tools = (await session.list_tools()).tools
        assert all("root" not in t.input_schema.get("properties", {}) for t in tools)
        await wait_until_indexed(session)
        found = await session.call_tool("lookup_symbol", {"query": "charge", "root": "service"})
        assert symbol_names(found) == ["charge"]
        status = (await session.call_tool("workspace_status", {})).structured_content
        assert "roots" not in status


def test_roots_are_refused_twice_and_outside_mcp(two_roots):
    billing, search = two_roots
    twice = subprocess.run([SEXTANT, "mcp", "--root", str(billing), "--root", str(billing / ".")], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert twice.returncode == 2
    assert "is given twice" in twice.stderr
    stats = subprocess.run([SEXTANT, "--root", str(billing), "--root", str(search), "stats"], capture_output=True, text=True)
    assert stats.returncode == 2
    assert "only `sextant mcp` serves several roots" in stats.stderr


async def wait_until_indexed_in(session, root: str):
    import anyio

    for _ in range(100):
        status = await session.call_tool("workspace_status", {"root": root})
        if not status.is_error and status.structured_content["ready"]:
            return
        await anyio.sleep(0.2)
    raise AssertionError(f"{root} was never indexed")
