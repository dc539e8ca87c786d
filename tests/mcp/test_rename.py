"""`rename_symbol` through the MCP Python SDK: a dry run with its diff, `apply` writing every
file (and the index following), conflicts with their places, invalid names, source mode,
strict arguments, new diagnostics under `check` (default `refuse`), and `--read-only`
hiding `apply`. (A file changed behind a computed rename,
`CONFLICT`, is tested in `tests/rename_apply.rs`.)"""

import pytest

from conftest import stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "app/__init__.py", "")
    write(root, "app/geo.py", '__all__ = ["area"]\n\ndef area(w, h):\n    return w * h\n')
    write(root, "app/main.py", "from app.geo import area\nfrom app.geo import area as surface\n\nprint(area(1, 2), surface(3, 4))\n")
    write(root, "app/clash.py", "def helper():\n    return 1\n\ndef main():\n    value = 2\n    return helper() + value\n")
    return root


async def test_a_dry_run_returns_the_edits_and_the_diff_and_writes_nothing(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await session.call_tool("rename_symbol", {"query": "app.geo.area", "new_name": "size"})
        assert not result.is_error, result
        answer = result.structured_content
        assert answer["applied"] is False
        assert answer["files"] == ["app/geo.py", "app/main.py"]
        assert [(e["path"], e["line"], e["column"], e["origin"]) for e in answer["edits"]] == [
            ("app/geo.py", 1, 13, "all_entry"),
            ("app/geo.py", 3, 5, "code"),
            ("app/main.py", 1, 21, "code"),
            ("app/main.py", 2, 21, "code"),
            ("app/main.py", 4, 7, "code"),
        ]
        assert answer["diff"] == (
            "--- a/app/geo.py\n+++ b/app/geo.py\n@@ -1,4 +1,4 @@\n"
            '-__all__ = ["area"]\n+__all__ = ["size"]\n \n-def area(w, h):\n+def size(w, h):\n     return w * h\n'
            "--- a/app/main.py\n+++ b/app/main.py\n@@ -1,4 +1,4 @@\n"
            "-from app.geo import area\n-from app.geo import area as surface\n"
            "+from app.geo import size\n+from app.geo import size as surface\n \n"
            "-print(area(1, 2), surface(3, 4))\n+print(size(1, 2), surface(3, 4))\n"
        )
        assert "size" not in (project / "app/geo.py").read_text()


async def test_apply_writes_every_file_and_the_index_follows(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await session.call_tool(
            "rename_symbol", {"path": "app/geo.py", "line": 3, "column": 5, "new_name": "size", "apply": True}
        )
        assert not result.is_error, result
        assert result.structured_content["applied"] is True
        assert (project / "app/geo.py").read_text() == '__all__ = ["size"]\n\ndef size(w, h):\n    return w * h\n'
        assert (project / "app/main.py").read_text() == (
            "from app.geo import size\nfrom app.geo import size as surface\n\nprint(size(1, 2), surface(3, 4))\n"
        )
        # Read-your-writes: the next request sees the new names.
        refs = await session.call_tool("find_references", {"query": "app.geo.size"})
        assert [(r["path"], r["line"]) for r in refs.structured_content["references"]] == [
            ("app/geo.py", 3), ("app/main.py", 1), ("app/main.py", 2), ("app/main.py", 2),
            ("app/main.py", 4), ("app/main.py", 4),
        ]
        gone = await session.call_tool("rename_symbol", {"query": "app.geo.area", "new_name": "x"})
        assert tool_error(gone)["code"] == "NO_SYMBOL"


async def test_apply_writes_only_the_change_that_was_reviewed(project):
    # A regression: a dry run showed 5 edits, a file changed, and `apply` then wrote 6.
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        args = {"query": "app.geo.area", "new_name": "size"}
        reviewed = (await session.call_tool("rename_symbol", args)).structured_content
        assert len(reviewed["edits"]) == 5 and len(reviewed["change_id"]) == 32
        main = project / "app/main.py"
        changed = main.read_text() + "print(area(5, 6))\n"
        write(project, "app/main.py", changed)
        stale = await session.call_tool(
            "rename_symbol", {**args, "apply": True, "expected_change_id": reviewed["change_id"]}
        )
        error = tool_error(stale)
        assert error["code"] == "CONFLICT"
        assert error["message"] == (
            f"the change is not the one reviewed (change_id {reviewed['change_id']}): "
            "the workspace changed since the dry run; nothing was written"
        )
        assert main.read_text() == changed
        assert "size" not in (project / "app/geo.py").read_text()

        again = (await session.call_tool("rename_symbol", args)).structured_content
        assert len(again["edits"]) == 6 and again["change_id"] == error["change_id"]
        done = await session.call_tool(
            "rename_symbol", {**args, "apply": True, "expected_change_id": again["change_id"]}
        )
        assert done.structured_content["applied"] is True
        assert main.read_text().endswith("print(size(5, 6))\n")
        lone = await session.call_tool("rename_symbol", {**args, "expected_change_id": again["change_id"]})
        assert tool_error(lone)["code"] == "INVALID_ARGUMENT"


async def test_conflicts_invalid_names_and_stale_files_are_refused(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        clash = await session.call_tool(
            "rename_symbol", {"path": "app/clash.py", "line": 1, "column": 5, "new_name": "value"}
        )
        error = tool_error(clash)
        assert error["code"] == "RENAME_CONFLICT"
        assert error["conflicts"] == [
            {"path": "app/clash.py", "line": 6, "column": 12,
             "message": "this use of `helper` would be captured by another `value` (defined in app/clash.py)"},
        ]
        keyword = await session.call_tool("rename_symbol", {"query": "app.geo.area", "new_name": "lambda"})
        assert tool_error(keyword) == {"code": "INVALID_NAME", "message": "`lambda` is a Python keyword"}
        unknown = await session.call_tool("rename_symbol", {"query": "app.geo.area", "new_name": "s", "force": True})
        assert tool_error(unknown)["code"] == "INVALID_ARGUMENT"

        outside = await session.call_tool(
            "rename_symbol", {"path": "../elsewhere.py", "line": 1, "column": 1, "new_name": "x"}
        )
        assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"


async def test_source_mode_renames_a_snippet_without_a_workspace(project):
    async with stdio_session(project) as session:
        source = "def f(x):\n    total = x\n    return total\n\ntotal = 3\n"
        result = await session.call_tool(
            "rename_symbol",
            {"source": source, "language": "python", "old_name": "total", "scope": "f", "new_name": "acc"},
        )
        assert not result.is_error, result
        answer = result.structured_content
        assert answer["source"] == "def f(x):\n    acc = x\n    return acc\n\ntotal = 3\n"
        assert [(e["line"], e["column"]) for e in answer["edits"]] == [(2, 5), (3, 12)]
        assert "diagnostics" not in answer
        module = await session.call_tool(
            "rename_symbol", {"source": source, "language": "python", "old_name": "total", "new_name": "grand"}
        )
        assert module.structured_content["source"] == "def f(x):\n    total = x\n    return total\n\ngrand = 3\n"
        missing = await session.call_tool(
            "rename_symbol", {"source": source, "language": "python", "old_name": "nope", "new_name": "x"}
        )
        assert tool_error(missing) == {"code": "NO_SYMBOL", "message": "`nope` is not bound at module level"}
        go = await session.call_tool(
            "rename_symbol",
            {"source": "package m\n\nfunc Area() int { return 1 }\n", "language": "go", "old_name": "Area", "new_name": "area"},
        )
        assert tool_error(go)["code"] == "INVALID_NAME"


async def test_read_only_hides_apply(project):
    async with stdio_session(project, "--read-only") as session:
        await wait_until_indexed(session)
        tools = {t.name: t for t in (await session.list_tools()).tools}
        rename = tools["rename_symbol"]
        assert "apply" not in rename.input_schema["properties"]
        assert rename.input_schema["additionalProperties"] is False
        assert rename.annotations.read_only_hint is True
        assert rename.annotations.destructive_hint is False
        refused = await session.call_tool("rename_symbol", {"query": "app.geo.area", "new_name": "size", "apply": True})
        assert tool_error(refused)["code"] == "INVALID_ARGUMENT"
        assert "apply" in tool_error(refused)["message"]
        dry = await session.call_tool("rename_symbol", {"query": "app.geo.area", "new_name": "size"})
        assert not dry.is_error and dry.structured_content["applied"] is False
        assert "size" not in (project / "app/geo.py").read_text()
    async with stdio_session(project) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert "apply" in tools["rename_symbol"].input_schema["properties"]


def listed(diagnostics):
    return [(d["path"], d["line"], d["column"], d["code"], d["severity"]) for d in diagnostics]


# Renaming `area` to `size` with `include_text` writes the dictionary key "area" as "size",
# which the dictionary already has: a new error (SX009).
LABELS = 'def area(w, h):\n    return w * h\n\n\nLABELS = {"area": 1, "size": 2}\n'
SX009 = [("app/geo.py", 5, 11, "SX009", "error"), ("app/geo.py", 5, 22, "SX009", "error")]


@pytest.fixture
def labels(tmp_path):
    root = tmp_path / "ws"
    write(root, "app/__init__.py", "")
    write(root, "app/geo.py", LABELS)
    return root


async def test_a_new_error_is_refused_by_default_and_written_with_check_report(labels):
    # A rename is meant to keep behaviour: its `check` defaults to `refuse`, the same rule
    # as the CLI's and the LSP's (`CheckPolicy::blocking`).
    args = {"query": "app.geo.area", "new_name": "size", "include_text": True}
    async with stdio_session(labels) as session:
        await wait_until_indexed(session)
        dry = (await session.call_tool("rename_symbol", args)).structured_content
        assert dry["applied"] is False
        assert listed(dry["diagnostics"]) == SX009
        for check in ({}, {"check": "refuse"}):
            error = tool_error(await session.call_tool("rename_symbol", {**args, **check, "apply": True}))
            assert error["code"] == "NEW_DIAGNOSTICS"
            assert error["message"] == "the renamed files would have new errors; nothing was written"
            assert listed(error["diagnostics"]) == SX009
            assert (labels / "app/geo.py").read_text() == LABELS
        result = await session.call_tool("rename_symbol", {**args, "check": "report", "apply": True})
        assert not result.is_error, result
        assert result.structured_content["applied"] is True
        assert listed(result.structured_content["diagnostics"]) == SX009
    assert (labels / "app/geo.py").read_text() == LABELS.replace("area", "size")


async def test_a_new_warning_is_written_under_refuse_and_reported(tmp_path):
    # The rename leaves the type comment alone, so the renamed import becomes unused: a new
    # warning, which `refuse` lets through.
    root = tmp_path / "ws"
    write(root, "models.py", "class Model:\n    pass\n")
    user = "from models import Model\n\ndef load(path):\n    # type: (str) -> Model\n    return None\n"
    write(root, "user.py", user)
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        result = await session.call_tool(
            "rename_symbol", {"query": "models.Model", "new_name": "Record", "check": "refuse", "apply": True}
        )
        assert not result.is_error, result
        assert result.structured_content["applied"] is True
        assert listed(result.structured_content["diagnostics"]) == [("user.py", 1, 20, "SX006", "warning")]
    assert (root / "user.py").read_text() == user.replace("import Model", "import Record")
    assert (root / "models.py").read_text() == "class Record:\n    pass\n"


async def test_check_off_reports_nothing_and_check_is_validated(labels):
    args = {"query": "app.geo.area", "new_name": "size", "include_text": True}
    async with stdio_session(labels) as session:
        await wait_until_indexed(session)
        invalid = tool_error(await session.call_tool("rename_symbol", {**args, "check": "never"}))
        assert invalid["code"] == "INVALID_ARGUMENT"
        assert "unknown variant `never`" in invalid["message"], invalid
        tools = {t.name: t for t in (await session.list_tools()).tools}
        schemas = {name: tools[name].input_schema for name in ("rename_symbol", "apply_patch")}
        assert schemas["rename_symbol"]["properties"]["check"]["$ref"] == schemas["apply_patch"]["properties"]["check"]["$ref"]
        assert schemas["rename_symbol"]["$defs"]["CheckPolicy"] == schemas["apply_patch"]["$defs"]["CheckPolicy"]
        result = await session.call_tool("rename_symbol", {**args, "check": "off", "apply": True})
        assert not result.is_error, result
        assert result.structured_content["applied"] is True
        assert "diagnostics" not in result.structured_content
    assert (labels / "app/geo.py").read_text() == LABELS.replace("area", "size")
    # Source mode takes `check` too.
    async with stdio_session(labels) as session:
        for check, found in (("report", SX009), ("off", [])):
            snippet = await session.call_tool("rename_symbol", {
                "source": LABELS, "language": "python", "old_name": "area", "new_name": "size",
                "include_text": True, "check": check,
            })
            assert not snippet.is_error, snippet
            assert [(d["line"], d["column"], d["code"]) for d in snippet.structured_content.get("diagnostics", [])] == [
                (line, column, code) for _, line, column, code, _ in found
            ]
