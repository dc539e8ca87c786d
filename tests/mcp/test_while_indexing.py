"""Answers while the first index runs: questions about one file (and text searches) are
answered at once and exactly, lookups by name and `explore` from the files indexed so far,
`workspace_status` says what is not done, reference searches and writes wait."""

import os
import re

import pytest
from conftest import stdio_session, tool_error, wait_until_indexed, write
from test_read import reference_tokens

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


def with_a_shared_name(root):
    """`many_files`, with a function `shared` defined in five files of the first shard."""
    many_files(root)
    for i in range(5):
        write(root, f"m{i:03}.py", f"def task_{i:03}():\n    pass\n\n\ndef shared():\n    pass\n")


def without_dependents(text: str) -> str:
    """An `explore` text without its dependents section (the last before the notes)."""
    head, _, rest = text.partition("## dependents (")
    notes = [line for line in rest.splitlines(keepends=True) if line.startswith("`")]
    return head + "".join(notes)


async def test_explore_answers_from_the_files_indexed_so_far_and_says_what_it_left_out(tmp_path):
    """`explore` answers as the lookups by name do while the first index runs, once every
    term is a file or a name the files indexed so far define: their definitions in path
    order (ranks read every file), marked `partial`, and call paths and dependents not
    searched, said in the text and the data rather than shown empty."""
    root = tmp_path / "many"
    with_a_shared_name(root)
    terms = {"terms": ["task_001", "shared", "app/main.py"]}
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "4000"}
    async with stdio_session(root, "--no-cache", env=env) as session:
        early = await session.call_tool("explore", terms)
        early_file = await session.call_tool("explore", {"terms": ["app/main.py"]})
        status = (await session.call_tool("workspace_status", {})).structured_content
        await wait_until_indexed(session)
        late = await session.call_tool("explore", terms)
        late_file = await session.call_tool("explore", {"terms": ["app/main.py"]})

    assert status["ready"] is False
    # A file alone: its skeleton, nothing left out, exactly the answer after the index.
    assert "partial" not in early_file.structured_content
    assert early_file.structured_content == late_file.structured_content
    assert early_file.content[0].text == late_file.content[0].text == (
        "## app/main.py (skeleton)\nfrom m001 import task_001\n\n\ndef run(): ...  # line 5\n\n"
    )
    data, text = early.structured_content, early.content[0].text
    indexed = data["partial"]["files_indexed"]
    # The first shard (app/, m000.py to m253.py); a busy machine may have built the second.
    assert data["partial"] == {"files_indexed": indexed, "files_total": 602} and indexed in (256, 512)
    assert data["not_searched"] == ["call_paths", "dependents"]
    assert (data["call_paths"], data["dependents"], data["dependents_shown"]) == ([], 0, 0)
    assert [(d["term"], d["path"], d["line"], d["shown"]) for d in data["definitions"]] == [
        ("task_001", "m001.py", 1, "full"),
        ("shared", "m001.py", 5, "full"),
        ("shared", "m000.py", 5, "full"),
        ("shared", "m002.py", 5, "full"),
    ]
    assert data["files"] == ["app/main.py"]
    assert data["more_named"] == [{"term": "shared", "count": 5}]
    assert data["tokens"] == reference_tokens(text) <= 8000
    assert text.startswith(
        f"[partial: {indexed} of 602 files indexed so far; "
        "call paths and dependents not searched]\n## m001.py\nm001.py:1-2 function task_001\n"
    )
    assert text.endswith("`shared` names 5 definitions in the files indexed so far; the first 3 are shown\n")

    # The whole index: the same definitions (no use ranks one `shared` above another) and
    # file, now with the dependents and without the marks.
    whole, whole_text = late.structured_content, late.content[0].text
    assert "partial" not in whole and "not_searched" not in whole
    assert whole["definitions"] == data["definitions"] and whole["files"] == data["files"]
    assert whole["dependents"] == 2 and "## dependents (2 within 2 steps, 0 tests)\n" in whole_text
    indexing_line, rest = text.split("\n", 1)
    assert without_dependents(whole_text).replace("the 3 most used", "the first 3") == rest.replace(
        " in the files indexed so far", ""
    )


