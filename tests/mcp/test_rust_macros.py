"""Rust items inside item-level macro calls, through `outline` and `lookup_symbol`."""

import pytest

from conftest import stdio_session, write

pytestmark = pytest.mark.anyio

TASK_RS = """\
// é漢 before
cfg_rt! {
    pub fn spawn_blocking() {}
}
cfg_if::cfg_if! {
    if #[cfg(unix)] {
        pub fn unix_only() {}
    } else {
        pub fn elsewhere() {}
    }
}
"""


async def test_outline_and_lookup_see_macro_wrapped_items(tmp_path):
    root = tmp_path / "ws"
    write(root, "src/task.rs", TASK_RS)
    async with stdio_session(root) as session:
        out = await session.call_tool("outline", {"path": "src/task.rs"})
        found = await session.call_tool("lookup_symbol", {"query": "spawn_blocking", "positions": "full"})
    assert not out.is_error, out
    assert [(s["name"], s["kind"], s["line"]) for s in out.structured_content["symbols"]] == [
        ("spawn_blocking", "function", 3),
        ("unix_only", "function", 7),
        ("elsewhere", "function", 9),
    ]
    assert not found.is_error, found
    [symbol] = found.structured_content["symbols"]
    assert (symbol["path"], symbol["line"]) == ("src/task.rs", 3)
    # Bytes count the two multi-byte characters on line 1; columns count characters.
    assert symbol["name_span"] == {
        "start": {"line": 3, "column": 12},
        "end": {"line": 3, "column": 26},
        "byte_start": len("// é漢 before\ncfg_rt! {\n    pub fn ".encode()),
        "byte_end": len("// é漢 before\ncfg_rt! {\n    pub fn spawn_blocking".encode()),
    }
