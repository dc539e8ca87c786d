"""Python absolute imports of manifest-less services, through the MCP Python SDK: each
service's `from app.models import Invoice` leads to its own `app`, as Python running the
service's scripts (with their directory on `sys.path`) would, and a module added later in an
ancestor directory is found once the server sees it."""

import anyio
import pytest

from conftest import stdio_session, wait_until_indexed, write

pytestmark = pytest.mark.anyio

MAIN = "from app.models import Invoice\n\n\ndef bill():\n    return Invoice()\n"


@pytest.fixture
def monorepo(tmp_path):
    """Two services with an `app` each (a regular package in `a`, a namespace one in `b`),
    both defining `Invoice`, and no manifest anywhere."""
    root = tmp_path / "ws"
    write(root, "services/a/app/__init__.py", "")
    write(root, "services/a/app/models.py", "class Invoice:\n    pass\n")
    write(root, "services/a/app/main.py", MAIN)
    write(root, "services/b/app/models.py", "# b's own\n\nclass Invoice:\n    pass\n")
    write(root, "services/b/app/main.py", MAIN)
    return root


async def test_each_services_import_leads_to_its_own_app(monorepo):
    async with stdio_session(monorepo) as session:
        await wait_until_indexed(session)
        in_a = await session.call_tool("find_definition", {"path": "services/a/app/main.py", "line": 5, "column": 12})
        in_b = await session.call_tool("find_definition", {"path": "services/b/app/main.py", "line": 5, "column": 12})
        refs_a = await session.call_tool(
            "find_references", {"path": "services/a/app/models.py", "line": 1, "column": 7, "exact_only": True}
        )
        refs_b = await session.call_tool(
            "find_references", {"path": "services/b/app/models.py", "line": 3, "column": 7, "exact_only": True}
        )
    assert in_a.structured_content == {
        "definitions": [{"name": "Invoice", "kind": "class", "path": "services/a/app/models.py", "line": 1}]
    }
    assert in_b.structured_content == {
        "definitions": [{"name": "Invoice", "kind": "class", "path": "services/b/app/models.py", "line": 3}]
    }
    assert [(r["path"], r["line"], r["role"]) for r in refs_a.structured_content["references"]] == [
        ("services/a/app/main.py", 1, "import"),
        ("services/a/app/main.py", 5, "call"),
        ("services/a/app/models.py", 1, "definition"),
    ]
    assert [(r["path"], r["line"], r["role"]) for r in refs_b.structured_content["references"]] == [
        ("services/b/app/main.py", 1, "import"),
        ("services/b/app/main.py", 5, "call"),
        ("services/b/app/models.py", 3, "definition"),
    ]


async def test_a_module_added_in_an_ancestor_directory_resolves_the_import(monorepo):
    write(monorepo, "services/a/jobs/nightly/run.py", "import settings\n\nprint(settings.DEBUG)\n")
    async with stdio_session(monorepo) as session:
        await wait_until_indexed(session)
        before = await session.call_tool("list_imports", {"path": "services/a/jobs/nightly/run.py"})
        assert before.structured_content["imports"] == [{"line": 1, "module": "settings", "status": "unresolved"}]

        write(monorepo, "services/a/settings.py", "DEBUG = False\n")
        for _ in range(100):
            after = await session.call_tool("list_imports", {"path": "services/a/jobs/nightly/run.py"})
            if after.structured_content["imports"][0]["status"] != "unresolved":
                break
            await anyio.sleep(0.1)
        assert after.structured_content["imports"] == [
            {"line": 1, "module": "settings", "status": "resolved", "resolved_path": "services/a/settings.py"}
        ]
        used = await session.call_tool(
            "find_definition", {"path": "services/a/jobs/nightly/run.py", "line": 3, "column": 16}
        )
        assert used.structured_content == {
            "definitions": [{"name": "DEBUG", "kind": "variable", "path": "services/a/settings.py", "line": 1}]
        }


async def test_the_missing_import_fix_writes_the_module_as_the_service_imports_it(monorepo):
    """`services/b/app` is no package, so `models` leads `b`'s files to its models as well as
    `app.models`; the fix writes `app.models`, as `b`'s own code does."""
    write(monorepo, "services/b/app/jobs.py", "import os\n\n\ndef nightly():\n    return Invoice(os.sep)\n")
    async with stdio_session(monorepo) as session:
        await wait_until_indexed(session)
        result = await session.call_tool(
            "typecheck", {"file_paths": ["services/b/app/jobs.py"], "codes": ["SX005"], "fix": True, "unsafe_fixes": True}
        )
    assert not result.is_error, result
    assert result.structured_content["fixes"]["diff"] == (
        "--- a/services/b/app/jobs.py\n+++ b/services/b/app/jobs.py\n@@ -1,4 +1,5 @@\n"
        " import os\n+from app.models import Invoice\n \n \n def nightly():\n"
    )
