"""One server, several roots (`sextant mcp --root A --root B`), through the MCP Python SDK:
every tool takes an optional `root`, answers come from that root alone, and writes stay in
it."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import SEXTANT, stdio_session, tool_error, wait_until_indexed, write
from test_read import reference_tokens

pytestmark = pytest.mark.anyio


@pytest.fixture
def two_roots(tmp_path: Path) -> tuple[Path, Path]:
    billing = tmp_path / "team-a" / "service"
    write(billing, "billing.py", "def charge(amount):\n    return amount\n")
    search = tmp_path / "team-b" / "service"
    write(search, "search.py", "def query(text):\n    return text\n\n\ndef charge_free():\n    pass\n")
    return billing, search


def symbol_names(result) -> list[str]:
    assert not result.is_error, result
    return [s["name"] for s in result.structured_content["symbols"]]


async def test_every_tool_takes_a_root_and_answers_from_it_alone(two_roots):
    billing, search = two_roots
    async with stdio_session(billing, "--root", str(search)) as session:
        tools = (await session.list_tools()).tools
        for tool in tools:
            assert tool.input_schema["properties"]["root"]["enum"] == ["team-a/service", "team-b/service"], tool.name
        for root in ["team-a/service", "team-b/service"]:
            await wait_until_indexed_in(session, root)

        status = (await session.call_tool("workspace_status", {"root": "team-b/service"})).structured_content
        assert status["root"] == str(search.resolve())
        assert status["roots"] == [
            {"name": "team-a/service", "path": str(billing.resolve())},
            {"name": "team-b/service", "path": str(search.resolve())},
        ]
        assert status["stats"]["files"] == 1

        # No root and no path: every root (see test_a_question_by_name_asks_every_root).
        assert symbol_names(await session.call_tool("lookup_symbol", {"query": "charge"})) == ["charge", "charge_free"]
        found = await session.call_tool("lookup_symbol", {"query": "charge", "root": "team-a/service"})
        assert symbol_names(found) == ["charge"]
        found = await session.call_tool("lookup_symbol", {"query": "charge", "root": "team-b/service"})
        assert symbol_names(found) == ["charge_free"]
        assert found.structured_content["symbols"][0]["path"] == "search.py"
        # A root's path names it too.
        found = await session.call_tool("lookup_symbol", {"query": "query", "root": str(search)})
        assert symbol_names(found) == ["query"]

        # An absolute path picks the root holding it.
        outline = await session.call_tool("outline", {"path": str(search / "search.py")})
        assert not outline.is_error, outline
        assert [s["name"] for s in outline.structured_content["symbols"]] == ["query", "charge_free"]

        # Paths stay confined to the chosen root.
        escaped = await session.call_tool("outline", {"path": "../../team-a/service/billing.py", "root": "team-b/service"})
        assert tool_error(escaped)["code"] == "PATH_OUTSIDE_WORKSPACE"

        unknown = tool_error(await session.call_tool("lookup_symbol", {"query": "x", "root": "service"}))
        assert unknown["code"] == "NOT_FOUND"
        assert unknown["roots"] == ["team-a/service", "team-b/service"]
        wrong_type = tool_error(await session.call_tool("lookup_symbol", {"query": "x", "root": 3}))
        assert wrong_type["code"] == "INVALID_ARGUMENT"


async def test_a_write_lands_in_the_chosen_root_only(two_roots):
    billing, search = two_roots
    patch = "--- a/search.py\n+++ b/search.py\n@@ -1,2 +1,2 @@\n-def query(text):\n+def query(words):\n     return text\n"
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, "team-b/service")
        result = await session.call_tool("apply_patch", {"patch": patch, "apply": True, "check": "off", "root": "team-b/service"})
        assert not result.is_error, result
        assert result.structured_content["applied"] is True
        # The first root has no such file: the same patch there is refused, nothing written.
        refused = await session.call_tool("apply_patch", {"patch": patch, "apply": True, "check": "off"})
        assert tool_error(refused)["code"] == "PATCH_DOES_NOT_APPLY"
    assert (search / "search.py").read_text().startswith("def query(words):\n")
    assert sorted(p.name for p in billing.iterdir()) == ["billing.py"]


async def test_a_one_root_server_keeps_its_schemas_and_takes_its_own_root(two_roots):
    billing, _ = two_roots
    async with stdio_session(billing) as session:
        tools = (await session.list_tools()).tools
        assert all("root" not in t.input_schema.get("properties", {}) for t in tools)
        await wait_until_indexed(session)
        found = await session.call_tool("lookup_symbol", {"query": "charge", "root": "service"})
        assert symbol_names(found) == ["charge"]
        status = (await session.call_tool("workspace_status", {})).structured_content
        assert "roots" not in status


def test_roots_are_refused_twice_and_outside_mcp(two_roots):
    billing, search = two_roots
    twice = subprocess.run([SEXTANT, "mcp", "--root", str(billing), "--root", str(billing / ".")], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert twice.returncode == 2
    assert "is given twice" in twice.stderr
    stats = subprocess.run([SEXTANT, "--root", str(billing), "--root", str(search), "stats"], capture_output=True, text=True)
    assert stats.returncode == 2
    assert "only `sextant mcp` serves several roots" in stats.stderr


@pytest.fixture
def shared_name(two_roots: tuple[Path, Path]) -> tuple[Path, Path]:
    """`settle` defined in both roots, `settle_all` in the first only."""
    billing, search = two_roots
    write(billing, "shared.py", "def settle(ledger):\n    return ledger\n\n\ndef settle_all():\n    pass\n")
    write(search, "shared.py", "def settle(batch):\n    return batch\n")
    return billing, search


def hits(result) -> list[tuple[str, str, str | None]]:
    assert not result.is_error, result
    return [(s["name"], s["path"], s.get("root")) for s in result.structured_content["symbols"]]


A, B = "team-a/service", "team-b/service"


async def both_indexed(session):
    for root in [A, B]:
        await wait_until_indexed_in(session, root)
EVERY_ROOT = [{"name": A}, {"name": B}]


async def test_a_question_by_name_asks_every_root(shared_name):
    billing, search = shared_name
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        # A name only the second root defines is found without naming a root.
        found = await session.call_tool("lookup_symbol", {"query": "query"})
        assert hits(found) == [("query", "search.py", B)]
        assert found.structured_content["roots"] == EVERY_ROOT

        # Ranked over every root (exact, then prefix), equal ranks in the roots' order.
        found = await session.call_tool("lookup_symbol", {"query": "settle"})
        assert hits(found) == [("settle", "shared.py", A), ("settle", "shared.py", B), ("settle_all", "shared.py", A)]
        data = found.structured_content
        assert (data["total"], data["truncated"], "partial" in data) == (3, False, False)
        # The text content is the same answer, each hit's root beside its path.
        assert json.loads(found.content[0].text) == data
        assert '"path":"shared.py","root":"team-b/service"' in found.content[0].text

        cut = (await session.call_tool("lookup_symbol", {"query": "settle", "limit": 2})).structured_content
        assert [(s["name"], s["root"]) for s in cut["symbols"]] == [("settle", A), ("settle", B)]
        assert (cut["total"], cut["truncated"]) == (3, True)
        found = await session.call_tool("lookup_symbol", {"query": "charge"})
        assert hits(found) == [("charge", "billing.py", A), ("charge_free", "search.py", B)]

        # With `root`: that root's answer alone, as a one-root server gives it.
        for root, expected in [(A, [("settle", "shared.py", None), ("settle_all", "shared.py", None)]), (B, [("settle", "shared.py", None)])]:
            only = await session.call_tool("lookup_symbol", {"query": "settle", "root": root})
            assert hits(only) == expected
            assert "roots" not in only.structured_content


async def test_definitions_and_references_by_name_come_from_every_root(shared_name):
    billing, search = shared_name
    write(billing, "app.py", "from shared import settle\n\nsettle(1)\n")
    write(search, "cli.py", "from shared import settle\n\n\ndef main():\n    settle(2)\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        found = (await session.call_tool("find_definition", {"query": "settle"})).structured_content
        assert found == {
            "definitions": [
                {"name": "settle", "kind": "function", "path": "shared.py", "root": A, "line": 1},
                {"name": "settle", "kind": "function", "path": "shared.py", "root": B, "line": 1},
            ],
            "roots": EVERY_ROOT,
        }
        only = (await session.call_tool("find_definition", {"query": "charge_free"})).structured_content
        assert [(d["path"], d["root"]) for d in only["definitions"]] == [("search.py", B)]

        used = (await session.call_tool("find_references", {"query": "settle"})).structured_content
        everywhere = [
            ("app.py", A, 1, "import"),
            ("app.py", A, 3, "call"),
            ("cli.py", B, 1, "import"),
            ("cli.py", B, 5, "call"),
            ("shared.py", A, 1, "definition"),
            ("shared.py", B, 1, "definition"),
        ]
        assert [(r["path"], r["root"], r["line"], r["role"]) for r in used["references"]] == everywhere
        assert [(d["path"], d["root"]) for d in used["definitions"]] == [("shared.py", A), ("shared.py", B)]
        assert (used["total"], used["truncated"], used["roots"]) == (6, False, EVERY_ROOT)
        cut = (await session.call_tool("find_references", {"query": "settle", "limit": 3})).structured_content
        assert [(r["path"], r["root"], r["line"], r["role"]) for r in cut["references"]] == everywhere[:3]
        assert (cut["total"], cut["truncated"]) == (6, True)

        # With `root`, or at a position (a path): one root, as before.
        in_b = (await session.call_tool("find_references", {"query": "settle", "root": B})).structured_content
        assert [(r["path"], r.get("root"), r["line"]) for r in in_b["references"]] == [("cli.py", None, 1), ("cli.py", None, 5), ("shared.py", None, 1)]
        assert "roots" not in in_b
        at = (await session.call_tool("find_definition", {"path": str(search / "cli.py"), "line": 5, "column": 5})).structured_content
        assert at == {"definitions": [{"name": "settle", "kind": "function", "path": "shared.py", "line": 1}]}


SEARCH_EVERY_ROOT = """[team-a/service] billing.py
in function charge, lines 1-2
2:    return amount

