"""Answers while the first index runs: questions about one file (and text searches) are
answered at once and exactly, `workspace_status` says what is not done, writes wait."""

import os

import pytest
from conftest import stdio_session, wait_until_indexed, write

pytestmark = pytest.mark.anyio

MAIN = "from m001 import task_001\n\n\ndef run():\n    return task_001()\n"
MESSY = "def f():\n    return 1   \n"

# The tools that answer during the first index, each with a question about one file or
# the texts (`check: off`: a formatted file's new-diagnostics check reads the workspace).
EARLY_CALLS = [
    ("outline", {"path": "app/main.py"}),
    ("parse_source", {"path": "app/main.py", "max_depth": 2}),
    ("list_imports", {"path": "app/main.py"}),
    ("find_definition", {"path": "app/main.py", "line": 5, "column": 12}),
    ("read_file", {"path": "app/main.py"}),
    ("read_symbol", {"targets": [{"path": "app/main.py", "line": 4}, {"path": "app/messy.py", "outline": True}]}),
    ("skeleton", {"paths": ["app"]}),
    ("search", {"pattern": "task_00"}),
    ("format_source", {"path": "app/messy.py", "check": "off"}),
]


def many_files(root):
    # 600 files, one function each, and the two the questions are about: the symbol
    # index's shards hold 256 files, so the first index builds three, and pauses after
    # each one (a test hook) for longer than all the questions take.
    for i in range(600):
        write(root, f"m{i:03}.py", f"def task_{i:03}():\n    pass\n")
    write(root, "app/main.py", MAIN)
    write(root, "app/messy.py", MESSY)


async def answers(session, calls):
    out = []
    for name, arguments in calls:
        result = await session.call_tool(name, arguments)
        assert not result.is_error, (name, result.content)
        out.append((name, result.structured_content, [c.text for c in result.content]))
    return out


async def test_questions_about_one_file_are_answered_exactly_while_indexing(tmp_path):
    root = tmp_path / "many"
    many_files(root)
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "4000"}
    async with stdio_session(root, "--no-cache", env=env) as session:
        early = await answers(session, EARLY_CALLS)
        # Every answer came before the index was done, and the status says what is left.
        status = (await session.call_tool("workspace_status", {})).structured_content
        assert status["ready"] is False
        assert status["unfinished"] == ["indexing", "checking"]
        assert status["indexed"]["files_total"] == 602
        assert status["indexed"]["files_indexed"] in (0, 256, 512)
        assert status["stats"] is None

        # A write waits for the first index (it is checked against the whole workspace).
        patched = await session.call_tool(
            "apply_patch",
            {"replacements": [{"path": "m599.py", "old_text": "task_599", "new_text": "task_last"}], "check": "off", "apply": True},
        )
        assert not patched.is_error and patched.structured_content["applied"] is True
        after_write = (await session.call_tool("workspace_status", {})).structured_content
        assert after_write["ready"] is True and "indexed" not in after_write
        assert "indexing" not in after_write["unfinished"]

        await wait_until_indexed(session)
        late = await answers(session, EARLY_CALLS)

    # Exactly what the finished index answers.
    assert early == late
    by_tool = {name: content for name, content, _ in early}
    assert [s["name"] for s in by_tool["outline"]["symbols"]] == ["run"]
    assert by_tool["find_definition"]["definitions"] == [
        {"name": "task_001", "kind": "function", "path": "m001.py", "line": 1}
    ]
    assert [(i["name"], i["resolved_path"], i["definition_line"]) for i in by_tool["list_imports"]["imports"]] == [
        ("task_001", "m001.py", 1)
    ]
    assert by_tool["read_file"]["total_lines"] == 5
    assert [(p["path"], p.get("name")) for p in by_tool["read_symbol"]["pieces"]] == [
        ("app/main.py", "run"),
        ("app/messy.py", None),
    ]
    assert [(f["path"], f["elided"]) for f in by_tool["skeleton"]["files"]] == [
        ("app/main.py", [{"end_line": 5, "kind": "body", "start_line": 5}]),
        ("app/messy.py", []),
    ]
    assert by_tool["format_source"]["changed"] is True
    assert by_tool["format_source"]["diff"].endswith("-    return 1   \n+    return 1\n")
    searched = {hit["path"] for hit in by_tool["search"]["files"]}
    assert searched == {"app/main.py", *(f"m00{i}.py" for i in range(10))}


