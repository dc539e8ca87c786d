"""`format_source` through the MCP Python SDK: a source string formatted statelessly, a
workspace file's diff as a dry run, `apply` writing it (then a second run has nothing to
do), a changed file refused with CONFLICT-free re-computation, the formatted file's new
diagnostics under `check`, and the stable error codes."""

import pytest

from conftest import stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "src/lib.rs", "fn f() {\nlet x = 1;   \n}\n")
    write(root, "app/bad.py", "def f(:\n    pass\n")
    write(root, "app/ok.py", "def f():\n    return 1\n")
    # Comment lines at column 0 inside a block: past the parser's work budget.
    write(root, "app/unparsed.py", "if x:\n    y = 1\n" + "# c\n" * 40_000 + "    pass\n")
    return root


async def test_source_is_formatted_without_a_workspace_file(project):
    async with stdio_session(project) as session:
        result = await session.call_tool(
            "format_source", {"source": "function f() {\nreturn 1;\n}", "language": "javascript"}
        )
        assert not result.is_error, result
        assert result.structured_content == {
            "formatted": "function f() {\n  return 1;\n}\n",
            "diff": "--- a/source\n+++ b/source\n@@ -1,3 +1,3 @@\n function f() {\n-return 1;\n-}\n\\ No newline at end of file\n+  return 1;\n+}\n",
            "changed": True,
            "path": None,
            "applied": False,
        }
        four = await session.call_tool(
            "format_source", {"source": "if (a) {\nb();\n}\n", "language": "typescript", "tab_size": 4}
        )
        assert four.structured_content["formatted"] == "if (a) {\n    b();\n}\n"
        assert four.structured_content["changed"] is True


