"""`typecheck` and `explain_diagnostic` through the MCP Python SDK: diagnostics with codes
for the workspace or some files, the filters, the limit, an edit on disk followed, bad
arguments, and a code explained."""

import anyio
import pytest

from conftest import stdio_session, tool_error, wait_until_checked, wait_until_indexed, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "app/__init__.py", "")
    write(root, "app/main.py", "import os\nfrom app.utils import helper\n\nprint(helper, undefined_name)\n")
    write(root, "app/clean.py", "import sys\n\nprint(sys.argv)\n")
    write(root, "lib.rs", "fn main() {\n    let x = (1\n}\n")
    return root


async def test_typecheck_reports_codes_with_a_summary(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        everything = await session.call_tool("typecheck", {})
        assert not everything.is_error, everything
        assert everything.structured_content == {
            "diagnostics": [
                {"path": "app/main.py", "line": 1, "column": 8, "code": "SX006", "severity": "warning",
                 "message": "'os' imported but unused",
                 "fix": {"title": "Remove unused import 'os'", "applicability": "safe"}},
                {"path": "app/main.py", "line": 2, "column": 1, "code": "SX003", "severity": "error",
                 "message": "no module 'app.utils' in the workspace"},
                {"path": "app/main.py", "line": 4, "column": 15, "code": "SX005", "severity": "error",
                 "message": "undefined name 'undefined_name'"},
                {"path": "lib.rs", "line": 2, "column": 5, "code": "SX001", "severity": "error",
                 "message": "unexpected `let`"},
            ],
            "summary": {
                "by_code": {"SX001": 1, "SX003": 1, "SX005": 1, "SX006": 1},
                "by_file": {"app/main.py": 3, "lib.rs": 1},
                "total": 4,
                "truncated": False,
                "files_checked": 4,
            },
        }

        # Files, severity, codes and the limit narrow it; the summary counts what matched.
        errors = await session.call_tool(
            "typecheck", {"file_paths": ["app"], "severity": "error", "limit": 1, "positions": "full"}
        )
        content = errors.structured_content
        assert [d["code"] for d in content["diagnostics"]] == ["SX003"]
        assert content["diagnostics"][0]["span"]["start"] == {"line": 2, "column": 1}
        assert content["summary"]["total"] == 2 and content["summary"]["truncated"] is True
        names = await session.call_tool("typecheck", {"codes": ["undefined-name"], "file_paths": ["app/main.py"]})
        assert [d["code"] for d in names.structured_content["diagnostics"]] == ["SX005"]
        clean = await session.call_tool("typecheck", {"file_paths": ["app/clean.py"]})
        assert clean.structured_content["summary"]["total"] == 0

        # An edit on disk is checked again.
        write(project, "app/main.py", "import os\n\nprint(os.sep)\n")
        for _ in range(50):
            again = await session.call_tool("typecheck", {"file_paths": ["app/main.py"]})
            if again.structured_content["summary"]["total"] == 0:
                break
            await anyio.sleep(0.1)
        assert again.structured_content["diagnostics"] == []

        unknown = await session.call_tool("typecheck", {"codes": ["SX999"]})
        assert tool_error(unknown)["code"] == "INVALID_ARGUMENT"
        missing = await session.call_tool("typecheck", {"file_paths": ["nowhere.py"]})
        assert tool_error(missing)["code"] == "NOT_FOUND"
        outside = await session.call_tool("typecheck", {"file_paths": ["../x.py"]})
        assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"
        bad_severity = await session.call_tool("typecheck", {"severity": "fatal"})
        assert tool_error(bad_severity)["code"] == "INVALID_ARGUMENT"


async def test_the_server_checks_every_file_in_the_background(project):
    async with stdio_session(project) as session:
        status = await wait_until_checked(session)
        assert status["revision"] == 0
        # A change makes a new revision, checked again in the background.
        write(project, "app/clean.py", "import sys\n\nprint(sys.argv, gone)\n")
        status = await wait_until_checked(session, after_revision=0)
        assert status["revision"] >= 1
        found = await session.call_tool("typecheck", {"file_paths": ["app/clean.py"]})
        assert [(d["code"], d["line"], d["column"]) for d in found.structured_content["diagnostics"]] == [
            ("SX005", 3, 17)
        ]

    async with stdio_session(project, "--no-background-check") as session:
        await wait_until_indexed(session)
        await anyio.sleep(0.5)
        status = (await session.call_tool("workspace_status", {})).structured_content
        assert status["checked"] is False


async def test_explain_diagnostic(project):
    async with stdio_session(project) as session:
        explained = await session.call_tool("explain_diagnostic", {"code": "SX005"})
        assert not explained.is_error, explained
        content = explained.structured_content
        assert set(content) == {"code", "category", "title", "description", "example", "help"}
        assert (content["code"], content["category"], content["title"]) == ("SX005", "names", "Undefined name")
        assert content["description"].endswith(" Checked today in: python, javascript, typescript, tsx.")
        assert "itmes" in content["example"] and "# fixed:" in content["example"]
        by_name = await session.call_tool("explain_diagnostic", {"code": "import-cycle"})
        assert by_name.structured_content["code"] == "SX012"
        assert by_name.structured_content["description"].endswith(
            " Checked today in: python, javascript, typescript, tsx, go."
        )
        unknown = await session.call_tool("explain_diagnostic", {"code": "E999"})
        assert tool_error(unknown)["code"] == "NOT_FOUND"


async def test_typecheck_applies_suppression_comments_and_the_check_table(tmp_path):
    root = tmp_path / "ws"
    write(root, "app.py", "import os  # sextant: ignore[SX006]\nimport sys  # noqa: F401\nimport re\nprint(x)  # sextant: ignore[SX006]\n")
    write(root, "tests/test_app.py", "import json\nprint(y)\n")
    write(
        root,
        "sextant.toml",
        '[check]\nseverity = { SX006 = "error" }\n\n[[check.overrides]]\npaths = ["tests/"]\nignore = ["unused-import"]\n',
    )
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        found = await session.call_tool("typecheck", {})
        assert not found.is_error, found
        assert found.structured_content["diagnostics"] == [
            {"path": "app.py", "line": 3, "column": 8, "code": "SX006", "severity": "error",
             "message": "'re' imported but unused",
             "fix": {"title": "Remove unused import 're'", "applicability": "safe"}},
            {"path": "app.py", "line": 4, "column": 7, "code": "SX005", "severity": "error",
             "message": "undefined name 'x'"},
            {"path": "tests/test_app.py", "line": 2, "column": 7, "code": "SX005", "severity": "error",
             "message": "undefined name 'y'"},
        ]
        # The severity filter sees the configured severity.
        errors = await session.call_tool("typecheck", {"severity": "error", "codes": ["SX006"]})
        assert [(d["path"], d["line"]) for d in errors.structured_content["diagnostics"]] == [
            ("app.py", 3), ("tests/test_app.py", 1)
        ]
        # Unused suppressions, off by default, when asked for.
        unused = await session.call_tool("typecheck", {"codes": ["unused-suppression"]})
        assert unused.structured_content["diagnostics"] == [
            {"path": "app.py", "line": 4, "column": 29, "code": "SX013", "severity": "warning",
             "message": "unused suppression: SX006 (unused-import) is not reported on this line"},
        ]

        # A change of sextant.toml applies to the next check.
        write(root, "sextant.toml", '[check]\nignore = ["SX005"]\n')
        for _ in range(50):
            again = await session.call_tool("typecheck", {})
            if again.structured_content["summary"]["by_code"] == {"SX006": 2}:
                break
            await anyio.sleep(0.1)
        assert [(d["path"], d["code"], d["severity"]) for d in again.structured_content["diagnostics"]] == [
            ("app.py", "SX006", "warning"),
            ("tests/test_app.py", "SX006", "warning"),
        ]


async def test_typecheck_finds_a_call_an_edit_of_the_callee_broke(tmp_path):
    # The agent's loop: change a function's signature in one file, ask what broke.
    root = tmp_path / "ws"
    write(root, "geometry.py", "def area(w, h=1):\n    return w * h\n")
    write(root, "report.py", "from geometry import area\n\nprint(area(3))\n")
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        before = await session.call_tool("typecheck", {})
        assert before.structured_content["summary"]["total"] == 0
        write(root, "geometry.py", "def area(w, h):\n    return w * h\n")
        for _ in range(50):
            after = await session.call_tool("typecheck", {})
            if after.structured_content["summary"]["total"]:
                break
            await anyio.sleep(0.1)
        assert after.structured_content["diagnostics"] == [
            {"path": "report.py", "line": 3, "column": 7, "code": "SX010", "severity": "error",
             "message": "area() missing 1 required positional argument: 'h'"},
        ]


async def test_typecheck_points_at_the_earlier_definition(tmp_path):
    root = tmp_path / "ws"
    write(root, "m.py", "import os\nimport os\n\nprint(os)\n")
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        found = await session.call_tool("typecheck", {})
        assert found.structured_content["diagnostics"] == [
            {"path": "m.py", "line": 2, "column": 8, "code": "SX008", "severity": "warning",
             "message": "redefinition of unused 'os' from line 1",
             "related": [{"line": 1, "column": 8, "message": "'os' first defined here"}]},
        ]


async def test_typecheck_reports_import_cycles_only_when_asked(tmp_path):
    root = tmp_path / "ws"
    write(root, "src/store.ts", 'import { render } from "./view";\nexport const state = { render };\n')
    write(root, "src/view.ts", 'import { state } from "./store";\nexport const render = () => state;\n')
    write(root, "src/types.ts", 'import type { state } from "./store";\nexport type State = typeof state;\n')
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        default = await session.call_tool("typecheck", {})
        assert default.structured_content["summary"]["total"] == 0
        cycles = await session.call_tool("typecheck", {"codes": ["SX012"]})
        assert not cycles.is_error, cycles
        assert cycles.structured_content["diagnostics"] == [
            {"path": "src/store.ts", "line": 1, "column": 1, "code": "SX012", "severity": "information",
             "message": "import cycle: src/store.ts → src/view.ts → src/store.ts",
             "related": [{"path": "src/view.ts", "line": 1, "column": 1,
                          "message": "src/view.ts imports src/store.ts"}]},
            {"path": "src/view.ts", "line": 1, "column": 1, "code": "SX012", "severity": "information",
             "message": "import cycle: src/view.ts → src/store.ts → src/view.ts",
             "related": [{"path": "src/store.ts", "line": 1, "column": 1,
                          "message": "src/store.ts imports src/view.ts"}]},
        ]
