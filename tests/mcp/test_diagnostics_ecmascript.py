"""`typecheck` through the MCP Python SDK on a TypeScript workspace: undefined names, unused
imports and missing relative modules, with a declaration file's globals seen and an edit on
disk checked again."""

import anyio
import pytest

from conftest import stdio_session, wait_until_indexed, write

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "src/env.d.ts", "declare const appVersion: string;\n")
    write(root, "src/util.ts", "export const helper = (x: number) => x * 2;\nexport const spare = 1;\n")
    write(
        root,
        "src/main.ts",
        'import { helper, spare } from "./util";\nimport { gone } from "./missing";\n\n'
        "export const value = helper(1) + appVersion + undefinedThing;\n",
    )
    write(root, "src/view.tsx", 'import React from "react";\nexport const View = () => <div>{React.version}</div>;\n')
    return root


async def test_typecheck_on_typescript(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        found = await session.call_tool("typecheck", {"file_paths": ["src"]})
        assert not found.is_error, found
        assert found.structured_content["diagnostics"] == [
            {"path": "src/main.ts", "line": 1, "column": 18, "code": "SX006", "severity": "warning",
             "message": "'spare' imported from './util' but unused",
             "fix": {"title": "Remove unused import 'spare'", "applicability": "safe"}},
            {"path": "src/main.ts", "line": 2, "column": 1, "code": "SX003", "severity": "error",
             "message": "no module './missing' in the workspace"},
            {"path": "src/main.ts", "line": 2, "column": 10, "code": "SX006", "severity": "warning",
             "message": "'gone' imported from './missing' but unused",
             "fix": {"title": "Remove unused import 'gone'", "applicability": "safe"}},
            {"path": "src/main.ts", "line": 4, "column": 47, "code": "SX005", "severity": "error",
             "message": "undefined name 'undefinedThing'"},
        ]
        assert found.structured_content["summary"]["by_file"] == {"src/main.ts": 4}

        # An edit on disk is checked again.
        write(project, "src/main.ts", 'import { helper } from "./util";\n\nexport const value = helper(1);\n')
        for _ in range(50):
            again = await session.call_tool("typecheck", {"file_paths": ["src/main.ts"]})
            if again.structured_content["summary"]["total"] == 0:
                break
            await anyio.sleep(0.1)
        assert again.structured_content["diagnostics"] == []
