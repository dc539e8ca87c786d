"""Dotted module attributes through Python namespace packages (PEP 420: directories without
`__init__.py`), through the MCP Python SDK: after `import google.cloud.storage`,
`google.cloud.storage.Client` is the class in `google/cloud/storage/__init__.py`, as it is
when `google` and `google/cloud` are regular packages."""

import pytest

from conftest import stdio_session, wait_until_indexed, write

pytestmark = pytest.mark.anyio

MAIN = "import google.cloud.storage\nimport google.cloud.storage.blob as blob\n\nclient = google.cloud.storage.Client()\nb = blob.Blob()\nc = google.cloud.storage.blob.Blob()\n"


@pytest.fixture(params=["namespace", "regular"])
def workspace_of_packages(request, tmp_path):
    root = tmp_path / "ws"
    write(root, "google/cloud/storage/__init__.py", "class Client:\n    pass\n")
    write(root, "google/cloud/storage/blob.py", "# blobs\n\nclass Blob:\n    pass\n")
    write(root, "main.py", MAIN)
    if request.param == "regular":
        write(root, "google/__init__.py", "")
        write(root, "google/cloud/__init__.py", "")
    return root


async def test_attribute_chains_reach_the_submodules_definitions(workspace_of_packages):
    async with stdio_session(workspace_of_packages) as session:
        await wait_until_indexed(session)
        client = await session.call_tool("find_definition", {"path": "main.py", "line": 4, "column": 31})
        blob = await session.call_tool("find_definition", {"path": "main.py", "line": 6, "column": 31})
        client_refs = await session.call_tool(
            "find_references",
            {"path": "google/cloud/storage/__init__.py", "line": 1, "column": 7, "exact_only": True},
        )
        blob_refs = await session.call_tool(
            "find_references",
            {"path": "google/cloud/storage/blob.py", "line": 3, "column": 7, "exact_only": True},
        )
    assert client.structured_content["definitions"] == [
        {"name": "Client", "kind": "class", "path": "google/cloud/storage/__init__.py", "line": 1}
    ]
    assert blob.structured_content["definitions"] == [
        {"name": "Blob", "kind": "class", "path": "google/cloud/storage/blob.py", "line": 3}
    ]
    assert [(r["path"], r["line"], r["column"], r["role"]) for r in client_refs.structured_content["references"]] == [
        ("google/cloud/storage/__init__.py", 1, 7, "definition"),
        ("main.py", 4, 31, "call"),
    ]
    assert [(r["path"], r["line"], r["column"], r["role"]) for r in blob_refs.structured_content["references"]] == [
        ("google/cloud/storage/blob.py", 3, 7, "definition"),
        ("main.py", 5, 10, "call"),
        ("main.py", 6, 31, "call"),
    ]


INSIDE = "import a.b.c\nfrom a.b import c\n\nu = a.b.c.Y()\nw = c.Y()\n"
RELATIVE = "import pkg.sub.mod\nfrom . import sub\n\nu = sub.mod.X()\n"


async def test_namespace_packages_inside_regular_packages(tmp_path):
    """`a/b` has no `__init__.py` but `a` has: `a.b.c.Y` is `a/b/c.py`'s `Y`; and
    `from . import sub` binds the namespace package `pkg/sub` beside the importer."""
    root = tmp_path / "ws"
    write(root, "a/__init__.py", "")
    write(root, "a/b/c.py", "class Y:\n    pass\n")
    write(root, "main.py", INSIDE)
    write(root, "pkg/__init__.py", "")
    write(root, "pkg/sub/mod.py", "class X:\n    pass\n")
    write(root, "pkg/user.py", RELATIVE)
    async with stdio_session(root) as session:
        await wait_until_indexed(session)
        y = await session.call_tool("find_definition", {"path": "main.py", "line": 4, "column": 11})
        x = await session.call_tool("find_definition", {"path": "pkg/user.py", "line": 4, "column": 13})
        y_refs = await session.call_tool(
            "find_references", {"path": "a/b/c.py", "line": 1, "column": 7, "exact_only": True}
        )
        renamed = await session.call_tool(
            "rename_symbol", {"path": "pkg/sub/mod.py", "line": 1, "column": 7, "new_name": "Z", "apply": True}
        )
    assert y.structured_content["definitions"] == [{"name": "Y", "kind": "class", "path": "a/b/c.py", "line": 1}]
    assert x.structured_content["definitions"] == [{"name": "X", "kind": "class", "path": "pkg/sub/mod.py", "line": 1}]
    assert [(r["path"], r["line"], r["column"], r["role"]) for r in y_refs.structured_content["references"]] == [
        ("a/b/c.py", 1, 7, "definition"),
        ("main.py", 4, 11, "call"),
        ("main.py", 5, 7, "call"),
    ]
    assert not renamed.is_error, renamed
    assert (root / "pkg/sub/mod.py").read_text() == "class Z:\n    pass\n"
    assert (root / "pkg/user.py").read_text() == RELATIVE.replace("X()", "Z()")
