"""`skeleton` through the official MCP Python SDK: files with their bodies elided, the exact
text a model reads as text content, its token count, and cuts to `max_tokens` that say where
to continue."""

import json

import pytest

from conftest import stdio_session, tool_error, write

pytestmark = pytest.mark.anyio

SHAPES = '''"""Shapes."""


class Square:
    """A square."""

    def area(self) -> float:
        """Its area."""
        side = self.side
        return side * side


def unit_square(scale: float = 1.0) -> Square:
    square = Square()
    square.side = scale
    return square
'''

UNITS = """/// A length in metres.
pub struct Metres(pub f64);

impl Metres {
    /// In feet.
    pub fn feet(&self) -> f64 {
        let metres = self.0;
        metres * 3.280_84
    }
}
"""


def project(root):
    write(root, "geo/shapes.py", SHAPES)
    write(root, "geo/units.rs", UNITS)
    # Enough top-level items that a small budget must cut inside the file.
    write(root, "many/items.py", "".join(
        f"def step_{i}(value):\n    value = value + {i}\n    return value * {i}\n\n\n" for i in range(40)
    ))


def body(start, end):
    return {"kind": "body", "start_line": start, "end_line": end}


async def call(session, args):
    result = await session.call_tool("skeleton", args)
    assert not result.is_error, result
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text, result.structured_content


async def test_a_directory_s_skeleton_is_its_files_with_bodies_marked(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        text, data = await call(session, {"paths": ["geo"]})
        again, data_again = await call(session, {"paths": ["geo/"]})
    assert text == (
        "==> geo/shapes.py <==\n" + SHAPES.split("        side =")[0].rstrip(" ")
        + "        ...  # lines 9-10\n\n\n"
        "def unit_square(scale: float = 1.0) -> Square: ...  # lines 14-16\n"
        "\n==> geo/units.rs <==\n"
        "/// A length in metres.\npub struct Metres(pub f64);\n\nimpl Metres {\n    /// In feet.\n"
        "    pub fn feet(&self) -> f64 { /* …7-8 */ }\n}\n"
    )
    assert (again, data_again) == (text, data), "the same answer, the same count"
    assert data["encoding"] == "o200k_base" and 0 < data["tokens"] <= data["max_tokens"]
    assert [(f["path"], f["language"], f["start_line"], f["end_line"], f["elided"]) for f in data["files"]] == [
        ("geo/shapes.py", "python", 1, 16, [body(9, 10), body(14, 16)]),
        ("geo/units.rs", "rust", 1, 10, [body(7, 8)]),
    ]
    for f in data["files"]:
        assert 0 < f["skeleton_tokens"] < f["file_tokens"], f
    assert (data["file_count"], data["omitted_count"]) == (2, 0)
    assert "next_offset" not in data and "omitted" not in data


async def test_the_encoding_changes_the_count_not_the_text(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        o200k_text, o200k = await call(session, {"paths": ["geo/units.rs"]})
        cl100k_text, cl100k = await call(session, {"paths": ["geo/units.rs"], "encoding": "cl100k_base"})
    assert o200k_text == cl100k_text
    assert cl100k["encoding"] == "cl100k_base"
    assert o200k["tokens"] > 0 and cl100k["tokens"] > 0


async def test_a_small_budget_cuts_between_files_and_pages_continue(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        _, whole = await call(session, {"paths": ["geo", "src", "web"]})
        assert whole["file_count"] == 4 and "next_offset" not in whole
        budget = whole["files"][0]["skeleton_tokens"] + 40
        seen, offset, pages = [], 0, 0
        while offset is not None:
            text, page = await call(session, {"paths": ["geo", "src", "web"], "max_tokens": budget, "offset": offset})
            assert page["tokens"] <= budget and page["max_tokens"] == budget
            assert "next_line" not in page
            seen += [f["path"] for f in page["files"]]
            offset = page.get("next_offset")
            if offset is not None:
                assert page["omitted"][0]["path"] not in seen
                assert page["omitted_count"] == 4 - len(seen) == len(page["omitted"])
                assert all(o["skeleton_tokens"] > 0 for o in page["omitted"])
                assert text.endswith(f"[cut: continue with offset {offset}; {4 - offset} files left]\n")
            pages += 1
    assert seen == ["geo/shapes.py", "geo/units.rs", "src/lib.rs", "web/page.ts"]
    assert pages > 1


async def test_a_file_too_large_alone_is_cut_between_top_level_items(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        _, whole = await call(session, {"paths": ["many/items.py"]})
        budget = whole["tokens"] // 3
        lines, start, pages = [], None, 0
        while True:
            args = {"paths": ["many/items.py"], "max_tokens": budget}
            if start is not None:
                args |= {"offset": 0, "line": start}
            text, page = await call(session, args)
            assert page["tokens"] <= budget
            [shown] = page["files"]
            assert shown["start_line"] == (start or 1)
            assert text.splitlines()[1].startswith(f"def step_{(shown['start_line'] - 1) // 5}(value): ...  # lines ")
            lines.append((shown["start_line"], shown["end_line"]))
            pages += 1
            if "next_line" not in page:
                break
            assert page["next_offset"] == 0 and page["next_line"] > shown["start_line"]
            start = page["next_line"]
    assert pages >= 3
    assert lines[0][0] == 1 and lines[-1][1] == 200
    assert all(b[0] > a[0] for a, b in zip(lines, lines[1:]))


async def test_bad_paths_and_arguments_are_refused_with_stable_codes(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        async def code(args):
            return tool_error(await session.call_tool("skeleton", args))["code"]

        assert await code({"paths": ["../outside"]}) == "PATH_OUTSIDE_WORKSPACE"
        assert await code({"paths": ["/etc/passwd"]}) == "PATH_OUTSIDE_WORKSPACE"
        assert await code({"paths": ["geo/missing.py"]}) == "NOT_FOUND"
        assert await code({"paths": ["README.txt"]}) == "NOT_FOUND"
        assert await code({"paths": ["geo"] * 101}) == "INVALID_ARGUMENT"
        assert await code({"paths": ["g" * 1025]}) == "INVALID_ARGUMENT"
        assert await code({"paths": ["geo"], "max_tokens": 0}) == "INVALID_ARGUMENT"
        assert await code({"paths": ["geo"], "limit": 3}) == "INVALID_ARGUMENT"
        assert await code({"paths": ["geo/units.rs"], "max_tokens": 1}) == "TOO_LARGE"
        listed = {t.name: t for t in (await session.list_tools()).tools}
    tool = listed["skeleton"]
    assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    schema = tool.input_schema
    assert schema["additionalProperties"] is False
    assert schema["properties"]["paths"]["maxItems"] == 100
    assert json.dumps(schema["properties"]["paths"]).count('"maxLength": 1024') == 1
