"""`import_graph` through the MCP Python SDK: dependencies and dependents with depths, cycles,
packages, the size bound, bad arguments, and an edit on disk followed."""

import anyio
import pytest

from conftest import stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def cyclic(tmp_path):
    """pkg/a → pkg/b → pkg/c → pkg/a, main imports a and c, lib/util imports nothing local."""
    root = tmp_path / "ws"
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/a.py", "import pkg.b\nimport os\n")
    write(root, "pkg/b.py", "from pkg import c\n")
    write(root, "pkg/c.py", "import json\n\nfrom pkg.a import x\n")
    write(root, "main.py", "import pkg.a\nimport pkg.c\nimport lib.util\n")
    write(root, "lib/util.py", "import sys\n")
    return root


async def test_import_graph_follows_imports_both_ways_with_depths(cyclic):
    async with stdio_session(cyclic) as session:
        await wait_until_indexed(session)
        deps = await session.call_tool("import_graph", {"file_path": "main.py"})
        assert not deps.is_error, deps
        assert deps.structured_content == {
            "nodes": [
                {"path": "main.py", "depth": 0},
                {"path": "lib/util.py", "depth": 1},
                {"path": "pkg/a.py", "depth": 1},
                {"path": "pkg/c.py", "depth": 1},
                {"path": "pkg/b.py", "depth": 2},
            ],
            "edges": [
                ["main.py", "lib/util.py"],
                ["main.py", "pkg/a.py"],
                ["main.py", "pkg/c.py"],
                ["pkg/a.py", "pkg/b.py"],
                ["pkg/c.py", "pkg/a.py"],
                ["pkg/b.py", "pkg/c.py"],
            ],
            "cycles": [],
            "node_total": 5,
            "truncated": False,
        }

        dependents = await session.call_tool(
            "import_graph", {"file_path": "pkg/a.py", "direction": "dependents", "depth": 1}
        )
        assert dependents.structured_content == {
            "nodes": [{"path": "pkg/a.py", "depth": 0}, {"path": "main.py", "depth": 1}, {"path": "pkg/c.py", "depth": 1}],
            # Every edge between listed nodes, importer first.
            "edges": [["main.py", "pkg/a.py"], ["main.py", "pkg/c.py"], ["pkg/c.py", "pkg/a.py"]],
            "cycles": [["pkg/a.py", "pkg/b.py", "pkg/c.py"]],
            "shortest_cycle": ["pkg/a.py", "pkg/b.py", "pkg/c.py"],
            "node_total": 3,
            "truncated": False,
        }


async def test_import_graph_of_the_workspace_lists_cycles_and_packages(cyclic):
    async with stdio_session(cyclic) as session:
        await wait_until_indexed(session)
        whole = await session.call_tool("import_graph", {})
        content = whole.structured_content
        assert [n["path"] for n in content["nodes"]] == ["lib/util.py", "main.py", "pkg/a.py", "pkg/b.py", "pkg/c.py"]
        assert all("depth" not in n for n in content["nodes"])
        assert content["cycles"] == [["pkg/a.py", "pkg/b.py", "pkg/c.py"]]

        packages = await session.call_tool("import_graph", {"granularity": "package"})
        assert packages.structured_content == {
            "nodes": [{"path": "."}, {"path": "lib"}, {"path": "pkg"}],
            "edges": [[".", "lib"], [".", "pkg"]],
            "cycles": [],
            "node_total": 3,
            "truncated": False,
        }

        limited = await session.call_tool("import_graph", {"limit": 2})
        assert [n["path"] for n in limited.structured_content["nodes"]] == ["lib/util.py", "main.py"]
        assert limited.structured_content["edges"] == [["main.py", "lib/util.py"]]
        assert limited.structured_content["node_total"] == 5
        assert limited.structured_content["truncated"] is True


async def test_import_graph_refuses_bad_arguments_with_stable_codes(cyclic):
    async with stdio_session(cyclic) as session:
        await wait_until_indexed(session)
        missing = await session.call_tool("import_graph", {"file_path": "nowhere.py"})
        assert tool_error(missing)["code"] == "NOT_FOUND"
        outside = await session.call_tool("import_graph", {"file_path": "../outside.py"})
        assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"
        deep = await session.call_tool("import_graph", {"file_path": "main.py", "depth": 21})
        assert tool_error(deep) == {"code": "INVALID_ARGUMENT", "message": "depth must be between 0 and 20, got 21"}
        sideways = await session.call_tool("import_graph", {"direction": "sideways"})
        assert tool_error(sideways)["code"] == "INVALID_ARGUMENT"


async def test_import_graph_follows_an_edit_that_closes_a_cycle(cyclic):
    async with stdio_session(cyclic) as session:
        await wait_until_indexed(session)
        before = await session.call_tool("import_graph", {"file_path": "lib/util.py"})
        assert before.structured_content["cycles"] == []
        write(cyclic, "lib/util.py", "import sys\nimport main\n")
        for _ in range(100):
            after = await session.call_tool("import_graph", {"file_path": "lib/util.py"})
            if after.structured_content["cycles"]:
                break
            await anyio.sleep(0.1)
        assert after.structured_content["cycles"] == [["lib/util.py", "main.py"]]
        assert after.structured_content["shortest_cycle"] == ["lib/util.py", "main.py"]
