"""`read_symbol` and `read_file` through the official MCP Python SDK: code for a model,
counted exactly (against the reference tokenizer) and never over the budget."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, stdio_session, tool_error, write

pytestmark = pytest.mark.anyio

SHAPES = '''import math


# The unit circle's friend.
@register
@other(
    "x",
)
def area(r):
    """Area of a circle."""
    return math.pi * r * r


class Square:
    def __init__(self, side):
        self.side = side

    @property
    def area(self):
        return self.side ** 2
'''

LIB = '''/// The configuration.
#[derive(Debug)]
pub struct Config {
    pub name: String,
}

impl Config {
    /// A new one.
    pub fn new() -> Config {
        Config { name: String::new() }
    }
}
'''


_tokenizer: subprocess.Popen | None = None


def reference_tokens(text: str, encoding: str = "o200k_base") -> int:
    """The count of the reference tokenizer (js-tiktoken, installed by scripts/test).

    One tokenizer process serves the whole test run: starting one and loading its rank
    files costs about a second, which once a count made these tests minutes slower."""
    global _tokenizer
    assert shutil.which("node"), "node is needed for the reference tokenizer"
    if _tokenizer is None or _tokenizer.poll() is not None:
        _tokenizer = subprocess.Popen(
            ["node", str(REPO / "tests" / "oracle" / "reference_tokens.mjs")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8",
        )
    _tokenizer.stdin.write(json.dumps({"encoding": encoding, "text": text}) + "\n")
    _tokenizer.stdin.flush()
    answer = _tokenizer.stdout.readline()
    assert answer, "the reference tokenizer stopped"
    return json.loads(answer)["tokens"]


def text_of(result) -> str:
    assert not result.is_error, result
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def project(root: Path):
    write(root, "geo/shapes.py", SHAPES)
    write(root, "geo/other.py", "def area(x):\n    return x\n")
    write(root, "src/lib.rs", LIB)
    write(root, "notes.md", "# Notes\n\nfirst\nsecond\nthird\n")


async def test_a_definition_comes_with_its_comments_and_decorators_counted_exactly(tmp_path):
    project(tmp_path)
    async with stdio_session(tmp_path) as session:
        result = await session.call_tool(
            "read_symbol", {"targets": [{"symbol": "shapes.area"}, {"symbol": "Config::new"}]}
        )
    text = text_of(result)
    assert text == (
        'geo/shapes.py:4-11 function area\n```python\n# The unit circle\'s friend.\n@register\n'
        '@other(\n    "x",\n)\ndef area(r):\n    """Area of a circle."""\n    return math.pi * r * r\n```\n'
        "\n"
        "src/lib.rs:8-11 method Config.new\n```rust\n    /// A new one.\n    pub fn new() -> Config {\n"
        "        Config { name: String::new() }\n    }\n```\n"
    )
    data = result.structured_content
    assert data["text"] == text
    assert data["tokens"] == reference_tokens(text)
    assert (data["status"], data["encoding"]) == ("complete", "o200k_base")
    assert [(p["path"], p["start_line"], p["end_line"], p["kind"], p["name"]) for p in data["pieces"]] == [
        ("geo/shapes.py", 4, 11, "function", "area"),
        ("src/lib.rs", 8, 11, "method", "Config.new"),
    ]


async def test_an_ambiguous_name_lists_candidates_and_a_missing_one_is_named(tmp_path):
    project(tmp_path)
    async with stdio_session(tmp_path) as session:
        both = await session.call_tool("read_symbol", {"targets": [{"symbol": "area"}, {"symbol": "nowhere"}]})
        missing = await session.call_tool("read_symbol", {"targets": [{"symbol": "nowhere"}]})
    data = both.structured_content
    assert data["pieces"] == []
    assert data["not_found"] == ["nowhere"]
    assert data["ambiguous"] == [{
        "name": "area",
        "candidates": [
            {"path": "geo/other.py", "line": 1, "kind": "function"},
            {"path": "geo/shapes.py", "line": 9, "kind": "function"},
            {"path": "geo/shapes.py", "line": 19, "kind": "function"},
        ],
    }]
    assert text_of(both).startswith("`area` names 3 definitions; ask for one by path and line:\n")
    assert tool_error(missing) == {"code": "NOT_FOUND", "message": "no definition named nowhere"}


async def test_targets_go_in_by_priority_and_the_cursor_continues(tmp_path):
    project(tmp_path)
    targets = [
        {"path": "geo/shapes.py", "line": 16},
        {"path": "src/lib.rs"},
        {"path": "geo/shapes.py", "start_line": 1, "end_line": 2},
    ]
    async with stdio_session(tmp_path) as session:
        whole = await session.call_tool("read_symbol", {"targets": targets})
        first_cost = whole.structured_content["pieces"][0]["tokens"]
        budget = first_cost + 5
        cut = await session.call_tool("read_symbol", {"targets": targets, "max_tokens": budget})
        rest = await session.call_tool(
            "read_symbol", {"targets": targets, "cursor": cut.structured_content["next_cursor"]}
        )
        tiny = await session.call_tool("read_symbol", {"targets": [{"path": "src/lib.rs"}], "max_tokens": 30})
        more = await session.call_tool(
            "read_symbol", {"targets": [{"path": "src/lib.rs"}], "cursor": tiny.structured_content["next_cursor"]}
        )
    assert [p["target"] for p in whole.structured_content["pieces"]] == [0, 1, 2]
    data = cut.structured_content
    assert data["tokens"] <= budget and data["tokens"] == reference_tokens(text_of(cut))
    assert (data["status"], data["next_cursor"]) == ("with_omissions", "1:1")
    assert [p["target"] for p in data["pieces"]] == [0]
    assert [(o["target"], o["path"]) for o in data["omitted"]] == [(1, "src/lib.rs"), (2, "geo/shapes.py")]
    assert [p["target"] for p in rest.structured_content["pieces"]] == [1, 2]
    # A file too large for the budget on its own: its first lines, then the rest.
    small = tiny.structured_content
    assert small["tokens"] <= 30 and small["pieces"][0]["cut"] is True
    last = small["pieces"][0]["end_line"]
    assert small["next_cursor"] == f"0:{last + 1}"
    assert more.structured_content["pieces"][0]["start_line"] == last + 1
    assert text_of(more).startswith(f"src/lib.rs:{last + 1}-12 (continued)\n```rust\n")
    assert text_of(tiny).startswith(f"src/lib.rs:1-{last}\n```rust\n/// The configuration.\n")


async def test_a_definition_read_by_name_continues_from_its_cursor(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(60))
    write(tmp_path, "big.py", "def big():\n" + body + "    return 0\n")
    async with stdio_session(tmp_path) as session:
        targets = [{"symbol": "big"}]
        first = (await session.call_tool("read_symbol", {"targets": targets, "max_tokens": 120})).structured_content
        last = first["pieces"][0]["end_line"]
        assert (first["pieces"][0]["cut"], first["next_cursor"]) == (True, f"0:{last + 1}")
        more = await session.call_tool("read_symbol", {"targets": targets, "max_tokens": 120, "cursor": first["next_cursor"]})
        piece = more.structured_content["pieces"][0]
        assert (piece["start_line"], piece["name"]) == (last + 1, "big")
        assert text_of(more).startswith(f"big.py:{last + 1}-{piece['end_line']} function big (continued)\n```python\n    x{last - 1} = {last - 1}\n")


async def test_an_outline_gives_each_definition_its_token_cost(tmp_path):
    project(tmp_path)
    async with stdio_session(tmp_path) as session:
        result = await session.call_tool(
            "read_symbol", {"targets": [{"path": "geo/shapes.py", "outline": True}], "encoding": "cl100k_base"}
        )
    text = text_of(result)
    lines = text.splitlines()
    assert lines[0] == f"geo/shapes.py: 4 definitions, {reference_tokens(SHAPES, 'cl100k_base')} tokens in all"
    area = "def area(r):\n    \"\"\"Area of a circle.\"\"\"\n    return math.pi * r * r"
    assert lines[1] == f"  9-11 function area ({reference_tokens(area, 'cl100k_base')} tokens)"
    assert [line.split(" (")[0] for line in lines[2:]] == [
        "  14-20 class Square", "    15-16 method Square.__init__", "    19-20 method Square.area",
    ]
    assert result.structured_content["tokens"] == reference_tokens(text, "cl100k_base")


async def test_read_file_reads_any_text_file_in_pages(tmp_path):
    project(tmp_path)
    write(tmp_path, "blob.bin", b"\x00\x01binary")
    async with stdio_session(tmp_path) as session:
        page = await session.call_tool("read_file", {"path": "notes.md", "offset": 2, "limit": 2})
        last = await session.call_tool("read_file", {"path": "notes.md", "offset": page.structured_content["next_offset"]})
        binary = await session.call_tool("read_file", {"path": "blob.bin"})
        outside = await session.call_tool("read_file", {"path": "../x.py"})
        absent = await session.call_tool("read_file", {"path": "gone.py"})
    assert text_of(page) == "notes.md:2-3\n```\n\nfirst\n```\n"
    assert page.structured_content == {
        "path": "notes.md", "start_line": 2, "end_line": 3, "total_lines": 5,
        "tokens": reference_tokens(text_of(page)), "encoding": "o200k_base", "next_offset": 4,
    }
    assert text_of(last) == "notes.md:4-5\n```\nsecond\nthird\n```\n"
    assert "next_offset" not in last.structured_content
    assert tool_error(binary)["code"] == "INVALID_ARGUMENT"
    assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"
    assert tool_error(absent)["code"] == "NOT_FOUND"


async def test_bad_targets_and_budgets_are_refused_with_their_codes(tmp_path):
    project(tmp_path)
    async with stdio_session(tmp_path, "--max-answer-tokens", "50") as session:
        calls = {
            "empty": {"targets": []},
            "too_many": {"targets": [{"symbol": "area"}] * 51},
            "mixed": {"targets": [{"symbol": "area", "path": "geo/shapes.py"}]},
            "backwards": {"targets": [{"path": "geo/shapes.py", "start_line": 5, "end_line": 2}]},
            "unknown_field": {"targets": [{"symbol": "area", "depth": 2}]},
            "zero": {"targets": [{"symbol": "Square"}], "max_tokens": 0},
            "cursor": {"targets": [{"symbol": "Square"}], "cursor": "7:1"},
            "escape": {"targets": [{"path": "../../etc/passwd"}]},
            "long": {"targets": [{"symbol": "x" * 2000}]},
        }
        errors = {name: tool_error(await session.call_tool("read_symbol", args))["code"] for name, args in calls.items()}
        capped = await session.call_tool("read_symbol", {"targets": [{"path": "geo/shapes.py"}], "max_tokens": 5000})
    assert errors == {
        "empty": "INVALID_ARGUMENT", "too_many": "INVALID_ARGUMENT", "mixed": "INVALID_ARGUMENT",
        "backwards": "INVALID_ARGUMENT", "unknown_field": "INVALID_ARGUMENT", "zero": "INVALID_ARGUMENT",
        "cursor": "INVALID_ARGUMENT", "escape": "PATH_OUTSIDE_WORKSPACE", "long": "TOO_LARGE",
    }
    # The server's cap wins over a larger max_tokens.
    assert capped.structured_content["max_tokens"] == 50
    assert capped.structured_content["tokens"] <= 50


async def test_reads_of_one_run_share_its_budget(tmp_path):
    project(tmp_path)
    target = {"targets": [{"path": "geo/shapes.py"}]}
    async with stdio_session(tmp_path) as session:
        alone = await session.call_tool("read_symbol", target)
        cost = alone.structured_content["tokens"]
        first = await session.call_tool("read_symbol", {**target, "run_id": "task-1", "run_max_tokens": cost + 40})
        second = await session.call_tool("read_symbol", {**target, "run_id": "task-1"})
        third = await session.call_tool("read_symbol", {**target, "run_id": "task-1"})
        changed = await session.call_tool("read_symbol", {**target, "run_id": "task-1", "run_max_tokens": 5})
        lone = await session.call_tool("read_symbol", {**target, "run_max_tokens": 5})
    assert first.structured_content["run"] == {"id": "task-1", "max_tokens": cost + 40, "used": cost, "remaining": 40}
    # What is left is less than the file: its first lines, counted against the run.
    data = second.structured_content
    assert data["max_tokens"] == 40 and 0 < data["tokens"] <= 40 and data["pieces"][0]["cut"] is True
    assert data["run"]["used"] == cost + data["tokens"]
    if data["run"]["remaining"] == 0:
        assert tool_error(third)["code"] == "BUDGET_EXHAUSTED"
    else:
        assert third.structured_content["tokens"] <= data["run"]["remaining"]
    assert tool_error(changed)["code"] == "INVALID_ARGUMENT"
    assert tool_error(lone)["code"] == "INVALID_ARGUMENT"


async def test_workspace_bootstrap_in_one_call_within_its_budget(tmp_path):
    project(tmp_path)
    write(tmp_path, "CLAUDE.md", "Use make.\n")
    write(tmp_path, "Makefile", "test:\n\tpytest\n")
    # A real repository, committed and clean (git runs only to make the fixture).
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "start"]):
        subprocess.run(git + args, cwd=tmp_path, check=True)
    commit = subprocess.run(git + ["rev-parse", "--short", "HEAD"], cwd=tmp_path, check=True,
                            capture_output=True, text=True).stdout.strip()
    async with stdio_session(tmp_path) as session:
        full = await session.call_tool("workspace_bootstrap", {})
        small = await session.call_tool("workspace_bootstrap", {"max_tokens": 30})
    text = text_of(full)
    data = full.structured_content
    assert data["tokens"] == reference_tokens(text) and data["truncated"] is False
    assert data["instruction_files"] == ["CLAUDE.md"]
    assert data["commands"] == [{"command": "make test", "source": "Makefile"}]
    assert data["git"] == {"branch": "main", "commit": commit, "dirty": False, "changed": 0, "untracked": 0}
    assert [d["path"] for d in data["layout"]] == ["geo", "src"]
    assert "Read first: CLAUDE.md\n" in text and f"Git: branch main at {commit}, clean\n" in text
    cut = small.structured_content
    assert cut["truncated"] is True and cut["tokens"] <= 30
    assert cut["tokens"] == reference_tokens(text_of(small))
