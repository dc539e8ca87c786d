"""`edit_symbol` through the MCP Python SDK: each operation on a Python method and on a
braced language's function, the new text re-indented to its place, a name naming two
definitions refused with the candidates, `delete` refused while references remain and
forced, and the edit going the way of every patch (dry run, new diagnostics, `apply`)."""

import pytest

from conftest import stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio

SHAPES = '''class Rect:
    """A rectangle."""

    def __init__(self, w, h):
        self.w = w
        self.h = h

    # The surface.
    def area(self):
        return self.w * self.h


def unused():
    return 0
'''

USE = "from app.shapes import Rect\n\nprint(Rect(1, 2).area())\n"

GEO_TS = """export function area(w: number, h: number): number {
  return w * h;
}

export function perimeter(w: number, h: number): number {
  return 2 * (w + h);
}
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "app/__init__.py", "")
    write(root, "app/shapes.py", SHAPES)
    write(root, "app/use.py", USE)
    write(root, "web/geo.ts", GEO_TS)
    write(root, "other/area.py", "def area():\n    return 1\n")
    return root


async def edit(session, **args):
    return await session.call_tool("edit_symbol", args)


async def test_replace_body_reindents_the_text_and_writes_only_with_apply(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        dry = await edit(session, symbol="Rect.area", operation="replace_body",
                         text="area = self.w * self.h\nreturn area\n")
        assert not dry.is_error, dry
        answer = dry.structured_content
        assert (answer["definition"], answer["path"], answer["start_line"], answer["end_line"]) == (
            "method Rect.area", "app/shapes.py", 8, 10,
        )
        assert answer["applied"] is False
        assert answer["diff"] == (
            "diff --git a/app/shapes.py b/app/shapes.py\n--- a/app/shapes.py\n+++ b/app/shapes.py\n"
            "@@ -7,7 +7,8 @@\n \n     # The surface.\n     def area(self):\n"
            "-        return self.w * self.h\n+        area = self.w * self.h\n+        return area\n \n \n def unused():\n"
        )
        assert (project / "app/shapes.py").read_text() == SHAPES
        applied = await edit(session, symbol="Rect.area", operation="replace_body",
                             text="area = self.w * self.h\nreturn area\n", apply=True)
        assert not applied.is_error, applied
        assert "        area = self.w * self.h\n        return area\n" in (project / "app/shapes.py").read_text()


async def test_replace_definition_and_inserts_take_the_definition_s_indentation(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        new_area = "def area(self):\n    return self.h * self.w\n"
        result = await edit(session, path="app/shapes.py", line=9, operation="replace_definition",
                            text=new_area, apply=True)
        assert not result.is_error, result
        assert result.structured_content["definition"] == "method Rect.area"
        after = await edit(session, symbol="Rect.area", operation="insert_after",
                           text="def perimeter(self):\n    return 2 * (self.w + self.h)\n", apply=True)
        assert not after.is_error, after
        before = await edit(session, symbol="unused", operation="insert_before",
                            text="ORIGIN = (0, 0)\n", apply=True)
        assert not before.is_error, before
        assert (project / "app/shapes.py").read_text() == (
            'class Rect:\n    """A rectangle."""\n\n    def __init__(self, w, h):\n'
            "        self.w = w\n        self.h = h\n\n"
            "    def area(self):\n        return self.h * self.w\n\n"
            "    def perimeter(self):\n        return 2 * (self.w + self.h)\n\n\n"
            "ORIGIN = (0, 0)\n\ndef unused():\n    return 0\n"
        )


async def test_a_braced_body_is_replaced_between_its_braces(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await edit(session, symbol="perimeter", path_prefix="web/", operation="replace_body",
                            text="const sum = w + h;\nreturn sum * 2;", apply=True)
        assert not result.is_error, result
        assert (project / "web/geo.ts").read_text() == GEO_TS.replace(
            "  return 2 * (w + h);\n", "  const sum = w + h;\n  return sum * 2;\n"
        )


async def test_a_name_of_two_definitions_is_refused_with_the_candidates(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        error = tool_error(await edit(session, symbol="area", operation="delete"))
        assert error["code"] == "AMBIGUOUS_SYMBOL"
        assert sorted((c["path"], c["line"]) for c in error["candidates"]) == [
            ("app/shapes.py", 9), ("other/area.py", 1), ("web/geo.ts", 1),
        ]


async def test_delete_is_refused_while_references_remain_unless_forced(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        error = tool_error(await edit(session, symbol="app.shapes.Rect", operation="delete"))
        assert error["code"] == "STILL_REFERENCED"
        assert [(r["path"], r["line"]) for r in error["references"]] == [("app/use.py", 1), ("app/use.py", 3)]
        assert (project / "app/shapes.py").read_text() == SHAPES
        free = await edit(session, symbol="unused", path_prefix="app/", operation="delete", apply=True)
        assert not free.is_error, free
        assert (project / "app/shapes.py").read_text() == SHAPES.replace("\n\ndef unused():\n    return 0\n", "")
        forced = await edit(session, symbol="app.shapes.Rect", operation="delete", force=True)
        assert not forced.is_error, forced
        # The dry run says what deleting it would break in the files it changes.
        assert forced.structured_content["new_diagnostics"] == []


async def test_check_refuse_blocks_an_edit_that_breaks_the_file(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        error = tool_error(await edit(session, symbol="Rect.area", operation="replace_body",
                                      text="return undefined_name\n", apply=True, check="refuse"))
        assert error["code"] == "NEW_DIAGNOSTICS"
        assert [(d["path"], d["line"], d["code"]) for d in error["diagnostics"]] == [("app/shapes.py", 10, "SX005")]
        assert (project / "app/shapes.py").read_text() == SHAPES


async def test_a_read_only_server_offers_no_apply(project):
    async with stdio_session(project, "--read-only") as session:
        await wait_until_indexed(session)
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert "apply" not in tools["edit_symbol"].input_schema["properties"]
        assert tools["edit_symbol"].annotations.read_only_hint is True
        error = tool_error(await edit(session, symbol="unused", operation="delete", apply=True))
        assert error["code"] == "INVALID_ARGUMENT"
