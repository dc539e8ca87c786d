"""`pack_context` through the official MCP Python SDK: required entries whole or an error,
optional ones by priority, every style counted exactly against the reference tokenizer."""

import json

import pytest

from conftest import stdio_session, tool_error, write
from test_read import project, reference_tokens, text_of

pytestmark = pytest.mark.anyio


async def test_required_and_optional_entries_share_one_budget(tmp_path):
    project(tmp_path)
    write(tmp_path, "geo/big.py", "def big():\n    return [\n" + "        1,\n" * 300 + "    ]\n")
    tasks = [
        {"required": [{"symbol": "shapes.area"}], "optional": [{"path": "geo/big.py", "priority": 10}]},
        {"required": [{"path": "src/lib.rs", "mode": "skeleton"}],
         "optional": [{"symbol": "Square.area", "priority": 90}, {"symbol": "nowhere", "priority": 95}]},
    ]
    async with stdio_session(tmp_path) as session:
        packed = await session.call_tool("pack_context", {"tasks": tasks, "max_tokens": 300})
        styles = {
            style: await session.call_tool("pack_context", {"tasks": tasks, "max_tokens": 300, "style": style})
            for style in ("xml", "json", "plain")
        }
    data = packed.structured_content
    text = text_of(packed)
    assert data["tokens"] == reference_tokens(text) and data["tokens"] <= 300
    assert [(e["task"], e["entry"], e["path"], e["mode"]) for e in data["included"]] == [
        (0, 0, "geo/shapes.py", "full"),
        (0, 1, "geo/big.py", "skeleton"),
        (1, 0, "src/lib.rs", "skeleton"),
        (1, 1, "geo/shapes.py", "full"),
    ]
    assert data["omitted"] == [{"task": 1, "entry": 2, "target": "nowhere", "reason": "not_found"}]
    assert data["status"] == "with_omissions"
    assert text.startswith("geo/shapes.py:4-11 function area\n```python\n# The unit circle's friend.\n")
    assert "geo/big.py:1-303 (skeleton)\n```python\ndef big(): ...  # lines 2-303\n```\n" in text
    for style, result in styles.items():
        assert result.structured_content["tokens"] == reference_tokens(text_of(result)), style
        assert [e["path"] for e in result.structured_content["included"]] == [e["path"] for e in data["included"]]
    assert text_of(styles["xml"]).startswith('<file path="geo/shapes.py" lines="4-11" mode="full">\n# The unit')
    blocks = json.loads(text_of(styles["json"]))
    assert [(b["path"], b["lines"], b["mode"]) for b in blocks][:2] == [("geo/shapes.py", "4-11", "full"), ("geo/big.py", "1-303", "skeleton")]
    assert text_of(styles["plain"]).startswith("==> geo/shapes.py:4-11 function area <==\n# The unit")


async def test_a_pack_is_whole_or_refused_with_its_code(tmp_path):
    project(tmp_path)
    async with stdio_session(tmp_path) as session:
        calls = {
            "unavailable": {"tasks": [{"required": [{"path": "src/lib.rs"}, {"symbol": "area"}]}]},
            "over_budget": {"tasks": [{"required": [{"path": "src/lib.rs"}]}], "max_tokens": 10},
            "either_required": {"tasks": [{"required": [{"path": "src/lib.rs", "mode": "either"}]}]},
            "both": {"tasks": [{"optional": [{"path": "src/lib.rs", "symbol": "Config"}]}]},
            "empty": {"tasks": [{}]},
            "no_tasks": {"tasks": []},
            "priority": {"tasks": [{"optional": [{"path": "src/lib.rs", "priority": 101}]}]},
            "escape": {"tasks": [{"required": [{"path": "../outside.py"}]}]},
            "style": {"tasks": [{"required": [{"path": "src/lib.rs"}]}], "style": "html"},
        }
        errors = {name: tool_error(await session.call_tool("pack_context", args)) for name, args in calls.items()}
    assert {name: e["code"] for name, e in errors.items()} == {
        "unavailable": "REQUIRED_UNAVAILABLE", "over_budget": "REQUIRED_OVER_BUDGET",
        "either_required": "INVALID_ARGUMENT", "both": "INVALID_ARGUMENT", "empty": "INVALID_ARGUMENT",
        "no_tasks": "INVALID_ARGUMENT", "priority": "INVALID_ARGUMENT", "escape": "PATH_OUTSIDE_WORKSPACE",
        "style": "INVALID_ARGUMENT",
    }
    assert errors["unavailable"]["message"] == "required entries unavailable: area (ambiguous)"
