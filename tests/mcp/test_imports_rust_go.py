"""`list_imports` on Rust and Go files: modules, manifests and where each import leads."""

import pytest

from conftest import stdio_session, write

pytestmark = pytest.mark.anyio


async def test_list_imports_on_a_rust_workspace_with_two_crates(tmp_path):
    root = tmp_path / "ws"
    write(root, "Cargo.toml", '[workspace]\nmembers = ["crates/*"]\n')
    write(root, "crates/app/Cargo.toml", '[package]\nname = "app"\n\n[dependencies]\nmy-core = { path = "../core" }\nanyhow = "1"\n')
    write(root, "crates/app/src/main.rs",
          "mod cli;\nuse cli::{run, Args as A};\nuse my_core::text::shout;\nuse anyhow::Result;\nuse std::io;\nuse nope::x;\n")
    write(root, "crates/app/src/cli/mod.rs", "pub struct Args;\npub fn run() {}\n")
    write(root, "crates/core/Cargo.toml", '[package]\nname = "my-core"\n')
    write(root, "crates/core/src/lib.rs", "pub mod text;\n")
    write(root, "crates/core/src/text.rs", "pub fn shout() {}\n")
    async with stdio_session(root) as session:
        result = await session.call_tool("list_imports", {"path": "crates/app/src/main.rs"})
    assert not result.is_error, result
    assert result.structured_content == {
        "path": "crates/app/src/main.rs",
        "imports": [
            {"line": 1, "module": "self::cli", "status": "resolved", "resolved_path": "crates/app/src/cli/mod.rs"},
            {"line": 2, "module": "cli", "name": "run", "status": "resolved",
             "resolved_path": "crates/app/src/cli/mod.rs", "definition_line": 2},
            {"line": 2, "module": "cli", "name": "Args", "alias": "A", "status": "resolved",
             "resolved_path": "crates/app/src/cli/mod.rs", "definition_line": 1},
            {"line": 3, "module": "my_core::text", "name": "shout", "status": "resolved",
             "resolved_path": "crates/core/src/text.rs", "definition_line": 1},
            {"line": 4, "module": "anyhow", "name": "Result", "status": "external", "package": "anyhow"},
            {"line": 5, "module": "std", "name": "io", "status": "external", "package": "std"},
            {"line": 6, "module": "nope", "name": "x", "status": "unresolved"},
        ],
    }


async def test_list_imports_on_a_go_module(tmp_path):
    root = tmp_path / "ws"
    write(root, "go.mod", "module example.com/shop\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n")
    write(root, "cmd/shop/main.go",
          'package main\n\nimport (\n\t"fmt"\n\tst "example.com/shop/store"\n\t_ "embed"\n\t. "github.com/spf13/cobra"\n\t"example.org/other"\n)\n')
    write(root, "store/store_test.go", "package store\n")
    write(root, "store/store.go", "package store\n")
    async with stdio_session(root) as session:
        result = await session.call_tool("list_imports", {"path": "cmd/shop/main.go"})
    assert not result.is_error, result
    assert result.structured_content["imports"] == [
        {"line": 4, "module": "fmt", "status": "external", "package": "fmt"},
        {"line": 5, "module": "example.com/shop/store", "alias": "st", "status": "resolved",
         "resolved_path": "store/store.go"},
        {"line": 6, "module": "embed", "alias": "_", "status": "external", "package": "embed"},
        {"line": 7, "module": "github.com/spf13/cobra", "wildcard": True, "status": "external",
         "package": "github.com/spf13/cobra"},
        {"line": 8, "module": "example.org/other", "status": "unresolved"},
    ]