async def test_status_says_every_stage_is_done_once_checked(tmp_path):
    root = tmp_path / "few"
    write(root, "a.py", "def a():\n    pass\n")
    async with stdio_session(root, "--no-cache") as session:
        for _ in range(300):
            status = (await session.call_tool("workspace_status", {})).structured_content
            if status["checked"]:
                break
        assert status["ready"] is True and status["unfinished"] == []
        assert "indexed" not in status


async def test_after_a_write_during_the_index_questions_wait_and_see_it(tmp_path):
    """The texts the load read may be stale once the disk changes under the root: a question
    asked after a write then waits for the first index (after which the writer applies the
    change) instead of answering early from the old text."""
    root = tmp_path / "many"
    many_files(root)
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "2000"}
    async with stdio_session(root, "--no-cache", env=env) as session:
        first = await session.call_tool("read_file", {"path": "app/main.py"})
        assert not first.is_error and first.structured_content["total_lines"] == 5
        write(root, "app/main.py", MAIN + "\n\ndef later():\n    return run()\n")
        outline = (await session.call_tool("outline", {"path": "app/main.py"})).structured_content
        status = (await session.call_tool("workspace_status", {})).structured_content
    assert [s["name"] for s in outline["symbols"]] == ["run", "later"]
    assert status["ready"] is True


async def test_lookups_by_name_answer_from_the_files_indexed_so_far(tmp_path):
    """`find_definition` and `read_symbol` by name answer as `lookup_symbol` does while the
    first index runs, once the files indexed so far define the name (marked `partial`); a
    name those files do not define waits for the whole index (a miss is no answer while
    files are unread)."""
    root = tmp_path / "many"
    many_files(root)
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "4000"}
    async with stdio_session(root, "--no-cache", env=env) as session:
        early_definition = (await session.call_tool("find_definition", {"query": "task_001"})).structured_content
        early_read = (await session.call_tool("read_symbol", {"targets": [{"symbol": "task_001"}]})).structured_content
        # m599.py is in the last shard: asked while it is unread, the lookup waits for it.
        last = (await session.call_tool("find_definition", {"query": "task_599"})).structured_content
        status = (await session.call_tool("workspace_status", {})).structured_content
        late_definition = (await session.call_tool("find_definition", {"query": "task_001"})).structured_content
        late_read = (await session.call_tool("read_symbol", {"targets": [{"symbol": "task_001"}]})).structured_content

    # The first shard (app/, m000.py to m253.py) holds m001.py; a busy machine may have
    # built the second by the time the call answers.
    for early in (early_definition, early_read):
        assert early["partial"]["files_total"] == 602, early
        assert early["partial"]["files_indexed"] in (256, 512), early
    assert early_definition["definitions"] == [{"name": "task_001", "kind": "function", "path": "m001.py", "line": 1}]
    assert [(p["path"], p["name"], p["start_line"], p["end_line"]) for p in early_read["pieces"]] == [
        ("m001.py", "task_001", 1, 2)
    ]
    assert early_read["text"] == "m001.py:1-2 function task_001\n```python\ndef task_001():\n    pass\n```\n"
    assert last == {"definitions": [{"name": "task_599", "kind": "function", "path": "m599.py", "line": 1}]}
    assert status["ready"] is True
    # Once indexed, the same answers without the mark.
    assert late_definition == {"definitions": early_definition["definitions"]}
    assert {k: v for k, v in early_read.items() if k != "partial"} == late_read


async def test_a_lookup_by_name_after_a_write_during_the_index_waits_and_sees_it(tmp_path):
    """A partial answer is as fresh as the other early ones: once the disk changed under the
    root, a lookup by name waits for the first index, whose answer has the change."""
    root = tmp_path / "many"
    many_files(root)
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "2000"}
    async with stdio_session(root, "--no-cache", env=env) as session:
        first = await session.call_tool("read_file", {"path": "app/main.py"})
        assert not first.is_error
        write(root, "app/again.py", "def task_001():\n    return 1\n")
        found = (await session.call_tool("find_definition", {"query": "task_001"})).structured_content
    assert found == {
        "definitions": [
            {"name": "task_001", "kind": "function", "path": "app/again.py", "line": 1},
            {"name": "task_001", "kind": "function", "path": "m001.py", "line": 1},
        ]
    }
