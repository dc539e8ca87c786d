"""`repo_map` through the official MCP Python SDK: the workspace's most-used definitions,
ranked over resolved references, as the exact text a model reads, its token count checked
against the reference tokenizer, cut to `max_tokens`, and moved by `focus`."""

import pytest

from conftest import stdio_session, tool_error, write
from test_read import reference_tokens

pytestmark = pytest.mark.anyio

SHAPES = """class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


def unit():
    return Square(1)
"""

REPORT = """from geo.shapes import Square, unit


def report():
    return unit().area() + Square(2).area()
"""

LIB = """pub mod units;

use crate::units::metres;

pub fn total() -> f64 {
    metres(1.0) + metres(2.0)
}
"""

UNITS = """pub struct Metres(pub f64);

pub fn metres(x: f64) -> Metres {
    Metres(x)
}
"""

WHOLE = (
    "src/units.rs:\n1: pub struct Metres(pub f64)\n3: pub fn metres(x: f64) -> Metres\n\n"
    "geo/shapes.py:\n1: class Square\n2:   def __init__(self, side)\n5:   def area(self)\n9: def unit()\n\n"
    "geo/report.py:\n4: def report()\n\n"
    "src/lib.rs:\n1: pub mod units\n5: pub fn total() -> f64\n"
)


@pytest.fixture
def mapped(tmp_path):
    root = tmp_path / "map"
    project(root)
    return root


def project(root):
    write(root, "geo/shapes.py", SHAPES)
    write(root, "geo/report.py", REPORT)
    write(root, "Cargo.toml", '[package]\nname = "units"\nversion = "0.1.0"\nedition = "2021"\n')
    write(root, "src/lib.rs", LIB)
    write(root, "src/units.rs", UNITS)


async def call(session, args):
    result = await session.call_tool("repo_map", args)
    assert not result.is_error, result
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text, result.structured_content


async def test_the_map_ranks_definitions_by_use_and_counts_its_text(mapped):
    async with stdio_session(mapped) as session:
        text, data = await call(session, {})
    # `Metres` is what `metres` uses, which `total` calls twice; `Square` is used from
    # two functions, one in another file.
    assert text == WHOLE
    assert data == {
        "tokens": reference_tokens(text), "encoding": "o200k_base", "max_tokens": 4000,
        "definitions_shown": 9, "definition_count": 9, "files_shown": 4, "file_count": 4,
        "truncated": False,
    }


async def test_a_budget_cuts_in_rank_order_and_focus_moves_the_rank(mapped):
    async with stdio_session(mapped) as session:
        cut, data = await call(session, {"max_tokens": 40})
        focused, _ = await call(session, {"focus": ["report"]})
        under, under_data = await call(session, {"path": "geo", "encoding": "cl100k_base"})
        unmatched, unmatched_data = await call(session, {"focus": ["nowhere"], "max_tokens": 40})
    assert cut == (
        "src/units.rs:\n1: pub struct Metres(pub f64)\n\n"
        "… 8 more definitions (raise max_tokens, narrow the path or focus)\n"
    )
    assert data["tokens"] == reference_tokens(cut) <= 40
    assert (data["definitions_shown"], data["files_shown"], data["truncated"]) == (1, 1, True)
    assert focused.startswith("geo/report.py:\n4: def report()\n\ngeo/shapes.py:\n"), focused
    assert under == (
        "geo/shapes.py:\n1: class Square\n2:   def __init__(self, side)\n5:   def area(self)\n9: def unit()\n\n"
        "geo/report.py:\n4: def report()\n"
    )
    assert under_data["tokens"] == reference_tokens(under, "cl100k_base")
    assert (under_data["file_count"], under_data["definition_count"]) == (2, 5)
    assert (unmatched, unmatched_data["unmatched_focus"]) == (cut, ["nowhere"])


async def test_bad_paths_and_arguments_are_refused_with_stable_codes(mapped):
    async with stdio_session(mapped) as session:
        async def code(args):
            return tool_error(await session.call_tool("repo_map", args))["code"]

        assert await code({"path": "../outside"}) == "PATH_OUTSIDE_WORKSPACE"
        assert await code({"path": "/etc"}) == "PATH_OUTSIDE_WORKSPACE"
        assert await code({"path": "geo/missing"}) == "NOT_FOUND"
        assert await code({"focus": ["geo"] * 101}) == "INVALID_ARGUMENT"
        assert await code({"focus": [""]}) == "INVALID_ARGUMENT"
        assert await code({"max_tokens": 0}) == "INVALID_ARGUMENT"
        assert await code({"paths": ["geo"]}) == "INVALID_ARGUMENT"
        assert await code({"max_tokens": 1}) == "TOO_LARGE"
        listed = {t.name: t for t in (await session.list_tools()).tools}
    tool = listed["repo_map"]
    assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    assert tool.annotations.idempotent_hint is True and tool.annotations.open_world_hint is False
    schema = tool.input_schema
    assert schema["additionalProperties"] is False
    assert schema["properties"]["focus"]["maxItems"] == 100


async def test_the_server_cap_lowers_the_default_budget(mapped):
    async with stdio_session(mapped, "--max-answer-tokens", "40") as session:
        text, data = await call(session, {})
    assert data["max_tokens"] == 40 and data["tokens"] == reference_tokens(text) <= 40