[team-b/service] search.py
in function query, lines 1-2
2:    return text

[team-a/service] shared.py
in function settle, lines 1-2
2:    return ledger

[team-b/service] shared.py
in function settle, lines 1-2
2:    return batch
"""


def search_hits(result) -> list[tuple[str | None, str, int, str]]:
    assert not result.is_error, result
    return [(f.get("root"), f["path"], l["line"], l["text"]) for f in result.structured_content["files"] for l in f["lines"]]


async def test_a_search_asks_every_root_and_pages_over_them_under_one_budget(shared_name):
    billing, search = shared_name
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        # In path order, a path both roots hold in the roots' order.
        whole = await session.call_tool("search", {"pattern": "return"})
        assert whole.content[0].text == SEARCH_EVERY_ROOT
        everything = [
            (A, "billing.py", 2, "    return amount"),
            (B, "search.py", 2, "    return text"),
            (A, "shared.py", 2, "    return ledger"),
            (B, "shared.py", 2, "    return batch"),
        ]
        assert search_hits(whole) == everything
        data = whole.structured_content
        assert (data["matches"], data["truncated"], data["roots"]) == (4, False, EVERY_ROOT)
        assert data["tokens"] == reference_tokens(SEARCH_EVERY_ROOT)

        # Pages over the merged hits: continuing gives the rest, no more, no fewer.
        first = await session.call_tool("search", {"pattern": "return", "limit": 3})
        assert search_hits(first) == everything[:3]
        assert first.structured_content["next_offset"] == 3
        rest = await session.call_tool("search", {"pattern": "return", "offset": 3})
        assert search_hits(rest) == everything[3:]
        assert "next_offset" not in rest.structured_content

        # One budget for the merged text: the most hits that fit, counted exactly.
        two = await session.call_tool("search", {"pattern": "return", "limit": 2})
        two_tokens = two.structured_content["tokens"]
        for budget, shown in [(two_tokens, 2), (two_tokens - 1, 1)]:
            cut = await session.call_tool("search", {"pattern": "return", "max_tokens": budget})
            assert search_hits(cut) == everything[:shown], budget
            text = cut.content[0].text
            assert text.endswith(f"[more matches not shown: continue with offset {shown}]\n")
            assert cut.structured_content["tokens"] == reference_tokens(text) <= budget
        assert (await session.call_tool("search", {"pattern": "return", "max_tokens": two_tokens})).content[0].text == two.content[0].text

        # With `root`, or with `paths`: one root, as before.
        only = await session.call_tool("search", {"pattern": "return", "root": B})
        assert search_hits(only) == [(None, "search.py", 2, "    return text"), (None, "shared.py", 2, "    return batch")]
        assert "roots" not in only.structured_content
        assert only.content[0].text.startswith("search.py\n")
        in_first = await session.call_tool("search", {"pattern": "return", "paths": ["shared.py"]})
        assert search_hits(in_first) == [(None, "shared.py", 2, "    return ledger")]

        # The query's own refusal comes once.
        bad = tool_error(await session.call_tool("search", {"pattern": "(", "regex": True}))
        assert bad["code"] == "INVALID_ARGUMENT" and "no root answered" not in bad["message"]


async def test_a_root_that_does_not_answer_is_named_and_the_others_hits_kept(shared_name):
    billing, search = shared_name
    write(search, "sextant.toml", "[check\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, A)
        found = (await session.call_tool("lookup_symbol", {"query": "settle"})).structured_content
        assert [(s["name"], s["root"]) for s in found["symbols"]] == [("settle", A), ("settle_all", A)]
        assert found["roots"][0] == {"name": A}
        failed = found["roots"][1]
        assert failed["name"] == B and failed["error"]["code"] == "INTERNAL"
        assert failed["error"]["message"].startswith("the workspace could not be loaded: ")

        searched = await session.call_tool("search", {"pattern": "return ledger"})
        assert searched.structured_content["roots"] == found["roots"]
        note = f"[root {B} did not answer: INTERNAL: {failed['error']['message']}]\n"
        assert searched.content[0].text == note + "[team-a/service] shared.py\nin function settle, lines 1-2\n2:    return ledger\n"
        assert searched.structured_content["tokens"] == reference_tokens(searched.content[0].text)

    # No root answers: the call fails, saying why for each.
    write(billing, "sextant.toml", "[check\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        error = tool_error(await session.call_tool("lookup_symbol", {"query": "settle"}))
        assert error["code"] == "INTERNAL"
        assert error["message"].startswith(f"no root answered ({A}: the workspace could not be loaded: ")
        assert f"; {B}: the workspace could not be loaded: " in error["message"]


def session_with_a_slow_second_root(billing, search):
    """A server of both roots whose second root has 300 more files: its first index has two
    shards, each slowed down."""
    for i in range(300):
        write(search, f"m{i:03}.py", f"def task_{i:03}():\n    return {i}\n")
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "5000"}
    return stdio_session(billing, "--root", str(search), "--no-cache", env=env)


async def test_a_root_still_indexing_answers_partially_and_says_so(shared_name):
    billing, search = shared_name
    async with session_with_a_slow_second_root(billing, search) as session:
        # The second root answers from its first 256 files, which leave out its `settle`.
        early = (await session.call_tool("lookup_symbol", {"query": "settle"})).structured_content
        indexed = {"files_indexed": 256, "files_total": 302}
        assert [(s["name"], s["root"]) for s in early["symbols"]] == [("settle", A), ("settle_all", A)], early
        assert (early["partial"], early["roots"]) == (indexed, [{"name": A}, {"name": B, "partial": indexed}]), early

        await wait_until_indexed_in(session, B)
        late = (await session.call_tool("lookup_symbol", {"query": "settle"})).structured_content
        assert [(s["name"], s["root"]) for s in late["symbols"]] == [("settle", A), ("settle", B), ("settle_all", A)]
        assert "partial" not in late and late["roots"] == EVERY_ROOT


async def test_lookups_by_name_answer_from_a_root_still_indexing_and_say_so(shared_name):
    billing, search = shared_name
    async with session_with_a_slow_second_root(billing, search) as session:
        # `task_001` is in the second root's first 256 files: it answers from them (the
        # first root, whose files do not define it, answers once its index is done).
        indexed = {"files_indexed": 256, "files_total": 302}
        found = (await session.call_tool("find_definition", {"query": "task_001"})).structured_content
        assert found == {
            "definitions": [{"name": "task_001", "kind": "function", "path": "m001.py", "root": B, "line": 1}],
            "partial": indexed,
            "roots": [{"name": A}, {"name": B, "partial": indexed}],
        }
        read = (await session.call_tool("read_symbol", {"targets": [{"symbol": "task_001"}]})).structured_content
        assert read_pieces_of(read) == [(B, "m001.py", 1, 2)]
        assert (read["partial"], read["roots"]) == (indexed, [{"name": A}, {"name": B, "partial": indexed}])
        # The second root's `settle` is in its unread files: the call waits for its index.
        settle = (await session.call_tool("find_definition", {"query": "settle"})).structured_content
        assert [(d["root"], d["path"]) for d in settle["definitions"]] == [(A, "shared.py"), (B, "shared.py")]
        assert "partial" not in settle and settle["roots"] == EVERY_ROOT


async def test_explore_answers_from_a_root_still_indexing_and_says_so(shared_name):
    billing, search = shared_name
    terms = ["task_001", "shared.py"]
    async with session_with_a_slow_second_root(billing, search) as session:
        # `task_001` is in the second root's first 256 files (`shared.py`, a file, is read in
        # every root): it answers from them, leaving out call paths and dependents; the
        # first root, whose files do not define it, answers once its index is done.
        found = await session.call_tool("explore", {"terms": terms})
        await wait_until_indexed_in(session, B)
        of_a = await session.call_tool("explore", {"terms": terms, "root": A})
        skeleton_of_b = await session.call_tool("explore", {"terms": ["shared.py"], "root": B})
        late = (await session.call_tool("explore", {"terms": terms})).structured_content

    indexed = {"files_indexed": 256, "files_total": 302}
    data = found.structured_content
    assert (data["partial"], data["roots"]) == (indexed, [{"name": A}, {"name": B, "partial": indexed}]), data
    assert data["not_searched"] == ["call_paths", "dependents"]
    assert data["definitions"] == [
        {"term": "task_001", "name": "task_001", "kind": "function", "path": "m001.py", "root": B, "line": 1, "end_line": 2, "shown": "full"},
    ]
    assert data["files"] == [{"path": "shared.py", "root": A}, {"path": "shared.py", "root": B}]
    assert "not_found" not in data
    assert found.content[0].text == (
        f"[{A}]\n{of_a.content[0].text}\n[{B}]\n"
        "[partial: 256 of 302 files indexed so far; call paths and dependents not searched]\n"
        "## m001.py\nm001.py:1-2 function task_001\n```python\ndef task_001():\n    return 1\n```\n"
        + skeleton_of_b.content[0].text
    )
    assert data["tokens"] == reference_tokens(found.content[0].text)
    assert of_a.structured_content["not_found"] == ["task_001"]
    # Once both are indexed: the whole answer, unmarked.
    assert "partial" not in late and "not_searched" not in late and late["roots"] == EVERY_ROOT


def read_pieces_of(data: dict) -> list[tuple]:
    return [(p.get("root"), p["path"], p["start_line"], p["end_line"]) for p in data["pieces"]]


async def test_roots_that_answer_too_late_are_given_up_before_the_call_times_out(two_roots):
    billing, search = two_roots
    # Every first shard takes 20 s; a root is waited for three quarters of the 4 s limit.
    env = {**os.environ, "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS": "20000"}
    calls = [
        ("lookup_symbol", {"query": "charge"}),
        ("read_symbol", {"targets": [{"symbol": "charge"}]}),
        ("find_implementations", {"name": "charge"}),
        ("call_graph", {"query": "charge"}),
        ("repo_map", {}),
        ("impact", {"symbols": ["charge"]}),
    ]
    async with stdio_session(billing, "--root", str(search), "--no-cache", "--request-timeout-ms", "4000", env=env) as session:
        errors = [tool_error(await session.call_tool(tool, args)) for tool, args in calls]
    for (tool, _), error in zip(calls, errors):
        assert error == {
            "code": "TIMEOUT",
            "message": f"no root answered ({A}: no answer within 3000 ms; {B}: no answer within 3000 ms)",
        }, tool


async def wait_until_indexed_in(session, root: str):
    import anyio

    for _ in range(100):
        status = await session.call_tool("workspace_status", {"root": root})
        if not status.is_error and status.structured_content["ready"]:
            return
        await anyio.sleep(0.2)
    raise AssertionError(f"{root} was never indexed")


def read_pieces(result) -> list[tuple]:
    assert not result.is_error, result
    return [(p["target"], p.get("root"), p["path"], p["start_line"], p["end_line"]) for p in result.structured_content["pieces"]]


QUERY_PIECE = "[team-b/service] search.py:1-2 function query\n```python\ndef query(text):\n    return text\n```\n"
CHARGE_PIECE = "[team-a/service] billing.py:1-2 function charge\n```python\ndef charge(amount):\n    return amount\n```\n"


async def test_read_symbol_looks_names_up_in_every_root(shared_name):
    billing, search = shared_name
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        # A name only the second root defines is read from it, the header saying its root.
        found = await session.call_tool("read_symbol", {"targets": [{"symbol": "query"}]})
        assert found.content[0].text == QUERY_PIECE
        data = found.structured_content
        assert data["pieces"] == [{"target": 0, "path": "search.py", "root": B, "kind": "function", "name": "query", "start_line": 1, "end_line": 2, "tokens": reference_tokens(QUERY_PIECE)}]
        assert (data["tokens"], data["status"], data["roots"]) == (reference_tokens(QUERY_PIECE), "complete", EVERY_ROOT)

        # A name both roots define is ambiguous, each candidate saying its root: never a guess.
        both = (await session.call_tool("read_symbol", {"targets": [{"symbol": "settle"}]})).structured_content
        assert both["ambiguous"] == [{"name": "settle", "candidates": [
            {"path": "shared.py", "root": A, "line": 1, "kind": "function"},
            {"path": "shared.py", "root": B, "line": 1, "kind": "function"},
        ]}]
        assert both["text"] == "`settle` names 2 definitions; ask for one by path and line:\n  [team-a/service] shared.py:1 function\n  [team-b/service] shared.py:1 function\n"
        assert both["pieces"] == []
        # Named in one root, it is that root's definition alone.
        only = await session.call_tool("read_symbol", {"targets": [{"symbol": "settle"}], "root": B})
        assert read_pieces(only) == [(0, None, "shared.py", 1, 2)]
        assert "roots" not in only.structured_content

        # Names from either root and paths in the root holding them, under one budget.
        targets = [{"symbol": "charge"}, {"symbol": "query"}, {"path": str(search / "shared.py")}, {"symbol": "nowhere"}]
        whole = await session.call_tool("read_symbol", {"targets": targets})
        assert read_pieces(whole) == [(0, A, "billing.py", 1, 2), (1, B, "search.py", 1, 2), (2, B, "shared.py", 1, 2)]
        assert whole.structured_content["not_found"] == ["nowhere"]
        assert whole.content[0].text.startswith(CHARGE_PIECE + "\n" + QUERY_PIECE + "\n[team-b/service] shared.py:1-2\n")
        two = reference_tokens(CHARGE_PIECE + "\n" + QUERY_PIECE)
        cut = await session.call_tool("read_symbol", {"targets": targets, "max_tokens": two})
        assert cut.content[0].text == CHARGE_PIECE + "\n" + QUERY_PIECE
        data = cut.structured_content
        assert (data["tokens"], data["status"], data["next_cursor"]) == (two, "with_omissions", "2:1")
        assert [(o["target"], o["root"], o["path"]) for o in data["omitted"]] == [(2, B, "shared.py")]
        rest = await session.call_tool("read_symbol", {"targets": targets, "cursor": "2:1"})
        assert read_pieces(rest) == [(2, B, "shared.py", 1, 2)]
        # Left out whole, it comes whole: not marked as continued.
        assert rest.content[0].text.startswith(f"[{B}] shared.py:1-2\n")
        assert rest.structured_content["tokens"] == reference_tokens(rest.content[0].text)
        assert "next_cursor" not in rest.structured_content

        # A name no root defines is NOT_FOUND, as with one root.
        missing = tool_error(await session.call_tool("read_symbol", {"targets": [{"symbol": "nowhere"}]}))
        assert missing["code"] == "NOT_FOUND"


async def test_read_symbol_pages_through_a_long_definition_of_another_root(shared_name):
    billing, search = shared_name
    write(search, "big.py", "def big():\n" + "".join(f"    x{i} = {i}\n" for i in range(60)) + "    return 0\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)
        targets = [{"symbol": "big"}]
        first = await session.call_tool("read_symbol", {"targets": targets, "max_tokens": 120})
        data = first.structured_content
        last = data["pieces"][0]["end_line"]
        assert (data["pieces"][0]["root"], data["pieces"][0]["cut"], data["next_cursor"]) == (B, True, f"0:{last + 1}")
        assert data["tokens"] == reference_tokens(first.content[0].text) <= 120
        assert first.content[0].text.startswith(f"[{B}] big.py:1-{last} function big\n")
        more = await session.call_tool("read_symbol", {"targets": targets, "max_tokens": 120, "cursor": data["next_cursor"]})
        piece = more.structured_content["pieces"][0]
        assert (piece["root"], piece["start_line"]) == (B, last + 1)
        assert more.content[0].text.startswith(f"[{B}] big.py:{last + 1}-{piece['end_line']} function big (continued)\n")
        assert more.structured_content["tokens"] == reference_tokens(more.content[0].text) <= 120


async def test_read_symbol_keeps_the_roots_that_answer(shared_name):
    billing, search = shared_name
    write(search, "sextant.toml", "[check\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, A)
        # `settle` is defined once in the roots that answered: read, the failed root named.
        read = await session.call_tool("read_symbol", {"targets": [{"symbol": "settle"}]})
        assert read_pieces(read) == [(0, A, "shared.py", 1, 2)]
        parts = read.structured_content["roots"]
        assert parts[0] == {"name": A} and (parts[1]["name"], parts[1]["error"]["code"]) == (B, "INTERNAL")
        nowhere = tool_error(await session.call_tool("read_symbol", {"targets": [{"symbol": "nowhere"}]}))
        assert nowhere == {"code": "NOT_FOUND", "message": f"no definition named nowhere (roots that did not answer: {B}: INTERNAL)"}
        # A path in the failed root has nowhere else to be read: the call fails.
        failed = tool_error(await session.call_tool("read_symbol", {"targets": [{"symbol": "settle"}, {"path": str(search / "search.py")}]}))
        assert failed["code"] == "INTERNAL"


async def test_a_roots_failure_that_is_the_calls_stops_the_other_roots_at_once(tmp_path, monkeypatch):
    # `slow` comes first: its part, stopped, must not answer for the call.
    slow = write(tmp_path / "slow", "shared.py", "def settle(ledger):\n    return ledger\n").parent
    other = write(tmp_path / "other", "search.py", "def query(text):\n    return text\n").parent
    write(other, "notes.txt", "not indexed\n")
    stderr = tmp_path / "stderr.txt"
    monkeypatch.setenv("ERRLOG", str(stderr))
    env = {**os.environ, "SEXTANT_TEST_PART_DELAY_MS": "slow:60000"}
    async with stdio_session(slow, "--root", str(other), "--request-timeout-ms", "600000", env=env) as session:
        for root in ["slow", "other"]:
            await wait_until_indexed_in(session, root)
        # A path in `other` has nowhere else to be read: its failure is the call's, at once.
        targets = [{"symbol": "settle"}, {"path": str(other / "notes.txt")}]
        failed = tool_error(await session.call_tool("read_symbol", {"targets": targets}))
        assert failed == {"code": "NOT_FOUND", "message": "notes.txt: not a file the workspace indexes (read_file reads any file)"}
        # A call graph whose start does not fit in one root is too large in any.
        tiny = tool_error(await session.call_tool("call_graph", {"query": "query", "max_tokens": 3}))
        assert tiny == {"code": "TOO_LARGE", "message": "not even the start fits in 3 tokens"}
    # Each time `slow`'s part was stopped: in its wait, or before it began if `other` failed first.
    log = stderr.read_text()
    assert log.count("test delay: a question of every root in slow stopped by cancellation") == 2, log
    assert "in slow finished" not in log


@pytest.fixture
def hierarchies(two_roots: tuple[Path, Path]) -> tuple[Path, Path]:
    """`Shape` in both roots, each with a subclass; `Widget` in the second only; `Gadget`
    twice in the first and once in the second."""
    billing, search = two_roots
    write(billing, "shapes.py", "class Shape:\n    pass\n\n\nclass Square(Shape):\n    pass\n")
    write(search, "shapes.py", "class Shape:\n    pass\n\n\nclass Circle(Shape):\n    pass\n")
    write(search, "widgets.py", "class Widget:\n    pass\n\n\nclass Button(Widget):\n    pass\n")
    write(billing, "gadgets.py", "class Gadget:\n    pass\n")
    write(billing, "more_gadgets.py", "class Gadget:\n    pass\n")
    write(search, "gadgets.py", "class Gadget:\n    pass\n")
    return billing, search


def brief(items: list[dict]) -> list[tuple]:
    return [(i["name"], i.get("root"), i["path"], i["span"]["start"]["line"], i["depth"]) for i in items]


async def test_implementations_by_name_come_from_every_root(hierarchies):
    billing, search = hierarchies
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        # Defined in the second root only: its hierarchy, each item saying its root.
        widget = (await session.call_tool("find_implementations", {"name": "Widget"})).structured_content
        assert brief([widget["subject"]]) == [("Widget", B, "widgets.py", 1, 0)]
        assert brief(widget["items"]) == [("Button", B, "widgets.py", 5, 1)]
        assert brief(widget["subjects"]) == brief([widget["subject"]])
        assert (widget["total"], widget["truncated"], widget["roots"]) == (1, False, EVERY_ROOT)

        # Defined in both: both hierarchies, nearest first, then by path and position,
        # ties in the roots' order; `total` summed, `limit` over the merged items.
        shape = (await session.call_tool("find_implementations", {"name": "Shape"})).structured_content
        assert brief(shape["subjects"]) == [("Shape", A, "shapes.py", 1, 0), ("Shape", B, "shapes.py", 1, 0)]
        assert shape["subject"] == shape["subjects"][0]
        assert brief(shape["items"]) == [("Square", A, "shapes.py", 5, 1), ("Circle", B, "shapes.py", 5, 1)]
        assert (shape["total"], shape["truncated"]) == (2, False)
        cut = (await session.call_tool("find_implementations", {"name": "Shape", "limit": 1})).structured_content
        assert brief(cut["items"]) == [("Square", A, "shapes.py", 5, 1)]
        assert (cut["total"], cut["truncated"]) == (2, True)

        # A name one root defines twice is ambiguous, with every root's candidates.
        gadget = tool_error(await session.call_tool("find_implementations", {"name": "Gadget"}))
        assert gadget["code"] == "AMBIGUOUS_SYMBOL"
        assert [(c["root"], c["path"]) for c in gadget["candidates"]] == [(A, "gadgets.py"), (A, "more_gadgets.py"), (B, "gadgets.py")]
        assert tool_error(await session.call_tool("find_implementations", {"name": "Nowhere"}))["code"] == "NOT_FOUND"

        # With `root`: that root's answer, as a one-root server gives it.
        only = (await session.call_tool("find_implementations", {"name": "Shape", "root": B})).structured_content
        assert brief(only["items"]) == [("Circle", None, "shapes.py", 5, 1)]
        assert "roots" not in only and "subjects" not in only and "root" not in only["subject"]


async def test_implementations_keep_the_roots_that_answer(hierarchies):
    billing, search = hierarchies
    write(billing, "sextant.toml", "[check\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, B)
        shape = (await session.call_tool("find_implementations", {"name": "Shape"})).structured_content
        assert brief(shape["items"]) == [("Circle", B, "shapes.py", 5, 1)]
        assert (shape["roots"][0]["name"], shape["roots"][0]["error"]["code"], shape["roots"][1]) == (A, "INTERNAL", {"name": B})
        # A name the answering roots do not define: NOT_FOUND, saying which roots did not answer.
        nowhere = tool_error(await session.call_tool("find_implementations", {"name": "Square"}))
        assert (nowhere["code"], nowhere["message"].endswith(f"(roots that did not answer: {A}: INTERNAL)")) == ("NOT_FOUND", True)


QUERY_GRAPH = "function query (search.py:1)\ncalled by:\n  function run (jobs.py:4): calls at 5:5, 6:5\n  function batch (jobs.py:9): call at 10:5\ncalls:\n  (none found)\n"


async def test_a_call_graph_by_name_comes_from_the_root_defining_it(shared_name):
    billing, search = shared_name
    write(search, "jobs.py", "from search import query\n\n\ndef run():\n    query(1)\n    query(2)\n\n\ndef batch():\n    query(3)\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        # Defined in the second root only: its graph, the text's first line naming the root.
        found = await session.call_tool("call_graph", {"query": "query"})
        text = found.content[0].text
        assert text == f"[{B}]\n" + QUERY_GRAPH
        data = found.structured_content
        assert [(n["name"], n["path"]) for n in data["nodes"]] == [("query", "search.py"), ("run", "jobs.py"), ("batch", "jobs.py")]
        assert (data["root"], data["roots"], data["truncated"]) == (B, EVERY_ROOT, False)
        assert data["tokens"] == reference_tokens(text)

        # One budget for the whole text, the root's line included.
        cut = await session.call_tool("call_graph", {"query": "query", "max_tokens": data["tokens"] - 1})
        assert cut.content[0].text.startswith(f"[{B}]\nfunction query (search.py:1)\ncalled by:\n")
        assert "batch" not in cut.content[0].text
        assert cut.structured_content["truncated"] is True
        assert cut.structured_content["tokens"] == reference_tokens(cut.content[0].text) <= data["tokens"] - 1
        tiny = tool_error(await session.call_tool("call_graph", {"query": "query", "max_tokens": 3}))
        assert tiny == {"code": "TOO_LARGE", "message": "not even the start fits in 3 tokens"}

        # Defined in both roots: refused with the candidates, each saying its root.
        both = tool_error(await session.call_tool("call_graph", {"query": "settle"}))
        assert both["code"] == "AMBIGUOUS_SYMBOL"
        assert both["candidates"] == [
            {"kind": "function", "line": 1, "path": "shared.py", "root": A},
            {"kind": "function", "line": 1, "path": "shared.py", "root": B},
        ]
        assert tool_error(await session.call_tool("call_graph", {"query": "nowhere"}))["code"] == "NO_SYMBOL"

        # With `root`: that root's graph, as a one-root server gives it.
        only = await session.call_tool("call_graph", {"query": "query", "root": B})
        assert only.content[0].text == QUERY_GRAPH
        assert "root" not in only.structured_content and "roots" not in only.structured_content


async def test_a_call_graph_comes_from_the_roots_that_answer(shared_name):
    billing, search = shared_name
    write(search, "sextant.toml", "[check\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, A)
        # `settle` of the root that answered, the other named with its error.
        found = await session.call_tool("call_graph", {"query": "settle", "direction": "incoming"})
        assert found.content[0].text == f"[{A}]\nfunction settle (shared.py:1)\ncalled by:\n  (none found)\n"
        data = found.structured_content
        assert (data["root"], data["roots"][0], data["roots"][1]["name"], data["roots"][1]["error"]["code"]) == (A, {"name": A}, B, "INTERNAL")
        nowhere = tool_error(await session.call_tool("call_graph", {"query": "query"}))
        assert nowhere == {"code": "NO_SYMBOL", "message": f"no definition named `query` (roots that did not answer: {B}: INTERNAL)"}


MAP_OF_A = "[team-a/service]\nbilling.py:\n1: def charge(amount)\n\nshared.py:\n1: def settle(ledger)\n5: def settle_all()\n"
MAP_OF_B = "search.py:\n1: def query(text)\n5: def charge_free()\n\nshared.py:\n1: def settle(batch)\n"


async def test_a_repo_map_maps_every_root_under_one_budget(shared_name):
    billing, search = shared_name
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        # One map per root, each after a line naming it, in the roots' order.
        whole = await session.call_tool("repo_map", {})
        text = whole.content[0].text
        assert text == MAP_OF_A + f"\n[{B}]\n" + MAP_OF_B
        data = whole.structured_content
        assert data == {
            "tokens": reference_tokens(text),
            "encoding": "o200k_base",
            "max_tokens": 4000,
            "definitions_shown": 6,
            "definition_count": 6,
            "files_shown": 4,
            "file_count": 4,
            "truncated": False,
            "roots": EVERY_ROOT,
        }

        # The budget shared by the roots' sizes (here equal): each keeps its best first.
        cut = await session.call_tool("repo_map", {"max_tokens": 30})
        assert cut.content[0].text == f"[{A}]\nbilling.py:\n1: def charge(amount)\n\n[{B}]\nsearch.py:\n1: def query(text)\n"
        data = cut.structured_content
        assert (data["definitions_shown"], data["files_shown"], data["truncated"]) == (2, 2, True)
        assert data["tokens"] == reference_tokens(cut.content[0].text) <= 30

        # With `root`: that root's map, as a one-root server gives it.
        only = await session.call_tool("repo_map", {"root": B, "max_tokens": 4000})
        assert only.content[0].text.startswith("search.py:\n") and "roots" not in only.structured_content


async def test_a_repo_map_shares_its_budget_by_the_roots_sizes(shared_name):
    billing, search = shared_name
    write(search, "more.py", "".join(f"def more_{i}():\n    pass\n\n\n" for i in range(40)))
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)
        # Half the budget evenly, half by size: the small first root's share holds its
        # whole map, and what it leaves goes to the large one, cut to what fits.
        mapped = await session.call_tool("repo_map", {"max_tokens": 120})
        text = mapped.content[0].text
        more = "".join(f"{4 * i + 1}: def more_{i}()\n" for i in range(9))
        assert text == MAP_OF_A + f"\n[{B}]\nmore.py:\n" + more + "\n… 34 more definitions (raise max_tokens, narrow the path or focus)\n"
        data = mapped.structured_content
        assert (data["definitions_shown"], data["definition_count"], data["truncated"]) == (12, 46, True)
        assert data["tokens"] == reference_tokens(text) <= 120


async def test_a_repo_map_names_a_root_that_does_not_answer(shared_name):
    billing, search = shared_name
    write(search, "sextant.toml", "[check\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, A)
        mapped = await session.call_tool("repo_map", {})
        failed = mapped.structured_content["roots"][1]
        assert (failed["name"], failed["error"]["code"]) == (B, "INTERNAL")
        note = f"[root {B} did not answer: INTERNAL: {failed['error']['message']}]\n"
        assert mapped.content[0].text == note + MAP_OF_A, mapped.content[0].text
        assert mapped.structured_content["tokens"] == reference_tokens(note + MAP_OF_A)


QUERY_IMPACT = """impact of search.py:1 function query
2 dependents in 1 file, 0 tests among them
1 step:
  jobs.py top level imports function query (search.py:1)
  jobs.py:4 function run uses function query (search.py:1)
