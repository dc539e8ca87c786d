"""`workspace_status` lists the projects found from manifests, and follows edits on disk."""

import anyio
import pytest

from conftest import stdio_session, wait_until_indexed, write

pytestmark = pytest.mark.anyio


def rows(status: dict) -> list[tuple]:
    return [(p["kind"], p["name"], p["root"]) for p in status["projects"]]


async def test_workspace_status_follows_an_edited_package_json(tmp_path):
    root = tmp_path / "ws"
    write(root, "web/package.json", '{"name": "web", "main": "index.js"}')
    write(root, "web/index.js", "export const x = 1;\n")
    write(root, "Cargo.toml", '[package]\nname = "engine"\n')
    write(root, "src/lib.rs", "pub fn run() {}\n")
    async with stdio_session(root) as session:
        status = await wait_until_indexed(session)
        assert rows(status) == [("cargo", "engine", "."), ("npm", "web", "web")]
        assert status["projects_total"] == 2
        npm = status["projects"][1]
        assert npm["manifest"] == "web/package.json"
        assert npm["error"] is None
        assert npm["npm"]["main"] == "index.js"

        write(root, "web/package.json", '{"name": "web-renamed", "main": "main.js",}')
        for _ in range(100):
            status = (await session.call_tool("workspace_status", {})).structured_content
            if rows(status)[1][1] is None:
                break
            await anyio.sleep(0.1)
        # A malformed manifest is a project with an error, not a failed call.
        assert rows(status) == [("cargo", "engine", "."), ("npm", None, "web")]
        assert status["projects"][1]["error"] == "trailing comma at line 1 column 43"

        write(root, "web/package.json", '{"name": "web-renamed", "main": "main.js"}')
        for _ in range(100):
            status = (await session.call_tool("workspace_status", {})).structured_content
            if rows(status)[1][1] == "web-renamed":
                break
            await anyio.sleep(0.1)
        assert rows(status) == [("cargo", "engine", "."), ("npm", "web-renamed", "web")]
        assert status["projects"][1]["npm"]["main"] == "main.js"
        assert status["projects"][1]["error"] is None