async def test_a_workspace_file_is_a_dry_run_unless_apply_is_given(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        dry = await session.call_tool("format_source", {"path": "src/lib.rs"})
        assert not dry.is_error, dry
        change_id = dry.structured_content.pop("change_id")
        assert len(change_id) == 32
        assert dry.structured_content == {
            "formatted": None,
            "diff": "--- a/src/lib.rs\n+++ b/src/lib.rs\n@@ -1,3 +1,3 @@\n fn f() {\n-let x = 1;   \n+    let x = 1;\n }\n",
            "changed": True,
            "path": "src/lib.rs",
            "applied": False,
            "new_diagnostics": [],
        }
        assert (project / "src/lib.rs").read_text() == "fn f() {\nlet x = 1;   \n}\n"

        applied = await session.call_tool("format_source", {"path": "src/lib.rs", "apply": True})
        assert not applied.is_error, applied
        assert applied.structured_content["applied"] is True
        assert (project / "src/lib.rs").read_text() == "fn f() {\n    let x = 1;\n}\n"

        # The index has read the written file back: nothing is left to do.
        again = await session.call_tool("format_source", {"path": "src/lib.rs", "apply": True})
        assert again.structured_content == {
            "formatted": None, "diff": "", "changed": False, "path": "src/lib.rs", "applied": False,
            "new_diagnostics": [],
        }


async def test_apply_writes_only_the_change_that_was_reviewed(project):
    # A regression: a dry run showed one change, the file changed, and `apply` wrote another.
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        reviewed = (await session.call_tool("format_source", {"path": "src/lib.rs"})).structured_content
        changed = "fn f() {\nlet x = 1;   \nlet y = 2;\n}\n"
        write(project, "src/lib.rs", changed)
        stale = await session.call_tool(
            "format_source", {"path": "src/lib.rs", "apply": True, "expected_change_id": reviewed["change_id"]}
        )
        error = tool_error(stale)
        assert error["code"] == "CONFLICT"
        assert (project / "src/lib.rs").read_text() == changed
        done = await session.call_tool(
            "format_source", {"path": "src/lib.rs", "apply": True, "expected_change_id": error["change_id"]}
        )
        assert done.structured_content["applied"] is True
        assert (project / "src/lib.rs").read_text() == "fn f() {\n    let x = 1;\n    let y = 2;\n}\n"


async def test_failures_have_stable_codes(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        bad = tool_error(await session.call_tool("format_source", {"path": "app/bad.py", "apply": True}))
        assert bad == {
            "code": "FORMAT_SYNTAX_ERROR",
            "message": "line 1 has a syntax error; a file with syntax errors is not formatted",
        }
        assert (project / "app/bad.py").read_text() == "def f(:\n    pass\n"
        # The code the CLI gives for the same file (it was `INTERNAL` here before one enum).
        unparsed = tool_error(await session.call_tool("format_source", {"path": "app/unparsed.py"}))
        assert unparsed == {"code": "PARSE_FAILED", "message": "the parser gave up on this file"}
        outside = tool_error(await session.call_tool("format_source", {"path": "../elsewhere.py"}))
        assert outside["code"] == "PATH_OUTSIDE_WORKSPACE"
        missing = tool_error(await session.call_tool("format_source", {"path": "app/none.py"}))
        assert missing["code"] == "NOT_FOUND"
        both = tool_error(await session.call_tool("format_source", {"source": "x", "path": "app/ok.py"}))
        assert both == {"code": "INVALID_ARGUMENT", "message": "give exactly one of `source` and `path`"}
        no_language = tool_error(await session.call_tool("format_source", {"source": "x = 1\n"}))
        assert no_language == {"code": "INVALID_ARGUMENT", "message": "`source` needs `language`"}
        apply_source = tool_error(
            await session.call_tool("format_source", {"source": "x\n", "language": "python", "apply": True})
        )
        assert apply_source["message"] == "`apply` goes with `path`, not `source`"
        unknown = tool_error(await session.call_tool("format_source", {"path": "app/ok.py", "indent": 2}))
        assert unknown["code"] == "INVALID_ARGUMENT" and "unknown field `indent`" in unknown["message"]
        wide = tool_error(await session.call_tool("format_source", {"path": "app/ok.py", "tab_size": 40}))
        assert wide == {"code": "INVALID_ARGUMENT", "message": "tab_size must be between 1 and 16, got 40"}


async def test_check_is_validated_and_off_leaves_new_diagnostics_out(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        for check in ("report", "refuse"):
            dry = await session.call_tool("format_source", {"path": "src/lib.rs", "check": check})
            assert not dry.is_error, dry
            assert dry.structured_content["changed"] is True
            assert dry.structured_content["new_diagnostics"] == []
        off = await session.call_tool("format_source", {"path": "src/lib.rs", "check": "off"})
        assert not off.is_error, off
        assert off.structured_content["changed"] is True
        assert "new_diagnostics" not in off.structured_content
        invalid = tool_error(await session.call_tool("format_source", {"path": "src/lib.rs", "check": "never"}))
        assert invalid["code"] == "INVALID_ARGUMENT"
        assert "unknown variant `never`" in invalid["message"], invalid
        source = tool_error(
            await session.call_tool("format_source", {"source": "x\n", "language": "python", "check": "report"})
        )
        assert source == {"code": "INVALID_ARGUMENT", "message": "`check` goes with `path`, not `source`"}
        tools = {t.name: t for t in (await session.list_tools()).tools}
        schemas = {name: tools[name].input_schema for name in ("format_source", "apply_patch")}
        assert schemas["format_source"]["properties"]["check"]["$ref"] == schemas["apply_patch"]["properties"]["check"]["$ref"]
        assert schemas["format_source"]["$defs"]["CheckPolicy"] == schemas["apply_patch"]["$defs"]["CheckPolicy"]
        applied = await session.call_tool("format_source", {"path": "src/lib.rs", "apply": True, "check": "refuse"})
        assert not applied.is_error, applied
        assert applied.structured_content["applied"] is True
        assert applied.structured_content["new_diagnostics"] == []
        assert (project / "src/lib.rs").read_text() == "fn f() {\n    let x = 1;\n}\n"


async def test_new_diagnostics_of_a_formatted_file_are_reported_or_refused(tmp_path):
    # A formatter moving a trailing `# noqa` to a line of its own keeps every token, but the
    # import it suppressed diagnostics on now has them: a formatter's bug, reported.
    root = tmp_path / "ws"
    write(root, "app/__init__.py", "")
    use = "from app.missing import thing  # noqa\n"
    write(root, "app/use.py", use)
    write(root, "sextant.toml", '[format.python]\ncommand = ["sed", "s/  # noqa$/\\\\n# noqa/"]\n')
    new = [("app/use.py", 1, 1, "SX003", "error"), ("app/use.py", 1, 25, "SX006", "warning")]

    def listed(diagnostics):
        return [(d["path"], d["line"], d["column"], d["code"], d["severity"]) for d in diagnostics]

    async with stdio_session(root, "--allow-external-formatter") as session:
        await wait_until_indexed(session)
        dry = await session.call_tool("format_source", {"path": "app/use.py"})
        assert not dry.is_error, dry
        assert listed(dry.structured_content["new_diagnostics"]) == new
        refused = tool_error(
            await session.call_tool("format_source", {"path": "app/use.py", "apply": True, "check": "refuse"})
        )
        assert refused["code"] == "NEW_DIAGNOSTICS"
        assert refused["message"] == "the formatted file would have new errors; nothing was written"
        assert listed(refused["diagnostics"]) == new[:1]
        assert (root / "app/use.py").read_text() == use
        applied = await session.call_tool("format_source", {"path": "app/use.py", "apply": True})
        assert not applied.is_error, applied
        assert applied.structured_content["applied"] is True
        assert listed(applied.structured_content["new_diagnostics"]) == new
        assert (root / "app/use.py").read_text() == "from app.missing import thing\n# noqa\n"


async def test_a_configured_external_formatter_is_used_and_a_missing_one_is_an_error(tmp_path):
    root = tmp_path / "ws"
    write(root, "app/ok.py", "def f():\n    return 1\n")
    write(root, "sextant.toml", '[format.python]\ncommand = ["sed", "s/return 1/return 2/"]\n[format.go]\ncommand = ["sextant-test-no-such-formatter"]\n')
    async with stdio_session(root, "--allow-external-formatter") as session:
        await wait_until_indexed(session)
        result = await session.call_tool("format_source", {"path": "app/ok.py"})
        assert not result.is_error, result
        assert result.structured_content["diff"].endswith("-    return 1\n+    return 2\n")
        missing = tool_error(
            await session.call_tool("format_source", {"source": "package main\n", "language": "go"})
        )
        assert missing["code"] == "FORMATTER_NOT_FOUND"
        assert missing["message"].startswith('the formatter "sextant-test-no-such-formatter" could not be started')


async def test_read_only_hides_and_refuses_apply(project):
    async with stdio_session(project, "--read-only") as session:
        await wait_until_indexed(session)
        tools = {t.name: t for t in (await session.list_tools()).tools}
        fmt = tools["format_source"]
        assert "apply" not in fmt.input_schema["properties"]
        assert "expected_change_id" not in fmt.input_schema["properties"]
        assert fmt.input_schema["additionalProperties"] is False
        assert fmt.annotations.read_only_hint is True
        assert fmt.annotations.destructive_hint is False
        refused = await session.call_tool("format_source", {"path": "src/lib.rs", "apply": True})
        assert tool_error(refused) == {
            "code": "INVALID_ARGUMENT",
            "message": "this server is read-only: `apply` is not available",
        }
        dry = await session.call_tool("format_source", {"path": "src/lib.rs"})
        assert not dry.is_error and dry.structured_content["applied"] is False
        assert (project / "src/lib.rs").read_text() == "fn f() {\nlet x = 1;   \n}\n"