"""


async def test_an_impact_by_name_comes_from_the_root_its_seeds_are_in(shared_name):
    billing, search = shared_name
    write(search, "jobs.py", "from search import query\n\n\ndef run():\n    query(1)\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)

        found = await session.call_tool("impact", {"symbols": ["query"]})
        text = found.content[0].text
        assert text == f"[{B}]\n" + QUERY_IMPACT
        data = found.structured_content
        assert [(d["name"], d["path"]) for d in data["dependents"]] == [("jobs.py", "jobs.py"), ("run", "jobs.py")]
        assert (data["root"], data["roots"], data["total"]) == (B, EVERY_ROOT, 2)
        assert data["tokens"] == reference_tokens(text)
        # One budget, the root's line included.
        cut = await session.call_tool("impact", {"symbols": ["query"], "max_tokens": data["tokens"] - 1})
        assert cut.content[0].text.startswith(f"[{B}]\nimpact of search.py:1 function query\n")
        assert cut.structured_content["truncated"] is True
        assert cut.structured_content["tokens"] == reference_tokens(cut.content[0].text) <= data["tokens"] - 1

        # Never a guess, and never across roots.
        both = tool_error(await session.call_tool("impact", {"symbols": ["settle"]}))
        assert both["code"] == "AMBIGUOUS_SYMBOL"
        assert [(c["root"], c["path"], c["line"]) for c in both["candidates"]] == [(A, "shared.py", 1), (B, "shared.py", 1)]
        apart = tool_error(await session.call_tool("impact", {"symbols": ["charge", "query"]}))
        assert apart == {
            "code": "INVALID_ARGUMENT",
            "message": f"the seeds are in several roots (charge: {A}, query: {B}); dependents never cross roots: ask each with `root`",
        }
        assert tool_error(await session.call_tool("impact", {"symbols": ["nowhere"]})) == {"code": "NOT_FOUND", "message": "no root defines `nowhere`"}
        # Line ranges go to the root holding their path.
        at = (await session.call_tool("affected_tests", {"lines": [{"path": str(search / "search.py"), "start": 1, "end": 2}]})).structured_content
        assert (at["root"], at["tests"], "roots" not in at) == (B, 0, True)

        # With `root`: that root's answer, as a one-root server gives it.
        only = await session.call_tool("impact", {"symbols": ["query"], "root": B})
        assert only.content[0].text == QUERY_IMPACT
        assert "root" not in only.structured_content and "roots" not in only.structured_content


SETTLE_OF_A = "## shared.py\nshared.py:1-2 function settle\n```python\ndef settle(ledger):\n    return ledger\n```\n"
SETTLE_OF_B = "## shared.py\nshared.py:1-2 function settle\n```python\ndef settle(batch):\n    return batch\n```\n"
RUN_AND_QUERY_OF_B = (
    "## jobs.py\njobs.py:4-5 function run\n```python\ndef run():\n    query(1)\n```\n"
    "## search.py\nsearch.py:1-2 function query\n```python\ndef query(text):\n    return text\n```\n"
)


def explored(data: dict) -> list[tuple]:
    return [(d.get("root"), d["term"], d["path"], d["line"], d["shown"]) for d in data["definitions"]]


async def test_explore_asks_every_root_and_merges_what_the_terms_name(shared_name):
    billing, search = shared_name
    write(search, "jobs.py", "from search import query\n\n\ndef run():\n    query(1)\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)
        schema = {t.name: t.output_schema for t in (await session.list_tools()).tools}["explore"]
        assert {"roots", "definitions", "tokens"} <= set(schema["properties"])

        # `settle` is defined in both roots, `run` and `query` in the second only: each root
        # explores the terms as it would alone, after a line naming it; call paths and
        # dependents are found within the root.
        found = await session.call_tool("explore", {"terms": ["run", "query", "settle"]})
        text = found.content[0].text
        assert text == (
            f"[{A}]\n" + SETTLE_OF_A + "named nothing: run, query\n"
            f"\n[{B}]\n" + RUN_AND_QUERY_OF_B + SETTLE_OF_B
            + "## call paths\nfunction run (jobs.py:4) -> function query (search.py:1)\n"
            + "## dependents (1 within 2 steps, 0 tests)\njobs.py top level imports function query (search.py:1)\n"
        )
        assert found.structured_content == {
            "tokens": reference_tokens(text),
            "files_tokens": 52,
            "encoding": "o200k_base",
            "max_tokens": 8000,
            "definitions": [
                {"term": "settle", "name": "settle", "kind": "function", "path": "shared.py", "root": A, "line": 1, "end_line": 2, "shown": "full"},
                {"term": "run", "name": "run", "kind": "function", "path": "jobs.py", "root": B, "line": 4, "end_line": 5, "shown": "full"},
                {"term": "query", "name": "query", "kind": "function", "path": "search.py", "root": B, "line": 1, "end_line": 2, "shown": "full"},
                {"term": "settle", "name": "settle", "kind": "function", "path": "shared.py", "root": B, "line": 1, "end_line": 2, "shown": "full"},
            ],
            "files": [],
            "call_paths": [{"steps": ["function run (jobs.py:4)", "function query (search.py:1)"], "root": B}],
            "dependents_shown": 1,
            "dependents": 1,
            "truncated": False,
            "roots": EVERY_ROOT,
        }

        # A name one root defines: that root's part alone; a term no root names is listed.
        one = await session.call_tool("explore", {"terms": ["settle_all", "nowhere"]})
        assert one.content[0].text == (
            f"[{A}]\n## shared.py\nshared.py:5-6 function settle_all\n```python\ndef settle_all():\n    pass\n```\n"
            "named nothing: nowhere\n"
        )
        assert explored(one.structured_content) == [(A, "settle_all", "shared.py", 5, "full")]
        assert one.structured_content["not_found"] == ["nowhere"]
        assert one.structured_content["tokens"] == reference_tokens(one.content[0].text)
        assert tool_error(await session.call_tool("explore", {"terms": ["nowhere"]})) == {
            "code": "NOT_FOUND",
            "message": "no term names a definition or a file: nowhere",
        }

        # A file each root holds: each root's skeleton of it, and `files` says whose.
        files = await session.call_tool("explore", {"terms": ["shared.py"]})
        of_a = await session.call_tool("explore", {"terms": ["shared.py"], "root": A})
        of_b = await session.call_tool("explore", {"terms": ["shared.py"], "root": B})
        assert files.structured_content["files"] == [{"path": "shared.py", "root": A}, {"path": "shared.py", "root": B}]
        assert files.content[0].text == f"[{A}]\n{of_a.content[0].text}\n[{B}]\n{of_b.content[0].text}"
        assert of_a.content[0].text.startswith("## shared.py (skeleton)\n")
        assert (of_a.structured_content["files"], of_b.structured_content["files"]) == (["shared.py"], ["shared.py"])

        # With `root`: that root's answer, byte for byte what a server of that root alone gives.
        terms = ["run", "query", "settle", "search.py"]
        only = await session.call_tool("explore", {"terms": terms, "root": B})
    async with stdio_session(search) as alone:
        await wait_until_indexed(alone)
        expected = await alone.call_tool("explore", {"terms": terms})
    assert only.content[0].text == expected.content[0].text
    assert only.structured_content == expected.structured_content
    assert only.structured_content["files"] == ["search.py"]
    assert "roots" not in only.structured_content and "root" not in only.structured_content["definitions"][0]


async def test_explore_call_paths_over_every_root_say_their_root(shared_name):
    billing, search = shared_name
    write(billing, "jobs.py", "from shared import settle\n\n\ndef run():\n    settle(1)\n")
    write(search, "jobs.py", "from shared import settle\n\n\ndef run():\n    return settle(2)\n")
    terms = ["run", "settle"]
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)
        schema = {t.name: t.output_schema for t in (await session.list_tools()).tools}["explore"]
        found = await session.call_tool("explore", {"terms": terms})
        of_a = await session.call_tool("explore", {"terms": terms, "root": A})
        of_b = await session.call_tool("explore", {"terms": terms, "root": B})

    # A call path is found within one root: merged, each says its root beside its steps,
    # as `files` do; one root's answer keeps the plain steps.
    assert schema["$defs"]["ExploredCallPath"]["anyOf"] == [
        {"type": "array", "items": {"type": "string"}},
        {
            "type": "object",
            "properties": {"steps": {"type": "array", "items": {"type": "string"}}, "root": {"type": "string"}},
            "required": ["steps", "root"],
        },
    ]
    steps = ["function run (jobs.py:4)", "function settle (shared.py:1)"]
    data = found.structured_content
    assert data["call_paths"] == [{"steps": steps, "root": A}, {"steps": steps, "root": B}]
    assert (of_a.structured_content["call_paths"], of_b.structured_content["call_paths"]) == ([steps], [steps])
    # The text is each root's own answer after the line naming it.
    path_and_dependent = (
        "## call paths\nfunction run (jobs.py:4) -> function settle (shared.py:1)\n"
        "## dependents (1 within 2 steps, 0 tests)\njobs.py top level imports function settle (shared.py:1)\n"
    )
    of_a_text = "## jobs.py\njobs.py:4-5 function run\n```python\ndef run():\n    settle(1)\n```\n" + SETTLE_OF_A + path_and_dependent
    of_b_text = "## jobs.py\njobs.py:4-5 function run\n```python\ndef run():\n    return settle(2)\n```\n" + SETTLE_OF_B + path_and_dependent
    assert (of_a.content[0].text, of_b.content[0].text) == (of_a_text, of_b_text)
    assert found.content[0].text == f"[{A}]\n{of_a_text}\n[{B}]\n{of_b_text}"
    assert (data["tokens"], data["truncated"]) == (reference_tokens(found.content[0].text), False)
    assert [(d["root"], d["term"], d["path"]) for d in data["definitions"]] == [
        (A, "run", "jobs.py"), (A, "settle", "shared.py"), (B, "run", "jobs.py"), (B, "settle", "shared.py"),
    ]
    assert (data["dependents_shown"], data["dependents"]) == (2, 2)


async def test_explore_over_every_root_keeps_to_one_budget(shared_name):
    billing, search = shared_name
    async with stdio_session(billing, "--root", str(search)) as session:
        await both_indexed(session)
        terms = ["settle", "settle_all"]
        whole = await session.call_tool("explore", {"terms": terms})
        assert whole.content[0].text == (
            f"[{A}]\n" + SETTLE_OF_A + "shared.py:5-6 function settle_all\n```python\ndef settle_all():\n    pass\n```\n"
            f"\n[{B}]\n" + SETTLE_OF_B + "named nothing: settle_all\n"
        )
        needed = whole.structured_content["tokens"]
        assert needed == reference_tokens(whole.content[0].text)
        # The budget shared by the roots: the first, naming more, gets more; both show
        # their `settle` whole, and the first's `settle_all` is left out.
        cut = await session.call_tool("explore", {"terms": terms, "max_tokens": 80})
        assert cut.content[0].text == f"[{A}]\n" + SETTLE_OF_A + f"\n[{B}]\n" + SETTLE_OF_B
        assert explored(cut.structured_content) == [
            (A, "settle", "shared.py", 1, "full"),
            (A, "settle_all", "shared.py", 5, "omitted"),
            (B, "settle", "shared.py", 1, "full"),
        ]
        assert cut.structured_content["truncated"] is True
        # Shares too small for either root's `settle`: the first root alone, not nothing.
        alone = await session.call_tool("explore", {"terms": terms, "max_tokens": 40})
        assert alone.content[0].text == f"[{A}]\n" + SETTLE_OF_A
        assert explored(alone.structured_content) == [
            (A, "settle", "shared.py", 1, "full"),
            (A, "settle_all", "shared.py", 5, "omitted"),
            (B, "settle", "shared.py", 1, "omitted"),
        ]
        assert alone.structured_content["tokens"] == reference_tokens(alone.content[0].text) <= 40
        # Whatever the budget, the text's exact count, never over it. (The shares count each
        # root's part apart, where the parts' joins may merge tokens: a budget of exactly
        # the whole text's count may cut it, one a little larger does not.)
        for max_tokens in [1, 20, 50, 60, 70, 90, needed - 1, needed + 8]:
            answer = await session.call_tool("explore", {"terms": terms, "max_tokens": max_tokens})
            assert not answer.is_error, (max_tokens, answer)
            data = answer.structured_content
            assert data["tokens"] == reference_tokens(answer.content[0].text) <= max_tokens, (max_tokens, data)
            assert data["truncated"] is (max_tokens < needed), (max_tokens, data)


async def test_explore_names_a_root_that_does_not_answer(shared_name):
    billing, search = shared_name
    write(search, "sextant.toml", "[check\n")
    async with stdio_session(billing, "--root", str(search)) as session:
        await wait_until_indexed_in(session, A)
        found = await session.call_tool("explore", {"terms": ["settle"]})
        failed = found.structured_content["roots"][1]
        assert (failed["name"], failed["error"]["code"]) == (B, "INTERNAL")
        note = f"[root {B} did not answer: INTERNAL: {failed['error']['message']}]\n"
        assert found.content[0].text == note + f"[{A}]\n" + SETTLE_OF_A
        assert found.structured_content["tokens"] == reference_tokens(found.content[0].text)
        # A term no answering root names: the roots that did not answer are named.
        missing = tool_error(await session.call_tool("explore", {"terms": ["query"]}))
        assert missing == {
            "code": "NOT_FOUND",
            "message": f"no term names a definition or a file: query (roots that did not answer: {B}: INTERNAL)",
        }
