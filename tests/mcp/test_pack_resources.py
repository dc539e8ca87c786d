"""A pack larger than one answer, through the official MCP Python SDK (and raw JSON-RPC for
protocol 2026-07-28): a summary within the cap, the pack in parts offered as resources of
this session only, each part within the cap and counted exactly against the reference
tokenizer, the parts together byte for byte the pack one answer gives when the cap allows."""

import json

import pytest
from mcp.shared.exceptions import MCPError

from conftest import http_server, http_session, raw_stdio, stdio_session, tool_error, write
from test_read import reference_tokens

pytestmark = pytest.mark.anyio

CAP = 400
RESOURCE_NOT_FOUND = -32002
TASKS = [{"required": [{"path": f"pkg/mod{i}.py"} for i in range(6)] + [{"path": "pkg/huge.py"}]}]


def project(root):
    for i in range(6):
        write(root, f"pkg/mod{i}.py", "".join(f"def f{i}_{j}(x):\n    return x * {j} + {i}\n\n\n" for j in range(12)))
    # One block alone over the cap: cut at its lines.
    write(root, "pkg/huge.py", "TABLE = [\n" + "".join(f"    ({k}, 'value number {k}'),\n" for k in range(200)) + "]\n")


def in_parts(result) -> tuple[str, list, dict]:
    """The summary, the resource links and the structured content of a pack in parts."""
    assert not result.is_error, result
    assert result.content[0].type == "text"
    assert all(item.type == "resource_link" for item in result.content[1:])
    return result.content[0].text, result.content[1:], result.structured_content


async def read_text(session, uri: str) -> str:
    read = await session.read_resource(uri)
    assert len(read.contents) == 1 and str(read.contents[0].uri) == uri
    return read.contents[0].text


async def not_found(session, uri: str) -> int:
    with pytest.raises(MCPError) as refused:
        await session.read_resource(uri)
    return refused.value.code


async def test_a_pack_over_the_cap_comes_in_parts_that_are_the_pack(tmp_path):
    project(tmp_path)
    call = {"tasks": TASKS, "max_tokens": 20000}
    async with stdio_session(tmp_path, "--max-answer-tokens", "100000") as whole:
        reference = await whole.call_tool("pack_context", call)
        reference_json = await whole.call_tool("pack_context", {**call, "style": "json"})
    async with stdio_session(tmp_path, "--max-answer-tokens", str(CAP)) as session:
        summary, links, data = in_parts(await session.call_tool("pack_context", call))
        texts = [await read_text(session, part["uri"]) for part in data["parts"]]
        listed = (await session.list_resources()).resources
        json_summary, _, json_data = in_parts(await session.call_tool("pack_context", {**call, "style": "json"}))
        json_texts = [await read_text(session, part["uri"]) for part in json_data["parts"]]
    assert reference.structured_content["tokens"] > CAP and "parts" not in reference.structured_content
    # The summary is the text content, within the cap and counted exactly.
    assert data["tokens"] == reference_tokens(summary) <= CAP
    assert data["text"] == summary
    assert data["pack_tokens"] == reference.structured_content["tokens"]
    assert data["included"] == reference.structured_content["included"]
    uris = [part["uri"] for part in data["parts"]]
    assert summary.startswith(
        f"The pack is {data['pack_tokens']} tokens (o200k_base), more than one answer holds ({CAP}): "
        f"its text is in {len(texts)} parts, {uris[0]} to {uris[-1]}, to read in order with resources/read; "
        "concatenated they are the pack. Tokens of each part: " + ", ".join(str(p["tokens"]) for p in data["parts"]) + "."
    )
    assert uris == [uris[0][:-1] + str(n) for n in range(1, len(uris) + 1)]
    assert "pkg/huge.py:1-202\n" in summary
    # Each part within the cap, counted exactly; together, byte for byte the whole pack.
    assert len(texts) > 5
    for part, text in zip(data["parts"], texts):
        assert part["tokens"] == reference_tokens(text) <= CAP, part
        assert part["bytes"] == len(text.encode())
        assert part["uri"].startswith("sextant://pack/")
    assert "".join(texts) == reference.content[0].text
    # Blocks are not cut while they fit: the first part starts the first file, and the
    # huge one starts a part of its own.
    assert texts[0].startswith("pkg/mod0.py:1-48\n```python\n")
    assert any(text.startswith("pkg/huge.py:1-202\n") for text in texts)
    # The links and the list name exactly the parts, in order, with their sizes and tokens.
    assert [str(link.uri) for link in links] == [part["uri"] for part in data["parts"]]
    assert [str(r.uri) for r in listed] == [part["uri"] for part in data["parts"]]
    for resource, part in zip(listed, data["parts"]):
        assert resource.mime_type == "text/markdown" and resource.size == part["bytes"]
        assert resource.meta == {"tokens": part["tokens"], "encoding": "o200k_base"}
    # A JSON pack's parts are the JSON array cut between its items.
    assert json_data["tokens"] == reference_tokens(json_summary) <= CAP
    assert "".join(json_texts) == reference_json.content[0].text
    assert [b["path"] for b in json.loads("".join(json_texts))] == [f"pkg/mod{i}.py" for i in range(6)] + ["pkg/huge.py"]
    assert all(part["tokens"] == reference_tokens(text) <= CAP for part, text in zip(json_data["parts"], json_texts))


