"""`call_graph`, `impact` and `affected_tests` through the official MCP Python SDK: the
tree a model reads, the graph a program reads, exact token counts within the budget, and
refusals with stable codes."""

import pytest

from conftest import stdio_session, tool_error, write
from test_read import reference_tokens, text_of

pytestmark = pytest.mark.anyio

GEOMETRY = """class Shape:
    def __init__(self, r):
        self.r = r

    def area(self):
        return square(self.r)


def square(x):
    return x * x
"""
APP = """from geo import Shape, square as sq


def main():
    return Shape(2).area() + sq(3)
"""
TESTS = """from geo import Shape


def test_area():
    assert Shape(1).area() == 1
"""


def project(root):
    write(root, "geo.py", GEOMETRY)
    write(root, "app.py", APP)
    write(root, "tests/test_geo.py", TESTS)


async def test_call_graph_answers_a_tree_and_the_graph(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        result = await session.call_tool("call_graph", {"query": "square", "direction": "incoming", "depth": 2})
        by_position = await session.call_tool(
            "call_graph", {"path": "app.py", "line": 5, "column": 31, "direction": "incoming", "depth": 2}
        )
    text = text_of(result)
    assert text == (
        "function square (geo.py:9)\n"
        "called by:\n"
        "  function main (app.py:4): call at 5:30\n"
        "  method Shape.area (geo.py:5): call at 6:16\n"
        "    function main (app.py:4): call at 5:21\n"
        "    function test_area (tests/test_geo.py:4): call at 5:21\n"
    )
    data = result.structured_content
    assert data["tokens"] == reference_tokens(text)
    assert (data["direction"], data["depth"], data["truncated"]) == ("incoming", 2, False)
    assert [(n["name"], n["kind"], n["path"], n["line"]) for n in data["nodes"]] == [
        ("square", "function", "geo.py", 9),
        ("main", "function", "app.py", 4),
        ("area", "method", "geo.py", 5),
        ("test_area", "function", "tests/test_geo.py", 4),
    ]
    assert data["edges"][0] == {
        "caller": 1, "callee": 0, "kind": "call", "certainty": "exact", "distance": 1,
        "sites": [{"line": 5, "column": 30}],
    }
    # The position of a call (`sq(3)`, through an alias) names the function called.
    assert text_of(by_position) == text


async def test_call_graph_cuts_the_farthest_edges_to_the_budget(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        whole = await session.call_tool("call_graph", {"query": "square", "direction": "incoming", "depth": 2})
        full_tokens = whole.structured_content["tokens"]
        cut = await session.call_tool(
            "call_graph", {"query": "square", "direction": "incoming", "depth": 2, "max_tokens": full_tokens - 1}
        )
        tiny = await session.call_tool("call_graph", {"query": "square", "max_tokens": 3})
    data = cut.structured_content
    assert data["truncated"] is True
    assert data["tokens"] == reference_tokens(text_of(cut)) <= full_tokens - 1
    # The farthest edge went: `test_area`, reached only through it, went with it.
    assert [e["distance"] for e in data["edges"]] == [1, 1, 2]
    assert [n["name"] for n in data["nodes"]] == ["square", "main", "area"]
    assert tool_error(tiny)["code"] == "TOO_LARGE"


async def test_call_graph_refusals(workspace):
    project(workspace)
    write(workspace, "other.py", "def area():\n    return 0\n\nLIMIT = 3\n")
    async with stdio_session(workspace) as session:
        ambiguous = await session.call_tool("call_graph", {"query": "area"})
        constant = await session.call_tool("call_graph", {"query": "LIMIT"})
        missing = await session.call_tool("call_graph", {"query": "nothing_here"})
        depth = await session.call_tool("call_graph", {"query": "square", "depth": 11})
        outside = await session.call_tool("call_graph", {"path": "../x.py", "line": 1, "column": 1})
    error = tool_error(ambiguous)
    assert error["code"] == "AMBIGUOUS_SYMBOL"
    assert error["candidates"] == [
        {"path": "geo.py", "line": 5, "kind": "function"},
        {"path": "other.py", "line": 1, "kind": "function"},
    ]
    assert tool_error(constant)["code"] == "INVALID_TARGET"
    assert tool_error(missing)["code"] == "NO_SYMBOL"
    assert tool_error(depth)["code"] == "INVALID_ARGUMENT"
    assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"


async def test_impact_and_affected_tests(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        impact = await session.call_tool("impact", {"symbols": ["square"]})
        lines = await session.call_tool("impact", {"lines": [{"path": "geo.py", "start": 6, "end": 6}]})
        tests = await session.call_tool("affected_tests", {"paths": ["geo.py"]})
        none = await session.call_tool("impact", {})
        bad_lines = await session.call_tool("impact", {"lines": [{"path": "geo.py", "start": 40, "end": 41}]})
    text = text_of(impact)
    assert text == (
        "impact of geo.py:9 function square\n"
        "4 dependents in 3 files, 1 test among them\n"
        "1 step:\n"
        "  app.py top level imports function square (geo.py:9)\n"
        "  app.py:4 function main uses function square (geo.py:9)\n"
        "  geo.py:5 method Shape.area uses function square (geo.py:9)\n"
        "2 steps:\n"
        "  tests/test_geo.py:4 function test_area [test] uses method Shape.area (geo.py:5)\n"
    )
    data = impact.structured_content
    assert data["tokens"] == reference_tokens(text)
    assert (data["total"], data["files"], data["tests"], data["truncated"]) == (4, 3, 1, False)
    assert data["dependents"][0] == {
        "name": "app.py", "kind": "module", "path": "app.py", "line": 1, "end_line": 5,
        "distance": 1, "uses": "function square (geo.py:9)", "imports": True, "test": False,
    }
    assert data["dependents"][3] == {
        "name": "test_area", "kind": "function", "path": "tests/test_geo.py", "line": 4, "end_line": 5,
        "distance": 2, "uses": "method Shape.area (geo.py:5)", "test": True,
    }
    # Line 6 is inside `area`: its impact is `area`'s.
    assert [s["name"] for s in lines.structured_content["seeds"]] == ["area"]
    assert [(d["name"], d["distance"]) for d in lines.structured_content["dependents"]] == [
        ("main", 1), ("test_area", 1),
    ]
    assert [(d["path"], d["name"]) for d in tests.structured_content["dependents"]] == [
        ("tests/test_geo.py", "test_area"),
    ]
    assert tool_error(none)["code"] == "INVALID_ARGUMENT"
    assert tool_error(bad_lines)["code"] == "INVALID_ARGUMENT"


STORE = """class Store:
    def save(self):
        return 1


def persist(obj):
    return obj.save()


def direct():
    return Store().save()
"""


async def test_impact_follows_calls_matched_by_name_unless_exact(workspace):
    write(workspace, "store.py", STORE)
    write(workspace, "app.py", "from store import persist\n\n\ndef run(x):\n    return persist(x)\n")
    async with stdio_session(workspace) as session:
        guessed = await session.call_tool("impact", {"symbols": ["Store.save"]})
        exact = await session.call_tool("impact", {"symbols": ["Store.save"], "exact": True})
        tests = await session.call_tool("affected_tests", {"symbols": ["Store.save"], "exact": True})
    assert text_of(guessed) == (
        "impact of store.py:2 method Store.save\n"
        "4 dependents in 2 files, 0 tests among them, 3 only by calls matched by name\n"
        "1 step:\n"
        "  store.py:10 function direct uses method Store.save (store.py:2)\n"
        "  store.py:6 function persist uses method Store.save (store.py:2) (by name)\n"
        "2 steps:\n"
        "  app.py top level imports function persist (store.py:6) (by name)\n"
        "  app.py:4 function run uses function persist (store.py:6) (by name)\n"
    )
    data = guessed.structured_content
    assert (data["total"], data["heuristic"]) == (4, 3)
    assert data["dependents"][1] == {
        "name": "persist", "kind": "function", "path": "store.py", "line": 6, "end_line": 7,
        "distance": 1, "uses": "method Store.save (store.py:2)", "heuristic": True, "test": False,
    }
    assert [(d["name"], d["distance"]) for d in exact.structured_content["dependents"]] == [("direct", 1)]
    assert (exact.structured_content["total"], exact.structured_content["heuristic"]) == (1, 0)
    assert tests.structured_content["dependents"] == []


def git(root, *args):
    import subprocess

    subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "core.hooksPath=/dev/null",
         "-c", "commit.gpgsign=false", *args],
        cwd=root, check=True, capture_output=True,
    )


async def test_changes_of_the_working_tree(workspace):
    project(workspace)
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "first")
    write(workspace, "geo.py", GEOMETRY.replace("return x * x", "return x ** 2"))
    async with stdio_session(workspace) as session:
        from conftest import wait_until_indexed

        await wait_until_indexed(session)
        result = await session.call_tool("changes", {})
        small = await session.call_tool("changes", {"max_tokens": 60})
        tiny = await session.call_tool("changes", {"max_tokens": 5})
        bad = await session.call_tool("changes", {"revisions": "no-such-branch"})
    text = text_of(result)
    assert text == (
        "changes HEAD..working tree: 1 file, 1 changed definition\n"
        "geo.py (modified)\n"
        "  9: function square body changed (4 dependents, 1 test)\n"
        "affected tests (1):\n"
        "  tests/test_geo.py:4 function test_area [test]\n"
        "impact: 4 dependents in 3 files, 1 test among them\n"
        "1 step:\n"
        "  app.py top level imports function square (geo.py:9)\n"
        "  app.py:4 function main uses function square (geo.py:9)\n"
        "  geo.py:5 method Shape.area uses function square (geo.py:9)\n"
        "2 steps:\n"
        "  tests/test_geo.py:4 function test_area [test] uses method Shape.area (geo.py:5)\n"
    )
    data = result.structured_content
    assert data["tokens"] == reference_tokens(text)
    assert data["files"] == [{
        "path": "geo.py", "status": "modified",
        "definitions": [{
            "name": "square", "kind": "function", "line": 9, "end_line": 10, "change": "body_changed",
            "signature": "def square(x)", "dependents": 4, "tests": 1,
        }],
    }]
    assert [t["name"] for t in data["affected_tests"]] == ["test_area"]
    cut = small.structured_content
    assert text_of(small) == (
        "changes HEAD..working tree: 1 file, 1 changed definition\n"
        "geo.py (modified)\n"
        "  9: function square body changed (4 dependents, 1 test)\n"
        "(cut to the budget: ask with a larger max_tokens for every file, the tests and the impact)\n"
    )
    assert (cut["truncated"], cut["affected_tests"], cut["impact"]["dependents"]) == (True, [], [])
    assert cut["tokens"] <= 60 and cut["tokens"] == reference_tokens(text_of(small))
    assert cut["impact"]["truncated"] is True
    assert tool_error(tiny)["code"] == "TOO_LARGE"
    assert tool_error(bad)["code"] == "INVALID_ARGUMENT"


