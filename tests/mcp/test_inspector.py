"""A second, independent client: the MCP Inspector's command-line mode (TypeScript SDK, whose
validator warns about non-standard schemas and checks every result against its tool's output
schema). `scripts/test` installs it under target/; without it these tests are skipped."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, SEXTANT, stdio_session, write

INSPECTOR = Path(os.environ.get("SEXTANT_INSPECTOR", REPO / "target" / "npm-tools" / "node_modules" / ".bin" / "mcp-inspector"))

pytestmark = pytest.mark.skipif(not INSPECTOR.exists(), reason=f"MCP Inspector not installed at {INSPECTOR}")


@pytest.fixture
def small(tmp_path: Path) -> Path:
    root = tmp_path / "small"
    write(root, "a.py", "def hello():\n    return 1\n")
    return root


def inspector(root: Path, method: str, *args: str) -> dict:
    """Runs the Inspector once; returns what it printed, after checking it printed nothing else."""
    done = subprocess.run(
        [str(INSPECTOR), "--cli", SEXTANT, "mcp", "--root", str(root), "--method", method, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (0, "")
    return json.loads(done.stdout)


def call(root: Path, tool: str, **arguments: str) -> dict:
    args = ["--tool-name", tool]
    for key, value in arguments.items():
        args += ["--tool-arg", f"{key}={value}"]
    result = inspector(root, "tools/call", *args)
    assert result["isError"] is False
    assert [c["type"] for c in result["content"]] == ["text"]
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"]
    return result["structuredContent"]


@pytest.mark.anyio
async def test_tools_list_matches_the_python_sdk_without_warnings(small):
    listed = inspector(small, "tools/list")
    async with stdio_session(small) as session:
        expected = (await session.list_tools()).model_dump(mode="json", by_alias=True, exclude_none=True)
    assert listed == {"tools": expected["tools"]}
    assert [t["name"] for t in listed["tools"]] == ["affected_tests", "apply_patch", "call_graph", "changes", "edit_symbol", "explain_diagnostic", "explore", "find_definition", "find_implementations", "find_references", "format_source", "impact", "import_graph", "list_imports", "lookup_symbol", "outline", "pack_context", "parse_source", "read_file", "read_symbol", "release_context", "rename_symbol", "repo_map", "search", "skeleton", "typecheck", "workspace_bootstrap", "workspace_status"]


def test_outline(small):
    assert call(small, "outline", path="a.py") == {
        "language": "python",
        "path": "a.py",
        "symbol_count": 1,
        "symbols": [{"name": "hello", "kind": "function", "line": 1, "end_line": 2, "signature": "def hello()"}],
        "truncated": False,
    }


def test_outline_with_full_positions(small):
    assert call(small, "outline", path="a.py", positions="full")["symbols"] == [
        {
            "name": "hello",
            "kind": "function",
            "line": 1,
            "end_line": 2,
            "signature": "def hello()",
            "span": {"start": {"line": 1, "column": 1}, "end": {"line": 2, "column": 13}, "byte_start": 0, "byte_end": 25},
            "name_span": {"start": {"line": 1, "column": 5}, "end": {"line": 1, "column": 10}, "byte_start": 4, "byte_end": 9},
        }
    ]


def test_lookup_symbol_with_an_integer_argument(small):
    """The Inspector turns `limit=5` into a number only when the schema's type is plainly
    `integer`; with `["integer", "null"]` it sent the string "5"."""
    assert call(small, "lookup_symbol", query="hello", limit="5", language="python") == {
        "query": "hello",
        "symbols": [
            {"name": "hello", "kind": "function", "path": "a.py", "line": 1, "end_line": 2, "signature": "def hello()"}
        ],
        "total": 1,
        "truncated": False,
    }


def test_parse_source(small):
    assert call(small, "parse_source", path="a.py", max_depth="2") == {
        "error_count": 0,
        "language": "python",
        "node_count": 7,
        "path": "a.py",
        "tree": (
            "(module 1:1-3:1)\n"
            "  (function_definition 1:1-2:13)\n"
            '    "def" 1:1-1:4\n'
            '    (identifier "hello" 1:5-1:10)\n'
            "    (parameters 1:10-1:12 …)\n"
            '    ":" 1:12-1:13\n'
            "    (block 2:5-2:13 …)\n"
        ),
        "truncated": False,
    }


def test_parse_source_errors_with_full_positions(small):
    write(small, "broken.py", "def f(:\n    pass\n")
    assert call(small, "parse_source", path="broken.py", max_depth="1", positions="full")["errors"] == [
        {
            "message": "missing `)`",
            "line": 1,
            "column": 7,
            "span": {"start": {"line": 1, "column": 7}, "end": {"line": 1, "column": 7}, "byte_start": 6, "byte_end": 6},
        }
    ]


def test_workspace_status(small):
    # Each Inspector run starts a new server; on a busy machine the first index of even one
    # file can outlast the two seconds `workspace_status` waits, so ask a few servers.
    for _ in range(5):
        status = call(small, "workspace_status")
        if status["ready"]:
            break
    assert isinstance(status.pop("index_ms"), float)
    # Whether the background check has caught up yet depends on timing.
    assert isinstance(status.pop("checked"), bool)
    # So does whether the server has been idle long enough to evict yet.
    assert isinstance(status.pop("evictions"), int)
    # Once ready, only the background check may still be running.
    assert status.pop("unfinished") in ([], ["checking"])
    # How much came from the persistent cache depends on how far the servers asked before
    # this one got: the small file's symbols were recorded or read, and nothing was faulty.
    cache = status.pop("cache")
    assert sorted(cache) == ["computed", "dir", "faults", "saves", "used"]
    assert cache["faults"] == 0 and cache["used"] + cache["computed"] >= 1
    # The process's memory varies from run to run; no limit is set. How many name tables
    # are alive depends on how far the check got; without a limit they may keep 32 MiB.
    memory = status.pop("memory")
    assert sorted(memory) == ["check_paused", "name_tables", "peak_bytes", "resident_bytes"]
    assert memory["check_paused"] is False and 0 < memory["resident_bytes"] <= memory["peak_bytes"]
    tables = memory["name_tables"]
    assert sorted(tables) == ["bytes", "kept_bytes", "peak_bytes", "tables"]
    assert tables["kept_bytes"] == 32 << 20 and tables["tables"] <= 1
    assert tables["bytes"] <= tables["peak_bytes"] and (tables["bytes"] > 0) == (tables["tables"] > 0)
    assert status == {
        "batches": 0,
        "languages": ["rust", "python", "javascript", "typescript", "tsx", "go"],
        "projects": [],
        "projects_total": 0,
        "limits": {
            "max_answer_tokens": 20000,
            "max_in_flight": 8,
            "max_request_bytes": 8388608,
            "max_response_chars": 60000,
            "max_source_bytes": 1048576,
            "request_timeout_ms": 30000,
        },
        "ready": True,
        "rescans": 0,
        "revision": 0,
        "root": str(small),
        "server_version": status["server_version"],
        "skipped": [],
        "skipped_total": 0,
        "stats": {
            "bytes": 26,
            "files": 1,
            "languages": [{"bytes": 26, "files": 1, "language": "python", "lines": 2, "lossy_files": 0, "symbols": 1}],
            "lines": 2,
            "symbols": 1,
            # Under 512 bytes: kept as read.
            "text_bytes_kept": 26,
        },
        "watching": True,
    }


def test_tool_errors_reach_a_typescript_client(small):
    """Regression: errors carried `{code, message}` as structured content, which the TypeScript
    SDK checks against the tool's output schema and rejected with -32602, so the model never
    saw the error."""
    result = inspector(small, "tools/call", "--tool-name", "outline", "--tool-arg", "path=nope.py")
    assert result["isError"] is True
    assert "structuredContent" not in result
    assert [json.loads(c["text"]) for c in result["content"]] == [
        {"code": "NOT_FOUND", "message": '"nope.py" does not exist'}
    ]


def test_apply_patch_and_edit_symbol_dry_runs(small):
    patch = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n def hello():\n-    return 1\n+    return 2\n"
    answer = call(small, "apply_patch", patch=patch)
    assert answer["applied"] is False
    assert answer["files"] == [{"path": "a.py", "status": "modified", "lines_added": 1, "lines_removed": 1}]
    assert answer["new_diagnostics"] == []
    edited = call(small, "edit_symbol", symbol="hello", operation="replace_body", text="return 3")
    assert (edited["definition"], edited["start_line"], edited["end_line"]) == ("function hello", 1, 2)
    assert edited["diff"].endswith("-    return 1\n+    return 3\n")
    assert (small / "a.py").read_text() == "def hello():\n    return 1\n"
