"""`list_imports` on TypeScript: resolved through tsconfig `paths`, type-only imports,
re-exports, Node built-ins and listed dependencies."""

import pytest

from conftest import stdio_session, write

pytestmark = pytest.mark.anyio


async def test_list_imports_on_typescript(workspace):
    write(workspace, "web/package.json", '{"name": "web", "devDependencies": {"vitest": "1"}}')
    write(workspace, "web/tsconfig.json", '{"compilerOptions": {"paths": {"~/*": ["./*"]}}}')
    write(
        workspace,
        "web/app.ts",
        'import {renderPage, type Page} from "~/page";\n'
        'export * from "./page.js";\n'
        'import {describe} from "vitest";\n'
        'const fs = require("node:fs");\n'
        'import "./styles";\n',
    )
    async with stdio_session(workspace) as session:
        answer = await session.call_tool("list_imports", {"path": "web/app.ts"})
    assert not answer.is_error
    assert answer.structured_content == {
        "path": "web/app.ts",
        "imports": [
            {"line": 1, "module": "~/page", "name": "renderPage", "status": "resolved",
             "resolved_path": "web/page.ts", "definition_line": 5},
            {"line": 1, "module": "~/page", "name": "Page", "type_only": True, "status": "resolved",
             "resolved_path": "web/page.ts", "definition_line": 1},
            {"line": 2, "module": "./page.js", "wildcard": True, "is_public": True, "status": "resolved",
             "resolved_path": "web/page.ts"},
            {"line": 3, "module": "vitest", "name": "describe", "status": "external", "package": "vitest"},
            {"line": 4, "module": "node:fs", "alias": "fs", "status": "external", "package": "fs"},
            {"line": 5, "module": "./styles", "status": "unresolved"},
        ],
    }