async def test_changes_of_a_removed_definition(workspace):
    """What still calls or imports a removed function is what its removal breaks."""
    project(workspace)
    git(workspace, "init", "-q")
    git(workspace, "add", "-A")
    git(workspace, "commit", "-qm", "first")
    write(workspace, "geo.py", GEOMETRY.replace("\n\ndef square(x):\n    return x * x\n", ""))
    async with stdio_session(workspace) as session:
        from conftest import wait_until_indexed

        await wait_until_indexed(session)
        result = await session.call_tool("changes", {})
    text = text_of(result)
    assert text == (
        "changes HEAD..working tree: 1 file, 1 changed definition\n"
        "geo.py (modified)\n"
        "  9: function square removed (4 dependents, 1 test)\n"
        "affected tests (1):\n"
        "  tests/test_geo.py:4 function test_area [test]\n"
        "impact: 4 dependents in 3 files, 1 test among them\n"
        "1 step:\n"
        "  app.py top level imports function square (geo.py:9, removed)\n"
        "  app.py:4 function main uses function square (geo.py:9, removed)\n"
        "  geo.py:5 method Shape.area uses function square (geo.py:9, removed)\n"
        "2 steps:\n"
        "  tests/test_geo.py:4 function test_area [test] uses method Shape.area (geo.py:5)\n"
    )
    data = result.structured_content
    assert data["tokens"] == reference_tokens(text)
    assert data["files"][0]["definitions"] == [{
        "name": "square", "kind": "function", "line": 9, "end_line": 10, "change": "removed",
        "signature": "def square(x)", "dependents": 4, "tests": 1,
    }]
    assert data["impact"]["dependents"][0] == {
        "name": "app.py", "kind": "module", "path": "app.py", "line": 1, "end_line": 5, "distance": 1,
        "uses": "function square (geo.py:9, removed)", "imports": True, "test": False,
    }


