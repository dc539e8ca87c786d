"""`search` through the official MCP Python SDK: literal and regex hits with their enclosing
definitions, refusals with stable codes, and pages cut to a token budget that say where to
continue."""

import pytest

from conftest import stdio_session, tool_error, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def workspace(tmp_path):
    """An empty workspace (the shared one has files these tests would also find)."""
    root = tmp_path / "search"
    root.mkdir()
    return root

SHAPES = (
    "import math\n"                     # 1
    "\n"                                # 2
    "# area(): see Shape.area\n"        # 3
    "class Shape:\n"                    # 4
    "    def area(self):\n"             # 5
    "        return math.pi * 2\n"      # 6
    "\n"                                # 7
    "\n"                                # 8
    "def describe(shape):\n"            # 9
    "    label = \"area(\"\n"           # 10
    "    return shape.area()\n"         # 11
)
UTIL = "def area(w, h):\n    return w * h\n"


def project(workspace):
    write(workspace, "geo/shapes.py", SHAPES)
    write(workspace, "geo/util.py", UTIL)
    write(workspace, "geo.py", "AREA = 1\n")


async def test_literal_search_lists_hits_by_file_with_their_definitions(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        found = await session.call_tool("search", {"pattern": "area(", "context": 1})
    assert not found.is_error
    # `geo/` sorts before `geo.py` (path order component by component, as `rg --sort path`);
    # a definition is named where it changes (a file starts at the top level).
    assert found.content[0].text == (
        "geo/shapes.py\n"
        "2-\n"
        "3:# area(): see Shape.area\n"
        "4-class Shape:\n"
        "in method Shape.area, lines 5-6\n"
        "5:    def area(self):\n"
        "6-        return math.pi * 2\n"
        "--\n"
        "9-def describe(shape):\n"
        "in function describe, lines 9-11\n"
        "10:    label = \"area(\"\n"
        "11:    return shape.area()\n"
        "\n"
        "geo/util.py\n"
        "in function area, lines 1-2\n"
        "1:def area(w, h):\n"
        "2-    return w * h\n"
    )
    data = found.structured_content
    assert (data["matches"], data["truncated"], data["encoding"]) == (5, False, "o200k_base")
    assert [f["path"] for f in data["files"]] == ["geo/shapes.py", "geo/util.py"]
    assert data["files"][1]["lines"] == [
        {"line": 1, "text": "def area(w, h):", "column": 5,
         "symbol": {"name": "area", "kind": "function", "line": 1, "end_line": 2}},
        {"line": 2, "text": "    return w * h", "context": True},
    ]
    assert "next_offset" not in data


async def test_regex_case_globs_paths_and_regions(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        def lines(result):
            assert not result.is_error, result
            return [(f["path"], l["line"]) for f in result.structured_content["files"] for l in f["lines"]]

        regex = await session.call_tool("search", {"pattern": r"def \w+\(", "regex": True})
        assert lines(regex) == [("geo/shapes.py", 5), ("geo/shapes.py", 9), ("geo/util.py", 1)]
        smart = await session.call_tool("search", {"pattern": "area", "case": "smart", "globs": ["*.py", "!util.py"]})
        assert lines(smart) == [("geo/shapes.py", 3), ("geo/shapes.py", 5), ("geo/shapes.py", 10),
                                ("geo/shapes.py", 11), ("geo.py", 1)]
        upper = await session.call_tool("search", {"pattern": "AREA", "case": "smart"})
        assert lines(upper) == [("geo.py", 1)]
        under = await session.call_tool("search", {"pattern": "return", "paths": ["geo/util.py"]})
        assert lines(under) == [("geo/util.py", 2)]
        comments = await session.call_tool("search", {"pattern": "area", "only": "comments"})
        assert lines(comments) == [("geo/shapes.py", 3)]
        strings = await session.call_tool("search", {"pattern": "area", "only": "strings"})
        assert lines(strings) == [("geo/shapes.py", 10)]
        code = await session.call_tool("search", {"pattern": "area", "only": "code"})
        assert lines(code) == [("geo/shapes.py", 5), ("geo/shapes.py", 11), ("geo/util.py", 1)]
        nothing = await session.call_tool("search", {"pattern": "zebra"})
        assert nothing.content[0].text == "no matches\n"
        assert nothing.structured_content["matches"] == 0


async def test_refusals_have_stable_codes(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        bad_regex = await session.call_tool("search", {"pattern": "area(", "regex": True})
        outside = await session.call_tool("search", {"pattern": "x", "paths": ["../etc"]})
        missing = await session.call_tool("search", {"pattern": "x", "paths": ["nowhere.py"]})
        bad_glob = await session.call_tool("search", {"pattern": "x", "globs": ["a[b"]})
        too_long = await session.call_tool("search", {"pattern": "a" * 1001})
        unknown = await session.call_tool("search", {"pattern": "x", "grep": True})
        huge = await session.call_tool("search", {"pattern": r"\w{1000}{1000}", "regex": True})
    error = tool_error(bad_regex)
    assert error["code"] == "INVALID_ARGUMENT" and "unclosed group" in error["message"]
    assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"
    assert tool_error(missing)["code"] == "NOT_FOUND"
    assert tool_error(bad_glob)["code"] == "INVALID_ARGUMENT"
    assert tool_error(too_long)["code"] == "INVALID_ARGUMENT"
    assert tool_error(unknown)["code"] == "INVALID_ARGUMENT"
    error = tool_error(huge)
    assert error["code"] == "INVALID_ARGUMENT" and "size limit" in error["message"]


async def test_a_cut_answer_says_where_to_continue_and_continuing_gives_the_rest(workspace):
    body = "".join(f"def handler_{i}():\n    return {i}\n\n" for i in range(40))
    write(workspace, "handlers.py", body)
    async with stdio_session(workspace) as session:
        whole = await session.call_tool("search", {"pattern": "return"})
        assert not whole.is_error
        everything = [(l["line"], l["text"]) for f in whole.structured_content["files"] for l in f["lines"]]
        assert len(everything) == 40
        budget = whole.structured_content["tokens"] // 3
        seen, offset, pages = [], 0, 0
        while True:
            args = {"pattern": "return", "max_tokens": budget}
            if offset:
                args["offset"] = offset
            page = await session.call_tool("search", args)
            assert not page.is_error, page
            data, text = page.structured_content, page.content[0].text
            assert data["tokens"] <= budget
            seen += [(l["line"], l["text"]) for f in data["files"] for l in f["lines"]]
            pages += 1
            if not data["truncated"]:
                assert "next_offset" not in data and "continue with offset" not in text
                break
            assert data["next_offset"] == offset + data["matches"]
            assert text.endswith(f"[more matches not shown: continue with offset {data['next_offset']}]\n")
            offset = data["next_offset"]
        assert seen == everything
        assert pages >= 3
        limited = await session.call_tool("search", {"pattern": "return", "limit": 7})
        assert limited.structured_content["next_offset"] == 7
        assert limited.structured_content["matches"] == 7
        tiny = await session.call_tool("search", {"pattern": "return", "max_tokens": 3})
        assert tool_error(tiny)["code"] == "TOO_LARGE"


async def test_compressed_texts_answer_every_search_as_plain_ones(workspace):
    """Under a memory limit the texts are kept compressed and a literal search passes over
    files whose words cannot start a match (docs/memory.md): every answer must equal a
    server's that keeps its texts as read, matches inside words a digit begins included."""
    filler = "def step(x):\n    return x + 1\n\n" * 20
    write(workspace, "a.py", filler + "y = 2xfoo.bar(1)\n# see naïve_x and $el\n")
    write(workspace, "b.py", filler + "z = foo.bar(2)\nq = foo.baz\n")
    write(workspace, "c.js", filler.replace("def", "//") + "const v = $el.bar(3x);\n")
    # Without regard to case: the Kelvin sign matches `k`; `kid` starts no `key`.
    write(workspace, "d.py", filler + "w = Foo.\u212aEY(4)\n")
    write(workspace, "e.py", filler + "v = FOO.kid(5)\n")
    patterns = ["foo.bar(", "2xfoo", "xfoo.bar", ".bar", "bar(", " naïve_x", "($el", "$el.bar(3x",
                "= foo.baz", "(1)", "q = f"]
    folded = [("foo.key", "insensitive"), ("FOO.BAR(", "insensitive"), ("foo.k", "smart"),
              ("Foo.K", "smart")]
    # Regular expressions: by the literals their matches begin with, or end with.
    regexes = [(r"foo\.ba[rz]", "sensitive"), (r"\w+\.bar\(", "sensitive"),
               (r"\.(bar|baz)\b", "sensitive"), (r"foo\.KEY", "insensitive"),
               (r"\$el\.bar", "smart"), (r"[a-z]+\.ki", "sensitive")]

    async def answers(*args):
        async with stdio_session(workspace, "--no-cache", *args) as session:
            found = {}
            asked = [(p, c, False) for p, c in [(p, "sensitive") for p in patterns] + folded]
            for pattern, case, regex in asked + [(p, c, True) for p, c in regexes]:
                result = await session.call_tool(
                    "search", {"pattern": pattern, "case": case, "regex": regex})
                assert not result.is_error, result
                found[pattern] = [(f["path"], l["line"]) for f in result.structured_content["files"]
                                  for l in f["lines"]]
            stats = (await session.call_tool("workspace_status", {})).structured_content["stats"]
            return found, stats

    compressed, compressed_stats = await answers("--max-memory", "4G")
    plain, plain_stats = await answers()
    assert compressed_stats["text_bytes_kept"] < plain_stats["text_bytes_kept"] // 3
    assert compressed == plain
    assert plain["foo.bar("] == [("a.py", 61), ("b.py", 61)]
    assert plain[".bar"] == [("a.py", 61), ("b.py", 61), ("c.js", 61)]
    assert plain["$el.bar(3x"] == [("c.js", 61)]
    assert plain["foo.key"] == [("d.py", 61)]
    assert plain["FOO.BAR("] == [("a.py", 61), ("b.py", 61)]
    assert plain["foo.k"] == [("d.py", 61), ("e.py", 61)]
    assert plain["Foo.K"] == []
    assert plain[r"foo\.ba[rz]"] == [("a.py", 61), ("b.py", 61), ("b.py", 62)]
    assert plain[r"\w+\.bar\("] == [("a.py", 61), ("b.py", 61), ("c.js", 61)]
    assert plain[r"\.(bar|baz)\b"] == [("a.py", 61), ("b.py", 61), ("b.py", 62), ("c.js", 61)]
    assert plain[r"foo\.KEY"] == [("d.py", 61)]
    assert plain[r"\$el\.bar"] == [("c.js", 61)]
    assert plain[r"[a-z]+\.ki"] == []