async def test_explore_of_a_name_the_indexed_files_do_not_define_waits_for_the_whole_index(tmp_path):
    """A term naming nothing in the files indexed so far may name something in the others:
    `explore` waits for the whole index then, and answers whole."""
    root = tmp_path / "many"
    many_files(root)
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "2000"}
    async with stdio_session(root, "--no-cache", env=env) as session:
        # m599.py is in the last shard.
        found = await session.call_tool("explore", {"terms": ["task_001", "task_599"]})
        status = (await session.call_tool("workspace_status", {})).structured_content
    assert status["ready"] is True
    data = found.structured_content
    assert "partial" not in data and "not_searched" not in data
    assert [(d["term"], d["path"]) for d in data["definitions"]] == [("task_001", "m001.py"), ("task_599", "m599.py")]
    assert data["dependents"] == 2
    assert found.content[0].text.startswith("## m001.py\n")


async def test_a_reference_search_waits_for_the_whole_index_and_says_why_when_out_of_time(tmp_path):
    """Reference searches never answer from part of the files (a short list reads as "no
    other users"): they wait for the first index, and a call out of time says what it
    waited for; a word search answers meanwhile, in every file."""
    root = tmp_path / "many"
    many_files(root)
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "20000"}
    async with stdio_session(root, "--no-cache", "--request-timeout-ms", "2000", env=env) as session:
        refused = tool_error(await session.call_tool("find_references", {"query": "task_001"}))
        words = await session.call_tool("search", {"pattern": "task_001", "word": True})
    assert refused["code"] == "TIMEOUT"
    assert re.fullmatch(
        r"no answer within 2000 ms: the first index is still being built \((reading|indexing) \d+ of 602 files; "
        r"see workspace_status\), and find_references waits for it: a search of part of the files would miss "
        r"uses \(`search` with `word: true` lists every line naming it now\)",
        refused["message"],
    ), refused
    assert not words.is_error, words
    assert [(f["path"], [line["line"] for line in f["lines"]]) for f in words.structured_content["files"]] == [
        ("app/main.py", [1, 5]),
        ("m001.py", [1]),
    ]


async def test_a_lookup_once_every_shard_is_built_sees_a_write_made_before_the_index_ends(tmp_path):
    """Every shard of the symbol index built, the index not yet published: a lookup there
    answers from the whole index after the read-your-writes wait, so the writer must apply a
    change made meanwhile first. The lookup used to hold the index's snapshot during that
    wait, and the writer waits for every snapshot to drop before it applies: both sat until
    the request's time limit (TIMEOUT). One file is one shard, so the load's pause after its
    first shard (a test hook) holds the server in that window."""
    root = tmp_path / "held"
    write(root, "a.py", "def task_a():\n    pass\n")
    env = {**os.environ, "SEXTANT_TEST_LOAD_PAUSE_MS": "held:2500"}
    # A hang ends with the server's time limit, well before the client's.
    args = ("--no-cache", "--request-timeout-ms", "8000")
    async with stdio_session(root, *args, env=env) as session:
        for _ in range(500):
            status = (await session.call_tool("workspace_status", {})).structured_content
            if status.get("indexed", {}).get("files_indexed") == 1:
                break
        assert status["ready"] is False and status["indexed"] == {"files_indexed": 1, "files_total": 1}
        write(root, "b.py", "def task_b():\n    pass\n")
        found = await session.call_tool("lookup_symbol", {"query": "task_"}, read_timeout_seconds=10)
    assert not found.is_error, found.content
    assert found.structured_content == {
        "query": "task_",
        "total": 2,
        "truncated": False,
        "symbols": [
            {"name": "task_a", "kind": "function", "path": "a.py", "line": 1, "end_line": 2, "signature": "def task_a()"},
            {"name": "task_b", "kind": "function", "path": "b.py", "line": 1, "end_line": 2, "signature": "def task_b()"},
        ]
    }