async def test_explore_answers_a_question_in_one_read(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        result = await session.call_tool("explore", {"terms": ["app.main", "square"], "max_tokens": 300})
        nothing = await session.call_tool("explore", {"terms": ["no_such_name"]})
        empty = await session.call_tool("explore", {"terms": []})
    text = text_of(result)
    assert text == (
        "## app.py\n"
        "app.py:4-5 function main\n"
        "```python\n"
        "def main():\n"
        "    return Shape(2).area() + sq(3)\n"
        "```\n"
        "## geo.py\n"
        "geo.py:9-10 function square\n"
        "```python\n"
        "def square(x):\n"
        "    return x * x\n"
        "```\n"
        "## call paths\n"
        "function main (app.py:4) -> function square (geo.py:9)\n"
        "## dependents (3 within 2 steps, 1 test)\n"
        "app.py top level imports function square (geo.py:9)\n"
        "geo.py:5 method Shape.area uses function square (geo.py:9)\n"
        "tests/test_geo.py:4 function test_area [test] uses method Shape.area (geo.py:5)\n"
    )
    data = result.structured_content
    assert data["tokens"] == reference_tokens(text) <= 300
    assert [(d["name"], d["shown"]) for d in data["definitions"]] == [("main", "full"), ("square", "full")]
    assert (data["dependents_shown"], data["dependents"], data["truncated"]) == (3, 3, False)
    assert data["call_paths"] == [["function main (app.py:4)", "function square (geo.py:9)"]]
    assert tool_error(nothing)["code"] == "NOT_FOUND"
    assert tool_error(empty)["code"] == "INVALID_ARGUMENT"


async def test_explore_reads_a_question_in_words(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        result = await session.call_tool("explore", {"terms": ["Where is a square computed?"], "max_tokens": 300})
        nothing = await session.call_tool("explore", {"terms": ["how is it done"]})
    text = text_of(result)
    assert text == (
        "words: square; dropped: where, is, a, computed\n"
        "## geo.py\n"
        "geo.py:9-10 function square\n"
        "```python\n"
        "def square(x):\n"
        "    return x * x\n"
        "```\n"
        "## dependents (4 within 2 steps, 1 test)\n"
        "app.py top level imports function square (geo.py:9)\n"
        "app.py:4 function main uses function square (geo.py:9)\n"
        "geo.py:5 method Shape.area uses function square (geo.py:9)\n"
        "tests/test_geo.py:4 function test_area [test] uses method Shape.area (geo.py:5)\n"
    )
    data = result.structured_content
    assert data["tokens"] == reference_tokens(text) <= 300
    assert data["words_used"] == [{"words": ["square"], "name": "square"}]
    assert data["words_dropped"] == ["where", "is", "a", "computed"]
    assert [(d["term"], d["name"]) for d in data["definitions"]] == [("square", "square")]
    assert tool_error(nothing)["code"] == "NOT_FOUND"
