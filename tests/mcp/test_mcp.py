"""`sextant mcp` through the official MCP Python SDK, over stdio and streamable HTTP."""

import json
import os
import subprocess
from pathlib import Path

import anyio
import pytest

from conftest import SEXTANT, http_server, http_session, stdio_session, tool_error, wait_until_checked, wait_until_indexed, write

pytestmark = pytest.mark.anyio

TOOLS = {"affected_tests", "apply_patch", "call_graph", "changes", "edit_symbol", "explain_diagnostic", "explore", "find_definition", "find_implementations", "find_references", "format_source", "impact", "import_graph", "list_imports", "lookup_symbol", "outline", "pack_context", "parse_source", "read_file", "read_symbol", "release_context", "rename_symbol", "repo_map", "search", "skeleton", "typecheck", "workspace_bootstrap", "workspace_status"}
# Tools that may write files (when asked to, with `apply: true`).
WRITING_TOOLS = {"apply_patch", "edit_symbol", "format_source", "rename_symbol"}


def error_code(result) -> str:
    return tool_error(result)["code"]


def registered_languages() -> list[dict]:
    """The registry, as `sextant languages --json` prints it."""
    done = subprocess.run([SEXTANT, "languages", "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def names(result) -> list[str]:
    assert not result.is_error, result
    return [s["name"] for s in result.structured_content["symbols"]]


# --- discovery -------------------------------------------------------------------------


async def test_initialize_and_tool_definitions(workspace):
    async with stdio_session(workspace) as session:
        tools = (await session.list_tools()).tools
    assert {t.name for t in tools} == TOOLS
    for tool in tools:
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema.get("additionalProperties") is False, tool.name
        assert tool.output_schema and tool.output_schema["type"] == "object", tool.name
        writes = tool.name in WRITING_TOOLS
        assert tool.annotations.read_only_hint is not writes, tool.name
        assert tool.annotations.destructive_hint is writes, tool.name
        # Formatting twice changes nothing more; a rename applied again finds no old name.
        assert tool.annotations.idempotent_hint is (tool.name not in {"apply_patch", "edit_symbol", "rename_symbol"}), tool.name
        assert tool.annotations.open_world_hint is False
        # Definitions are paid for on every turn: keep them short.
        assert len(tool.description) < 160, tool.description
    lookup = next(t for t in tools if t.name == "lookup_symbol")
    assert lookup.input_schema["required"] == ["query"]
    assert lookup.input_schema["properties"]["limit"]["maximum"] == 200


async def test_server_identity_and_instructions(workspace):
    params_args = ["mcp", "--root", str(workspace)]
    from mcp import ClientSession, StdioServerParameters, stdio_client

    with open(os.devnull, "w") as errlog:
        async with stdio_client(StdioServerParameters(command=SEXTANT, args=params_args), errlog=errlog) as (r, w):
            async with ClientSession(r, w) as session:
                init = await session.initialize()
    assert init.server_info.name == "sextant"
    assert init.server_info.version
    assert "lookup_symbol" in init.instructions and "grep" in init.instructions
    # The languages named are the registry's, in its order: `Rust, Python, … and Go`.
    named = init.instructions.split("this workspace's ", 1)[1].split(" code,", 1)[0]
    language_names = [l["name"] for l in registered_languages()]
    assert named == ", ".join(language_names[:-1]) + " and " + language_names[-1]


# --- happy paths -----------------------------------------------------------------------


async def test_lookup_symbol_ranks_and_filters(workspace):
    async with stdio_session(workspace) as session:
        found = await session.call_tool("lookup_symbol", {"query": "load"})
        assert names(found) == ["load_user", "load_config"]
        # Lean by default: lines, names, kinds, signatures; no columns, offsets or nulls.
        assert found.structured_content["symbols"][0] == {
            "name": "load_user",
            "kind": "function",
            "path": "app/models.py",
            "line": 6,
            "end_line": 7,
            "signature": "def load_user(uid)",
        }
        full = await session.call_tool("lookup_symbol", {"query": "load", "positions": "full"})
        assert full.structured_content["symbols"][0] == {
            "name": "load_user",
            "kind": "function",
            "path": "app/models.py",
            "line": 6,
            "end_line": 7,
            "signature": "def load_user(uid)",
            "span": {"start": {"line": 6, "column": 1}, "end": {"line": 7, "column": 9}, "byte_start": 57, "byte_end": 85},
            "name_span": {"start": {"line": 6, "column": 5}, "end": {"line": 6, "column": 14}, "byte_start": 61, "byte_end": 70},
        }

        method = await session.call_tool("lookup_symbol", {"query": "fullname"})
        assert method.structured_content["symbols"][0]["container"] == "User"

        rust_only = await session.call_tool("lookup_symbol", {"query": "load", "language": "rust"})
        assert names(rust_only) == ["load_config"]
        structs = await session.call_tool("lookup_symbol", {"query": "", "kinds": ["struct", "interface"]})
        assert sorted(names(structs)) == ["Config", "Page"]
        under_web = await session.call_tool("lookup_symbol", {"query": "", "path_prefix": "web/"})
        assert all(s["path"].startswith("web/") for s in under_web.structured_content["symbols"])

        limited = await session.call_tool("lookup_symbol", {"query": "", "limit": 2})
        assert len(names(limited)) == 2
        assert limited.structured_content["truncated"] is True
        assert limited.structured_content["total"] > 2


async def test_outline_is_a_tree(workspace):
    async with stdio_session(workspace) as session:
        out = await session.call_tool("outline", {"path": "app/models.py"})
    assert not out.is_error
    expected = {
        "path": "app/models.py",
        "language": "python",
        "symbol_count": 3,
        "symbols": [
            {
                "name": "User",
                "kind": "class",
                "line": 1,
                "end_line": 3,
                "signature": "class User",
                # `container: "User"` is left out: the entry is listed under User.
                "children": [{"name": "full_name", "kind": "method", "line": 2, "end_line": 3, "signature": "def full_name(self)"}],
            },
            {"name": "load_user", "kind": "function", "line": 6, "end_line": 7, "signature": "def load_user(uid)"},
        ],
        "truncated": False,
    }
    assert out.structured_content == expected
    # The text a model reads keeps the fields in this order: each entry starts with its name.
    assert out.content[0].text == json.dumps(expected, separators=(",", ":"))


async def test_outline_positions_full_adds_spans(workspace):
    async with stdio_session(workspace) as session:
        full = await session.call_tool("outline", {"path": "app/models.py", "positions": "full", "limit": 2})
        second_page = await session.call_tool("outline", {"path": "app/models.py", "offset": 1})
        bad = await session.call_tool("outline", {"path": "app/models.py", "positions": "bytes"})
    assert full.structured_content["symbols"][0]["children"] == [
        {
            "name": "full_name",
            "kind": "method",
            "line": 2,
            "end_line": 3,
            "signature": "def full_name(self)",
            "span": {"start": {"line": 2, "column": 5}, "end": {"line": 3, "column": 18}, "byte_start": 16, "byte_end": 54},
            "name_span": {"start": {"line": 2, "column": 9}, "end": {"line": 2, "column": 18}, "byte_start": 20, "byte_end": 29},
        }
    ]
    # A method whose class is on an earlier page names its container.
    assert second_page.structured_content["symbols"][0] == {
        "name": "full_name",
        "kind": "method",
        "container": "User",
        "line": 2,
        "end_line": 3,
        "signature": "def full_name(self)",
    }
    assert tool_error(bad) == {
        "code": "INVALID_ARGUMENT",
        "message": "invalid arguments: unknown variant `bytes`, expected `lines` or `full`",
    }


async def test_outline_limit_truncates(workspace):
    async with stdio_session(workspace) as session:
        out = await session.call_tool("outline", {"path": "app/models.py", "limit": 1})
    assert [s["name"] for s in out.structured_content["symbols"]] == ["User"]
    assert out.structured_content["symbols"][0].get("children", []) == []
    assert out.structured_content["truncated"] is True


async def test_outline_of_a_long_file_fits_and_pages(workspace):
    """Regression: an outline over the response limit failed with TOO_LARGE (the standard
    library's typing.py at the default limit); it is now cut to fit and says where to go on."""
    names_in_order = [f"function_number_{i:03}_with_a_long_descriptive_name" for i in range(120)]
    write(workspace, "app/long.py", "".join(f"def {n}(first, second):\n    pass\n" for n in names_in_order))
    async with stdio_session(workspace, "--max-response-chars", "6000") as session:
        seen, offset, pages = [], None, 0
        while True:
            args = {"path": "app/long.py"} | ({"offset": offset} if offset is not None else {})
            page = await session.call_tool("outline", args)
            assert not page.is_error, page
            content = page.structured_content
            assert len(json.dumps(content, separators=(",", ":"))) <= 6000
            assert content["symbol_count"] == 120
            seen += [s["name"] for s in content["symbols"]]
            pages += 1
            if not content["truncated"]:
                assert "next_offset" not in content
                break
            assert content["next_offset"] == len(seen)
            offset = content["next_offset"]
    assert seen == names_in_order
    assert pages > 2


async def test_outline_of_typing_py_at_the_default_limit(tmp_path):
    import sysconfig

    root = tmp_path / "std"
    root.mkdir()
    (root / "typing.py").write_bytes((Path(sysconfig.get_paths()["stdlib"]) / "typing.py").read_bytes())
    async with stdio_session(root) as session:
        out = await session.call_tool("outline", {"path": "typing.py"})
    assert not out.is_error, out
    content = out.structured_content
    assert content["truncated"] is True and content["next_offset"] > 0
    assert len(json.dumps(content, separators=(",", ":"))) <= 60000
    # Lean entries: no columns, byte offsets or nulls unless `positions: "full"` asks.
    def keys(entries):
        for entry in entries:
            yield set(entry)
            yield from keys(entry.get("children", []))

    lean = {"name", "kind", "container", "line", "end_line", "signature", "children"}
    assert all(k <= lean for k in keys(content["symbols"]))


async def test_list_imports_says_where_each_import_leads(workspace):
    write(workspace, "app/__init__.py", "")
    write(workspace, "app/views.py", "import os\nfrom app.models import load_user as load, User\nfrom .missing import x\n")
    async with stdio_session(workspace) as session:
        lean = await session.call_tool("list_imports", {"path": "app/views.py"})
        full = await session.call_tool("list_imports", {"path": "app/views.py", "positions": "full"})
    assert not lean.is_error
    assert lean.structured_content == {
        "path": "app/views.py",
        "imports": [
            {"line": 1, "module": "os", "status": "external", "package": "os"},
            {"line": 2, "module": "app.models", "name": "load_user", "alias": "load", "status": "resolved",
             "resolved_path": "app/models.py", "definition_line": 6},
            {"line": 2, "module": "app.models", "name": "User", "status": "resolved",
             "resolved_path": "app/models.py", "definition_line": 1},
            {"line": 3, "module": ".missing", "name": "x", "status": "unresolved"},
        ],
    }
    assert full.structured_content["imports"][1]["span"] == {
        "start": {"line": 2, "column": 1}, "end": {"line": 2, "column": 47}, "byte_start": 10, "byte_end": 56}
    assert full.structured_content["imports"][1]["definition_span"] == {
        "start": {"line": 6, "column": 5}, "end": {"line": 6, "column": 14}, "byte_start": 61, "byte_end": 70}


async def test_parse_source_returns_syntax_errors_as_data(workspace):
    async with stdio_session(workspace) as session:
        broken = await session.call_tool("parse_source", {"source": "def f(:\n    pass\n", "language": "python"})
        assert not broken.is_error
        content = broken.structured_content
        assert content["error_count"] == 1
        assert content["errors"] == [{"message": "missing `)`", "line": 1, "column": 7}]
        assert content["tree"].startswith("(module 1:1-3:1)\n")
        full = await session.call_tool(
            "parse_source", {"source": "def f(:\n    pass\n", "language": "python", "positions": "full"}
        )
        assert full.structured_content["errors"] == [
            {
                "message": "missing `)`",
                "line": 1,
                "column": 7,
                "span": {"start": {"line": 1, "column": 7}, "end": {"line": 1, "column": 7}, "byte_start": 6, "byte_end": 6},
            }
        ]
        # Flags that are rarely set, and an empty error list, are left out.
        clean = await session.call_tool("parse_source", {"source": "x = 1\n", "language": "python", "max_depth": 1})
        assert clean.structured_content == {
            "path": "<source>",
            "language": "python",
            "tree": "(module 1:1-2:1)\n  (expression_statement 1:1-1:6 …)\n",
            "node_count": 2,
            "truncated": False,
            "error_count": 0,
        }

        shallow = await session.call_tool("parse_source", {"path": "src/lib.rs", "max_depth": 1})
        assert not shallow.is_error
        assert shallow.structured_content["tree"].splitlines()[1].startswith("  (struct_item")
        assert all(line.startswith(("(", "  (")) for line in shallow.structured_content["tree"].splitlines())

        capped = await session.call_tool("parse_source", {"path": "web/page.ts", "max_nodes": 3})
        assert capped.structured_content["truncated"] is True
        assert len(capped.structured_content["tree"].splitlines()) == 3


async def test_workspace_status(workspace):
    async with stdio_session(workspace) as session:
        status = await wait_until_indexed(session)
    assert status["ready"] is True
    assert status["root"] == str(workspace.resolve())
    languages = {l["language"]: l["files"] for l in status["stats"]["languages"]}
    assert languages == {"python": 1, "rust": 1, "typescript": 1, "go": 1}
    assert status["skipped_total"] == 1 and status["skipped"][0]["path"] == "big.py"
    assert status["skipped"][0]["reason"] == "too_large"
    assert status["limits"]["max_response_chars"] == 60000
    assert status["watching"] is True


async def test_a_restarted_server_answers_from_its_persistent_cache(workspace, tmp_path):
    write(workspace, "app/bad.py", "import os\n\nprint(undefined_name)\n")
    cache = str(tmp_path / "cache")

    async def status(session) -> dict:
        return (await session.call_tool("workspace_status", {})).structured_content

    async with stdio_session(workspace, "--cache-dir", cache) as session:
        await wait_until_checked(session)
        first = await session.call_tool("typecheck", {})
        # Once idle after the background check, the server saves what it computed.
        for _ in range(100):
            saved = (await status(session))["cache"]
            if saved["saves"] >= 2:
                break
            await anyio.sleep(0.1)
    # Five files: each one's symbols, identifiers and diagnostics, the names of the three
    # (Python and TypeScript) whose checks read names, and the symbol and identifier
    # indexes' one shard each.
    assert (saved["used"], saved["computed"], saved["faults"], saved["saves"]) == (0, 20, 0, 2)

    async with stdio_session(workspace, "--cache-dir", cache) as session:
        await wait_until_checked(session)
        second = await session.call_tool("typecheck", {})
        warm = (await status(session))["cache"]
    assert second.structured_content == first.structured_content
    assert [d["code"] for d in second.structured_content["diagnostics"]] == ["SX006", "SX005"]
    # From records, and no file parsed: the two indexes' shards, each file's diagnostics,
    # and each file's symbols (and imports), which the import graph that decides which
    # fixes `typecheck` offers reads.
    assert (warm["used"], warm["computed"], warm["faults"], warm["saves"]) == (12, 0, 0, 0)
    assert warm["dir"].startswith(cache)


async def test_workspace_status_reports_a_sextant_toml_that_cannot_be_used(workspace):
    async with stdio_session(workspace) as session:
        status = await wait_until_indexed(session)
        assert "config_error" not in status
        write(workspace, "sextant.toml", "max_file_size = 'big'\n")
        for _ in range(100):
            status = (await session.call_tool("workspace_status", {})).structured_content
            if "config_error" in status:
                break
            await anyio.sleep(0.1)
        assert status["config_error"].startswith(f"{workspace.resolve()}/sextant.toml: "), status
        assert status["config_error"].endswith('invalid type: string "big", expected u64'), status
        # The configuration before it stays in force: big.py is still over its 10000 bytes.
        assert status["ready"] is True and status["skipped"][0]["path"] == "big.py"
        write(workspace, "sextant.toml", "max_file_size = 20000\n")
        for _ in range(100):
            status = (await session.call_tool("workspace_status", {})).structured_content
            if "config_error" not in status:
                break
            await anyio.sleep(0.1)
        assert "config_error" not in status and status["skipped_total"] == 0, status
    # Bad from the start: nothing is indexed, and the status says why.
    write(workspace, "sextant.toml", "no_such_key = 1\n")
    async with stdio_session(workspace) as session:
        status = (await session.call_tool("workspace_status", {})).structured_content
    assert status["ready"] is False
    assert "unknown field `no_such_key`" in status["config_error"], status


# --- error codes -----------------------------------------------------------------------


async def test_invalid_arguments(workspace):
    async with stdio_session(workspace) as session:
        unknown_field = await session.call_tool("outline", {"path": "app/models.py", "bogus": 1})
        assert error_code(unknown_field) == "INVALID_ARGUMENT"
        assert "bogus" in tool_error(unknown_field)["message"]
        bad_enum = await session.call_tool("lookup_symbol", {"query": "x", "language": "cobol"})
        ids = ", ".join(l["id"] for l in registered_languages())
        assert tool_error(bad_enum) == {
            "code": "INVALID_ARGUMENT",
            "message": f'invalid arguments: unknown language "cobol" (known: {ids})',
        }
        out_of_range = await session.call_tool("lookup_symbol", {"query": "x", "limit": 100000})
        assert error_code(out_of_range) == "INVALID_ARGUMENT"
        missing_language = await session.call_tool("parse_source", {"source": "x = 1"})
        assert error_code(missing_language) == "INVALID_ARGUMENT"
        both = await session.call_tool("parse_source", {"source": "x", "language": "python", "path": "a.py"})
        assert error_code(both) == "INVALID_ARGUMENT"
        directory = await session.call_tool("outline", {"path": "app"})
        assert error_code(directory) == "INVALID_ARGUMENT"
        # The server keeps serving after every failure.
        assert names(await session.call_tool("lookup_symbol", {"query": "User"}))[0] == "User"


async def test_paths_are_confined_to_the_workspace(workspace, tmp_path):
    outside = write(tmp_path, "outside/secret.py", "def secret(): pass\n")
    (workspace / "link.py").symlink_to(outside)
    (workspace / "linkdir").symlink_to(outside.parent)
    async with stdio_session(workspace) as session:
        for path in ["../outside/secret.py", str(outside), "link.py", "linkdir/secret.py", "app/../../outside/secret.py", "/etc/passwd"]:
            result = await session.call_tool("outline", {"path": path})
            assert error_code(result) == "PATH_OUTSIDE_WORKSPACE", path
        assert error_code(await session.call_tool("parse_source", {"path": "../outside/secret.py"})) == "PATH_OUTSIDE_WORKSPACE"
        missing = await session.call_tool("outline", {"path": "app/nope.py"})
        assert error_code(missing) == "NOT_FOUND"
        unsupported = await session.call_tool("outline", {"path": "README.txt"})
        assert error_code(unsupported) == "UNSUPPORTED_LANGUAGE"
        too_large = await session.call_tool("outline", {"path": "big.py"})
        assert error_code(too_large) == "TOO_LARGE"
        inside_abs = await session.call_tool("outline", {"path": str(workspace / "app/models.py")})
        assert not inside_abs.is_error


async def test_ignored_files_inside_the_workspace_are_read_on_demand(workspace):
    write(workspace, ".gitignore", "build/\n")
    write(workspace, "build/gen.py", "def generated():\n    pass\n")
    async with stdio_session(workspace) as session:
        assert names(await session.call_tool("lookup_symbol", {"query": "generated"})) == []
        out = await session.call_tool("outline", {"path": "build/gen.py"})
        assert [s["name"] for s in out.structured_content["symbols"]] == ["generated"]


async def test_size_limits(workspace):
    async with stdio_session(workspace, "--max-source-bytes", "100", "--max-response-chars", "3000") as session:
        big_source = await session.call_tool("parse_source", {"source": "x = 1\n" * 50, "language": "python"})
        assert error_code(big_source) == "TOO_LARGE"
        # A parse tree is cut to fit the response budget rather than refused.
        tree = await session.call_tool("parse_source", {"source": "x = 1\n" * 16, "language": "python", "max_nodes": 5000})
        assert not tree.is_error and tree.structured_content["truncated"] is True
        assert len(json.dumps(tree.structured_content)) <= 3000
    for i in range(60):
        write(workspace, f"many/m{i}.py", f"def function_number_{i}():\n    pass\n")
    async with stdio_session(workspace, "--max-response-chars", "3000") as session:
        too_much = await session.call_tool("lookup_symbol", {"query": "function_number", "limit": 200})
        assert error_code(too_much) == "TOO_LARGE"
        fine = await session.call_tool("lookup_symbol", {"query": "function_number", "limit": 5})
        assert len(names(fine)) == 5


async def test_request_frames_over_the_limit_are_answered(workspace):
    from mcp.shared.exceptions import MCPError

    async with stdio_session(workspace, "--max-source-bytes", "2000", "--max-request-bytes", "30000") as session:
        with pytest.raises(MCPError) as raised:
            await session.call_tool(
                "parse_source", {"source": "x" * 40000, "language": "python"}, read_timeout_seconds=30
            )
        assert raised.value.code == -32600
        assert "over the 30000 byte limit" in raised.value.message
        assert names(await session.call_tool("lookup_symbol", {"query": "User"}))[0] == "User"


async def test_timeout(workspace):
    async with stdio_session(workspace, "--request-timeout-ms", "1") as session:
        slow = await session.call_tool("parse_source", {"source": "f(x, y)\n" * 60000, "language": "python"})
        assert error_code(slow) == "TIMEOUT"


async def test_a_panic_fails_only_that_request(workspace):
    env = {**os.environ, "SEXTANT_TEST_PANIC": "outline"}
    async with stdio_session(workspace, env=env) as session:
        crashed = await session.call_tool("outline", {"path": "app/models.py"})
        assert error_code(crashed) == "INTERNAL"
        assert "injected fault" in tool_error(crashed)["message"]
        assert names(await session.call_tool("lookup_symbol", {"query": "User"}))[0] == "User"


# --- a live workspace ------------------------------------------------------------------


async def test_edits_on_disk_are_reflected(workspace):
    async with stdio_session(workspace) as session:
        assert names(await session.call_tool("lookup_symbol", {"query": "load_user"})) == ["load_user"]
        write(workspace, "app/models.py", "def fetch_user(uid):\n    pass\n")
        await anyio.sleep(0.3)
        assert names(await session.call_tool("lookup_symbol", {"query": "load_user"})) == []
        assert names(await session.call_tool("lookup_symbol", {"query": "fetch_user"})) == ["fetch_user"]
        out = await session.call_tool("outline", {"path": "app/models.py"})
        assert [s["name"] for s in out.structured_content["symbols"]] == ["fetch_user"]

        write(workspace, "app/new.py", "class Fresh:\n    pass\n")
        await anyio.sleep(0.3)
        assert names(await session.call_tool("lookup_symbol", {"query": "Fresh"})) == ["Fresh"]
        (workspace / "app/new.py").unlink()
        await anyio.sleep(0.3)
        assert names(await session.call_tool("lookup_symbol", {"query": "Fresh"})) == []
        gone = await session.call_tool("outline", {"path": "app/new.py"})
        assert error_code(gone) == "NOT_FOUND"


async def test_concurrent_calls(workspace):
    for i in range(30):
        write(workspace, f"pkg/m{i}.py", f"def handler_{i}():\n    pass\n")
    async with stdio_session(workspace, "--max-in-flight", "3") as session:
        results = {}

        async def call(i):
            results[i] = await session.call_tool("lookup_symbol", {"query": f"handler_{i}"})

        async with anyio.create_task_group() as group:
            for i in range(30):
                group.start_soon(call, i)
    for i in range(30):
        assert names(results[i])[0] == f"handler_{i}"


async def test_cancelled_request_leaves_the_server_serving(workspace):
    async with stdio_session(workspace) as session:
        with anyio.move_on_after(0.05):
            await session.call_tool("parse_source", {"source": "f(x, y)\n" * 60000, "language": "python"})
        assert names(await session.call_tool("lookup_symbol", {"query": "User"}))[0] == "User"


def test_eof_on_stdin_exits_cleanly(workspace):
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    done = subprocess.run(
        [SEXTANT, "mcp", "--root", str(workspace)],
        input=json.dumps(init) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "sextant"


def test_broad_roots_and_bad_addresses_are_refused(workspace):
    root = subprocess.run([SEXTANT, "mcp", "--root", "/"], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert root.returncode == 2 and "--allow-broad-root" in root.stderr
    public = subprocess.run(
        [SEXTANT, "mcp", "--root", str(workspace), "--http", "0.0.0.0:0"], capture_output=True, text=True, timeout=30
    )
    assert public.returncode == 2 and "loopback" in public.stderr
    missing = subprocess.run([SEXTANT, "mcp", "--root", str(workspace / "nope")], capture_output=True, text=True, timeout=30)
    assert missing.returncode == 2 and "nope" in missing.stderr


# --- streamable HTTP -------------------------------------------------------------------


async def test_http_happy_path_and_freshness(workspace):
    with http_server(workspace) as server:
        async with http_session(server.url) as session:
            assert {t.name for t in (await session.list_tools()).tools} == TOOLS
            assert names(await session.call_tool("lookup_symbol", {"query": "renderPage"})) == ["renderPage"]
            write(workspace, "web/page.ts", "export function paint(): void {}\n")
            await anyio.sleep(0.3)
            assert names(await session.call_tool("lookup_symbol", {"query": "paint"})) == ["paint"]
            assert error_code(await session.call_tool("outline", {"path": "../x.py"})) == "PATH_OUTSIDE_WORKSPACE"


async def test_http_checks_host_origin_and_token(workspace):
    import httpx2

    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
    env = {"SEXTANT_TEST_TOKEN": "s3cret-token"}
    with http_server(workspace, "--token-env", "SEXTANT_TEST_TOKEN", env=env) as server:
        async with httpx2.AsyncClient(timeout=10) as client:
            no_token = await client.post(server.url, json=body, headers=headers)
            assert no_token.status_code == 401
            wrong = await client.post(server.url, json=body, headers={**headers, "Authorization": "Bearer nope"})
            assert wrong.status_code == 401
            auth = {**headers, "Authorization": "Bearer s3cret-token"}
            ok = await client.post(server.url, json=body, headers=auth)
            assert ok.status_code == 200, ok.text
            evil_host = await client.post(server.url, json=body, headers={**auth, "Host": "evil.example"})
            assert evil_host.status_code in (400, 403, 421), evil_host.status_code
            evil_origin = await client.post(server.url, json=body, headers={**auth, "Origin": "http://evil.example"})
            assert evil_origin.status_code == 403, evil_origin.status_code
        async with http_session(server.url, headers={"Authorization": "Bearer s3cret-token"}) as session:
            assert names(await session.call_tool("lookup_symbol", {"query": "Config"}))[0] == "Config"


async def test_lookup_symbol_answers_from_the_files_indexed_so_far(tmp_path):
    # 600 files, one matching function each: the symbol index's shards hold 256 files, so
    # the first index builds three, and pauses after each one (a test hook).
    root = tmp_path / "many"
    for i in range(600):
        write(root, f"m{i:03}.py", f"def task_{i:03}():\n    pass\n")
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "2000"}
    async with stdio_session(root, "--no-cache", env=env) as session:
        partial = []
        for _ in range(400):
            result = await session.call_tool("lookup_symbol", {"query": "task_", "limit": 200})
            answer = result.structured_content
            if "partial" not in answer:
                break
            partial.append(answer)
            await anyio.sleep(0.05)
        # Each partial answer covers the files of the shards built so far, and every one of
        # those files, in path order.
        covered = [a["partial"]["files_indexed"] for a in partial]
        assert covered == sorted(covered)
        # (A call can take long on a busy machine and miss the second shard's two seconds.)
        assert 256 in covered and set(covered) <= {256, 512}, covered
        for a in partial:
            n = a["partial"]["files_indexed"]
            assert a["partial"]["files_total"] == 600
            assert a["total"] == n
            assert [s["name"] for s in a["symbols"]] == [f"task_{i:03}" for i in range(min(n, 200))]
            assert a["truncated"] == (n > 200)
        # Once every shard is built, the whole workspace answers, without the mark.
        assert answer["total"] == 600 and "partial" not in answer
        assert [s["name"] for s in answer["symbols"]] == [f"task_{i:03}" for i in range(200)]
        status = await wait_until_indexed(session)
        assert "progress" not in status
