"""`find_definition` and `find_references` through the official MCP Python SDK."""

import pytest

from conftest import stdio_session, tool_error, write

pytestmark = pytest.mark.anyio

UTIL = "def helper(x):\n    return x\n"
INIT = "from .util import helper as h\n"
MAIN = "import pkg\nfrom pkg.util import helper\npkg.h(1)\nhelper(2)\n"


def project(workspace):
    write(workspace, "pkg/util.py", UTIL)
    write(workspace, "pkg/__init__.py", INIT)
    write(workspace, "main.py", MAIN)


async def test_find_definition_follows_imports_and_aliases(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        at = await session.call_tool("find_definition", {"path": "main.py", "line": 3, "column": 5})
        by_name = await session.call_tool("find_definition", {"query": "util.helper"})
    assert not at.is_error
    assert at.structured_content == {
        "definitions": [{"name": "helper", "kind": "function", "path": "pkg/util.py", "line": 1}]
    }
    assert by_name.structured_content == at.structured_content


async def test_find_references_lists_every_use_with_its_line(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        found = await session.call_tool("find_references", {"query": "helper", "exclude_definitions": True})
        full = await session.call_tool(
            "find_references", {"path": "pkg/util.py", "line": 1, "column": 5, "limit": 1, "positions": "full"}
        )
    assert not found.is_error
    content = found.structured_content
    assert content["definitions"] == [{"name": "helper", "kind": "function", "path": "pkg/util.py", "line": 1}]
    assert content["references"] == [
        {"path": "main.py", "line": 2, "column": 22, "role": "import", "text": "from pkg.util import helper"},
        {"path": "main.py", "line": 3, "column": 5, "role": "call", "text": "pkg.h(1)"},
        {"path": "main.py", "line": 4, "column": 1, "role": "call", "text": "helper(2)"},
        {"path": "pkg/__init__.py", "line": 1, "column": 19, "role": "import", "text": INIT.strip()},
        {"path": "pkg/__init__.py", "line": 1, "column": 29, "role": "import", "text": INIT.strip()},
    ]
    assert (content["total"], content["truncated"]) == (5, False)
    assert full.structured_content["total"] == 6
    assert full.structured_content["truncated"] is True
    assert full.structured_content["references"][0]["span"] == {
        "start": {"line": 2, "column": 22}, "end": {"line": 2, "column": 28}, "byte_start": 32, "byte_end": 38}


async def test_navigation_needs_a_name_or_a_whole_position(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        missing = await session.call_tool("find_references", {"path": "main.py", "line": 3})
        outside = await session.call_tool("find_definition", {"path": "../etc/passwd", "line": 1, "column": 1})
    assert tool_error(missing) == {
        "code": "INVALID_ARGUMENT",
        "message": "give either `query` (a name), or `path`, `line` and `column` (1-based)",
    }
    assert tool_error(outside)["code"] == "PATH_OUTSIDE_WORKSPACE"


async def test_go_methods_and_package_names_resolve_across_files(workspace):
    write(workspace, "go.mod", "module example.com/app\n\ngo 1.22\n")
    write(workspace, "store/store.go", "package store\n\ntype Store struct{ name string }\n\nfunc Open() *Store { return &Store{} }\n")
    write(workspace, "store/name.go", "package store\n\nfunc (s *Store) Name() string { return s.name }\n")
    write(workspace, "main.go", 'package main\n\nimport "example.com/app/store"\n\nfunc main() {\n\ts := store.Open()\n\tprintln(s.Name())\n}\n')
    async with stdio_session(workspace) as session:
        method = await session.call_tool("find_definition", {"path": "main.go", "line": 7, "column": 12})
        found = await session.call_tool("find_references", {"query": "store.Open"})
    assert method.structured_content == {
        "definitions": [{"name": "Name", "kind": "method", "path": "store/name.go", "line": 3}]
    }
    assert [(r["path"], r["line"], r["role"]) for r in found.structured_content["references"]] == [
        ("main.go", 6, "call"),
        ("store/store.go", 5, "definition"),
    ]


async def test_rust_definitions_and_references_through_impl_blocks(workspace):
    write(workspace, "Cargo.toml", '[package]\nname = "tally"\nversion = "0.1.0"\n')
    write(workspace, "src/lib.rs", "mod counter;\nuse counter::Counter as C;\n\npub fn run() {\n    C::new().bump();\n}\n")
    write(
        workspace,
        "src/counter.rs",
        "pub struct Counter { n: u32 }\n\nimpl Counter {\n"
        "    pub fn new() -> Self { Counter { n: 0 } }\n"
        "    pub fn bump(&mut self) { self.n += 1; }\n}\n",
    )
    async with stdio_session(workspace) as session:
        at = await session.call_tool("find_definition", {"path": "src/lib.rs", "line": 5, "column": 14})
        refs = await session.call_tool("find_references", {"query": "Counter", "exclude_definitions": True})
    assert at.structured_content == {
        "definitions": [{"name": "bump", "kind": "function", "path": "src/counter.rs", "line": 5}]
    }
    assert [(r["path"], r["line"], r["column"], r["role"]) for r in refs.structured_content["references"]] == [
        ("src/counter.rs", 3, 6, "type"),
        ("src/counter.rs", 4, 28, "type"),
        ("src/lib.rs", 2, 14, "import"),
        ("src/lib.rs", 2, 25, "import"),
        ("src/lib.rs", 5, 5, "read"),
    ]


async def test_a_path_prefix_bounds_the_definitions_too(workspace):
    # A regression: the references were kept to the prefix, the definitions were not.
    project(workspace)
    async with stdio_session(workspace) as session:
        found = await session.call_tool("find_references", {"query": "helper", "path_prefix": "main"})
        inside = await session.call_tool("find_references", {"query": "helper", "path_prefix": "pkg/"})
    content = found.structured_content
    assert content["definitions"] == []
    assert [(r["path"], r["line"]) for r in content["references"]] == [("main.py", 2), ("main.py", 4)]
    assert [(d["path"], d["line"]) for d in inside.structured_content["definitions"]] == [("pkg/util.py", 1)]


def re_exporting_os(workspace):
    """The standard library's shape: `os` binds `path` to `posixpath` (or `ntpath`)."""
    write(
        workspace,
        "os.py",
        "import sys\nif 'posix' in sys.builtin_module_names:\n    import posixpath as path\n"
        "else:\n    import ntpath as path\n",
    )
    write(workspace, "posixpath.py", "def join(a, *p):\n    return a\n")
    write(workspace, "ntpath.py", "def join(path, *paths):\n    return path\n")
    write(workspace, "app.py", "import os\nos.path.join('a', 'b')\n")


async def test_a_module_path_through_a_re_exporting_module_resolves(workspace):
    re_exporting_os(workspace)
    async with stdio_session(workspace) as session:
        through = await session.call_tool("find_definition", {"query": "os.path.join"})
        refs = await session.call_tool("find_references", {"query": "os.path.join"})
    assert not through.is_error
    assert through.structured_content == {
        "definitions": [
            {"name": "join", "kind": "function", "path": "posixpath.py", "line": 1},
            {"name": "join", "kind": "function", "path": "ntpath.py", "line": 1},
        ]
    }
    assert [(r["path"], r["line"], r["role"]) for r in refs.structured_content["references"]] == [
        ("app.py", 2, "call"),
        ("ntpath.py", 1, "definition"),
        ("posixpath.py", 1, "definition"),
    ]


async def test_a_position_shaped_query_is_refused(workspace):
    project(workspace)
    async with stdio_session(workspace) as session:
        short = await session.call_tool("find_definition", {"query": "main.py:5"})
        bad = await session.call_tool("find_references", {"query": "main.py:x:1"})
        whole = await session.call_tool("find_definition", {"query": "main.py:3:5"})
    assert tool_error(short) == {
        "code": "INVALID_ARGUMENT",
        "message": "main.py:5: `query` is a name; give a position as `path`, `line` and `column`",
    }
    assert tool_error(bad) == {
        "code": "INVALID_ARGUMENT",
        "message": "main.py:x:1: `query` is a name; give a position as `path`, `line` and `column`",
    }
    assert tool_error(whole) == {
        "code": "INVALID_ARGUMENT",
        "message": "main.py:3:5: `query` is a name; give a position as `path`, `line` and `column`",
    }


async def test_typescript_types_values_and_doc_links_are_told_apart(workspace):
    write(
        workspace,
        "errors.ts",
        "export interface EmptyError { message: string }\n"
        "export const EmptyError: new () => EmptyError = class {} as any;\n",
    )
    write(
        workspace,
        "first.ts",
        'import { EmptyError } from "./errors";\n'
        "/** Fails with {@link EmptyError}. @throws {EmptyError} when empty */\n"
        "export function first(): EmptyError { throw new EmptyError(); }\n",
    )
    async with stdio_session(workspace) as session:
        as_type = await session.call_tool("find_references", {"path": "errors.ts", "line": 1, "column": 18})
        as_value = await session.call_tool("find_references", {"path": "errors.ts", "line": 2, "column": 14})
        by_name = await session.call_tool("find_references", {"query": "EmptyError"})

    def uses(result):
        return [(r["path"], r["line"], r["column"], r["role"]) for r in result.structured_content["references"]]

    assert uses(as_type) == [
        ("errors.ts", 1, 18, "definition"),
        ("errors.ts", 2, 36, "type"),
        ("first.ts", 1, 10, "import"),
        ("first.ts", 2, 23, "read"),
        ("first.ts", 2, 45, "type"),
        ("first.ts", 3, 26, "type"),
    ]
    assert uses(as_value) == [
        ("errors.ts", 2, 14, "definition"),
        ("first.ts", 1, 10, "import"),
        ("first.ts", 2, 23, "read"),
        ("first.ts", 3, 49, "call"),
    ]
    assert uses(by_name) == sorted(set(uses(as_type)) | set(uses(as_value)))
