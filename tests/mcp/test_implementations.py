"""`find_implementations` and `find_references`' `include_family` through the official MCP
Python SDK."""

import pytest

from conftest import stdio_session, tool_error, write

pytestmark = pytest.mark.anyio

SHAPES = "class Shape:\n    def area(self):\n        return 0\n\n\nclass Polygon(Shape):\n    def area(self):\n        return 1\n"
MORE = (
    "from shapes import Polygon\nimport shapes\n\n\n"
    "class Square(Polygon):\n    def area(self):\n        return 4\n\n\n"
    "class Circle(shapes.Shape):\n    pass\n\n\n"
    "def total(s: Polygon):\n    return s.area()\n"
)
DUPLICATE = "class Shape:\n    pass\n"


def project(workspace):
    write(workspace, "shapes.py", SHAPES)
    write(workspace, "more.py", MORE)


def brief(items):
    return [(i["name"], i["kind"], i["path"], i["name_span"]["start"]["line"], i["certainty"], i["depth"]) for i in items]


async def test_subclasses_at_every_level_by_position_and_by_name(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        at = await session.call_tool("find_implementations", {"path": "shapes.py", "line": 1, "column": 8})
        by_name = await session.call_tool("find_implementations", {"name": "shapes.Shape", "limit": 2})
        up = await session.call_tool("find_implementations", {"name": "Square", "direction": "supertypes"})
    assert not at.is_error
    content = at.structured_content
    assert content["subject"]["name"] == "Shape"
    assert content["direction"] == "implementations"
    assert brief(content["items"]) == [
        ("Circle", "class", "more.py", 10, "exact", 1),
        ("Polygon", "class", "shapes.py", 6, "exact", 1),
        ("Square", "class", "more.py", 5, "exact", 2),
    ]
    assert content["items"][0]["span"] == {
        "start": {"line": 10, "column": 1},
        "end": {"line": 11, "column": 9},
        "byte_start": 105,
        "byte_end": 141,
    }
    assert (content["total"], content["truncated"]) == (3, False)
    assert brief(by_name.structured_content["items"]) == brief(content["items"])[:2]
    assert (by_name.structured_content["total"], by_name.structured_content["truncated"]) == (3, True)
    assert brief(up.structured_content["items"]) == [
        ("Polygon", "class", "shapes.py", 6, "exact", 1),
        ("Shape", "class", "shapes.py", 1, "exact", 2),
    ]


async def test_overriding_methods_and_their_family_of_references(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        methods = await session.call_tool("find_implementations", {"name": "Shape.area"})
        plain = await session.call_tool("find_references", {"query": "Square.area"})
        family = await session.call_tool("find_references", {"query": "Square.area", "include_family": True})
    assert [(i["container"], i["path"], i["name_span"]["start"]["line"]) for i in methods.structured_content["items"]] == [
        ("Polygon", "shapes.py", 7),
        ("Square", "more.py", 6),
    ]
    assert [(r["path"], r["line"]) for r in plain.structured_content["references"]] == [("more.py", 6)]
    assert [(r["path"], r["line"], r["role"]) for r in family.structured_content["references"]] == [
        ("more.py", 6, "definition"),
        ("more.py", 15, "call"),
        ("shapes.py", 2, "definition"),
        ("shapes.py", 7, "definition"),
    ]


async def test_errors_use_the_stable_codes(workspace):
    project(workspace)
    write(workspace, "other/shapes2.py", DUPLICATE)
    async with stdio_session(workspace) as session:
        ambiguous = await session.call_tool("find_implementations", {"name": "Shape"})
        missing = await session.call_tool("find_implementations", {"name": "NoSuchType"})
        nothing_there = await session.call_tool("find_implementations", {"path": "more.py", "line": 3, "column": 1})
        no_target = await session.call_tool("find_implementations", {"path": "more.py", "line": 3})
        bad_direction = await session.call_tool("find_implementations", {"name": "Square", "direction": "down"})
        outside = await session.call_tool("find_implementations", {"path": "../x.py", "line": 1, "column": 1})
    error = tool_error(ambiguous)
    assert error["code"] == "AMBIGUOUS_SYMBOL"
    assert [(c["path"], c["name_span"]["start"]["line"]) for c in error["candidates"]] == [
        ("other/shapes2.py", 1),
        ("shapes.py", 1),
    ]
    assert tool_error(missing)["code"] == "NOT_FOUND"
    assert tool_error(nothing_there)["code"] == "NOT_FOUND"
    assert tool_error(no_target) == {
        "code": "INVALID_ARGUMENT",
        "message": "give either `name` (a name), or `path`, `line` and `column` (1-based)",
    }
    assert tool_error(bad_direction)["code"] == "INVALID_ARGUMENT"
    assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"


async def test_the_tool_is_read_only(workspace):
    async with stdio_session(workspace) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    annotations = tools["find_implementations"].annotations
    assert (annotations.read_only_hint, annotations.destructive_hint) == (True, False)
    assert set(tools["find_implementations"].input_schema["properties"]) == {"name", "path", "line", "column", "direction", "limit"}