async def test_a_new_pack_replaces_the_parts_and_release_frees_them(tmp_path):
    project(tmp_path)
    async with stdio_session(tmp_path, "--max-answer-tokens", str(CAP)) as session:
        assert (await session.list_resources()).resources == []
        _, _, first = in_parts(await session.call_tool("pack_context", {"tasks": TASKS, "max_tokens": 20000}))
        _, _, second = in_parts(await session.call_tool("pack_context", {"tasks": TASKS, "max_tokens": 20000, "style": "xml"}))
        old_uri = first["parts"][0]["uri"]
        old_code = await not_found(session, old_uri)
        listed = (await session.list_resources()).resources
        # A pack that fits one answer leaves the parts alone.
        small = await session.call_tool("pack_context", {"tasks": [{"required": [{"path": "pkg/mod1.py"}]}]})
        still = (await session.list_resources()).resources
        made_up = await not_found(session, old_uri.rsplit("/", 2)[0] + "/0-00000000000000000000000000000000/1")
        workspace_file = await not_found(session, (tmp_path / "pkg" / "mod1.py").as_uri())
        released = await session.call_tool("release_context", {})
        emptied = (await session.list_resources()).resources
        gone = await not_found(session, second["parts"][0]["uri"])
        again = await session.call_tool("release_context", {})
        over = await session.call_tool("pack_context", {"tasks": TASKS, "max_tokens": 1_000_001})
        unknown = await session.call_tool("release_context", {"all": True})
    assert not set(p["uri"] for p in first["parts"]) & set(p["uri"] for p in second["parts"])
    assert old_code == made_up == workspace_file == gone == RESOURCE_NOT_FOUND
    assert [str(r.uri) for r in listed] == [p["uri"] for p in second["parts"]]
    assert all(r.mime_type == "application/xml" for r in listed)
    assert not small.is_error and len(small.content) == 1 and "parts" not in small.structured_content
    assert [str(r.uri) for r in still] == [p["uri"] for p in second["parts"]]
    assert released.structured_content == {"released": len(second["parts"])}
    assert emptied == []
    assert again.structured_content == {"released": 0}
    assert tool_error(over)["code"] == "INVALID_ARGUMENT"
    assert tool_error(unknown)["code"] == "INVALID_ARGUMENT"


async def test_http_sessions_do_not_see_each_others_parts(tmp_path):
    project(tmp_path)
    with http_server(tmp_path, "--max-answer-tokens", str(CAP)) as server:
        async with http_session(server.url) as first, http_session(server.url) as second:
            _, _, data = in_parts(await first.call_tool("pack_context", {"tasks": TASKS, "max_tokens": 20000}))
            uri = data["parts"][0]["uri"]
            assert [str(r.uri) for r in (await first.list_resources()).resources] == [p["uri"] for p in data["parts"]]
            assert (await second.list_resources()).resources == []
            assert await not_found(second, uri) == RESOURCE_NOT_FOUND
            assert (await second.call_tool("release_context", {})).structured_content == {"released": 0}
            assert await read_text(first, uri)


