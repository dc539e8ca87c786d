"""`typecheck` with `fix: true` through the MCP Python SDK: each diagnostic says whether
it has a fix; the fixes come back as one unified diff, nothing written, and that diff
written by `apply_patch` leaves the files as `sextant check --fix` would; `unsafe_fixes`
without `fix` is refused."""

import pytest

from conftest import stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio

A = "import os, sys\nimport json\nprint(sys)\n"
B = "from pkg.a import json\nprint(json)\n"


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "pkg/__init__.py", "import os\n")
    write(root, "pkg/a.py", A)
    write(root, "pkg/b.py", B)
    return root


async def test_fixes_come_back_as_a_diff_that_apply_patch_writes(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await session.call_tool("typecheck", {"fix": True})
        assert not result.is_error, result
        answer = result.structured_content
        assert [(d["path"], d["line"], d.get("fix")) for d in answer["diagnostics"]] == [
            ("pkg/__init__.py", 1, {"title": "Remove unused import 'os'", "applicability": "unsafe"}),
            ("pkg/a.py", 1, {"title": "Remove unused import 'os'", "applicability": "safe"}),
            # No fix: pkg/b.py imports `json` from pkg/a.py, so the fixes leave it.
            ("pkg/a.py", 2, None),
        ]
        fixes = answer["fixes"]
        assert fixes == {
            "diff": "--- a/pkg/a.py\n+++ b/pkg/a.py\n@@ -1,3 +1,3 @@\n-import os, sys\n"
            "+import sys\n import json\n print(sys)\n",
            "fixed": [
                {
                    "path": "pkg/a.py",
                    "code": "SX006",
                    "message": "'os' imported but unused",
                    "title": "Remove unused import 'os'",
                }
            ],
            "unsafe_fixes_left": 1,
            "remaining": 2,
        }
        assert (project / "pkg/a.py").read_text() == A

        written = await session.call_tool("apply_patch", {"patch": fixes["diff"], "apply": True})
        assert not written.is_error, written
        assert written.structured_content["applied"] is True
        assert (project / "pkg/a.py").read_text() == "import sys\nimport json\nprint(sys)\n"

        result = await session.call_tool("typecheck", {"fix": True, "unsafe_fixes": True})
        fixes = result.structured_content["fixes"]
        assert [f["path"] for f in fixes["fixed"]] == ["pkg/__init__.py"]
        assert fixes["unsafe_fixes_left"] == 0


async def test_unsafe_fixes_without_fix_is_refused(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await session.call_tool("typecheck", {"unsafe_fixes": True})
        assert tool_error(result)["code"] == "INVALID_ARGUMENT"


async def test_an_undefined_name_gets_its_import_as_an_unsafe_fix(tmp_path):
    root = tmp_path / "ws"
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/shapes.py", "def area(w, h):\n    return w * h\n")
    write(root, "app/main.py", "print(area(1, 2), area(3, 4))\n")
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        result = await session.call_tool("typecheck", {"fix": True})
        answer = result.structured_content
        fix = {"title": "Import 'area' from 'pkg.shapes'", "applicability": "unsafe"}
        assert [(d["code"], d.get("fix")) for d in answer["diagnostics"]] == [("SX005", fix)] * 2
        assert answer["fixes"]["fixed"] == []
        assert answer["fixes"]["unsafe_fixes_left"] == 2

        result = await session.call_tool("typecheck", {"fix": True, "unsafe_fixes": True})
        fixes = result.structured_content["fixes"]
        # Both uses offer the import; it goes in once, and both diagnostics are gone.
        assert fixes["diff"] == (
            "--- a/app/main.py\n+++ b/app/main.py\n@@ -1 +1,2 @@\n"
            "+from pkg.shapes import area\n print(area(1, 2), area(3, 4))\n"
        )
        assert [f["title"] for f in fixes["fixed"]] == ["Import 'area' from 'pkg.shapes'"]
        assert fixes["remaining"] == 0
        assert (root / "app/main.py").read_text() == "print(area(1, 2), area(3, 4))\n"