META_2026 = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
}


def request(raw, id: int, method: str, params: dict, meta: dict | None = None) -> dict:
    raw.send({"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, **({"_meta": meta} if meta else {})}})
    while True:
        answer = raw.recv()
        if answer.get("id") == id:
            return answer


def test_protocol_2026_07_28_answers_carry_private_no_ttl_caching_hints(tmp_path):
    project(tmp_path)
    pack = {"name": "pack_context", "arguments": {"tasks": TASKS, "max_tokens": 20000}}
    with raw_stdio(tmp_path, "--max-answer-tokens", str(CAP)) as raw:
        discovered = request(raw, 1, "server/discover", {}, META_2026)
        # A stream of list changes: acknowledged, then one notification per change.
        raw.send({"jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
                  "params": {"notifications": {"resourcesListChanged": True, "toolsListChanged": True}, "_meta": META_2026}})
        acknowledged = raw.recv()
        raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {**pack, "_meta": META_2026}})
        seen = []
        # The stream's notification may come after the tool's answer: wait for both.
        while not (any(m.get("id") == 2 for m in seen) and any("method" in m for m in seen)):
            seen.append(raw.recv())
        packed = next(m for m in seen if m.get("id") == 2)
        listed = request(raw, 3, "resources/list", {}, META_2026)
        uri = packed["result"]["structuredContent"]["parts"][0]["uri"]
        read = request(raw, 4, "resources/read", {"uri": uri}, META_2026)
        refused = request(raw, 5, "resources/read", {"uri": (tmp_path / "pkg" / "mod0.py").as_uri()}, META_2026)
    assert discovered["result"]["capabilities"]["resources"] == {"listChanged": True}
    assert acknowledged["method"] == "notifications/subscriptions/acknowledged"
    assert acknowledged["params"]["notifications"] == {"resourcesListChanged": True}
    changed = [m for m in seen if m.get("method") == "notifications/resources/list_changed"]
    assert len(changed) == 1 and changed[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == 9
    for answer in (listed, read):
        assert (answer["result"]["ttlMs"], answer["result"]["cacheScope"]) == (0, "private")
    assert [r["uri"] for r in listed["result"]["resources"]] == [p["uri"] for p in packed["result"]["structuredContent"]["parts"]]
    assert read["result"]["contents"][0]["text"].startswith("pkg/mod0.py:1-48\n")
    # 2026-07-28 reports a resource not found as invalid params (rmcp maps it).
    assert refused["error"]["code"] == -32602 and refused["error"]["data"] == {"uri": (tmp_path / "pkg" / "mod0.py").as_uri()}


def test_before_2026_07_28_no_caching_hints_and_the_list_change_is_announced(tmp_path):
    project(tmp_path)
    pack = {"name": "pack_context", "arguments": {"tasks": TASKS, "max_tokens": 20000}}
    with raw_stdio(tmp_path, "--max-answer-tokens", str(CAP)) as raw:
        raw.initialize()
        raw.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": pack})
        seen = []
        while not (any(m.get("id") == 2 for m in seen) and any("method" in m for m in seen)):
            seen.append(raw.recv())
        listed = request(raw, 3, "resources/list", {})
        read = request(raw, 4, "resources/read", {"uri": listed["result"]["resources"][0]["uri"]})
        refused = request(raw, 5, "resources/read", {"uri": "sextant://pack/made-up/1"})
    assert {"jsonrpc": "2.0", "method": "notifications/resources/list_changed"} in seen
    for answer in (listed, read):
        assert "ttlMs" not in answer["result"] and "cacheScope" not in answer["result"]
    assert refused["error"]["code"] == RESOURCE_NOT_FOUND
