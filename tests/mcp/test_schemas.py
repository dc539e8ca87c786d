"""Every tool schema from `tools/list` is standard JSON Schema: strict validators (such as the
TypeScript SDK's) accept it without warnings, and no bound is lost in the translation."""

import pytest

from conftest import stdio_session

pytestmark = pytest.mark.anyio

# The `format` values JSON Schema 2020-12 defines (Validation, section 7.3).
STANDARD_FORMATS = {
    "date-time", "date", "time", "duration",
    "email", "idn-email", "hostname", "idn-hostname", "ipv4", "ipv6",
    "uri", "uri-reference", "iri", "iri-reference", "uuid", "uri-template",
    "json-pointer", "relative-json-pointer", "regex",
}


def walk(schema, path="#"):
    """Yields (path, subschema) for every object schema below `schema`."""
    if isinstance(schema, dict):
        yield path, schema
        for key, value in schema.items():
            if key in ("enum", "const", "default", "examples", "required"):
                continue
            if key in ("properties", "$defs") and isinstance(value, dict):
                # Names, not keywords: a property may be called `format`.
                for name, sub in value.items():
                    yield from walk(sub, f"{path}/{key}/{name}")
                continue
            yield from walk(value, f"{path}/{key}")
    elif isinstance(schema, list):
        for i, item in enumerate(schema):
            yield from walk(item, f"{path}/{i}")


def is_integer(schema: dict) -> bool:
    kind = schema.get("type")
    return kind == "integer" or (isinstance(kind, list) and "integer" in kind)


async def tool_schemas(workspace):
    async with stdio_session(workspace) as session:
        tools = (await session.list_tools()).tools
    assert sorted(t.name for t in tools) == ["affected_tests", "apply_patch", "call_graph", "changes", "edit_symbol", "explain_diagnostic", "explore", "find_definition", "find_implementations", "find_references", "format_source", "impact", "import_graph", "list_imports", "lookup_symbol", "outline", "pack_context", "parse_source", "read_file", "read_symbol", "release_context", "rename_symbol", "repo_map", "search", "skeleton", "typecheck", "workspace_bootstrap", "workspace_status"]
    for tool in tools:
        yield tool.name, "inputSchema", tool.input_schema
        yield tool.name, "outputSchema", tool.output_schema


async def test_every_format_is_standard(workspace):
    bad = []
    async for tool, kind, schema in tool_schemas(workspace):
        for path, sub in walk(schema):
            if "format" in sub and sub["format"] not in STANDARD_FORMATS:
                bad.append(f"{tool} {kind} {path}: {sub['format']}")
    assert bad == []


async def test_every_integer_is_bounded_below(workspace):
    """Every integer in these schemas is a count, line, column or offset: never negative."""
    unbounded = []
    async for tool, kind, schema in tool_schemas(workspace):
        for path, sub in walk(schema):
            if is_integer(sub) and not (isinstance(sub.get("minimum"), int) and sub["minimum"] >= 0):
                unbounded.append(f"{tool} {kind} {path}")
    assert unbounded == []


async def test_impact_takes_an_exact_flag(workspace):
    async with stdio_session(workspace) as session:
        tools = {t.name: t.input_schema for t in (await session.list_tools()).tools}
    for tool in ("impact", "affected_tests"):
        assert tools[tool]["properties"]["exact"]["type"] == "boolean"
        assert "exact" not in tools[tool].get("required", [])


async def test_argument_ranges_are_exact(workspace):
    async with stdio_session(workspace) as session:
        tools = {t.name: t.input_schema for t in (await session.list_tools()).tools}
    ranges = {
        (tool, name): (prop["type"], prop.get("minimum"), prop.get("maximum"), "format" in prop)
        for tool, schema in tools.items()
        for name, prop in schema.get("properties", {}).items()
        if is_integer(prop)
    }
    assert ranges == {
        ("affected_tests", "depth"): ("integer", 0, 100, False),
        ("affected_tests", "limit"): ("integer", 1, 10000, False),
        ("affected_tests", "max_tokens"): ("integer", 1, 4294967295, False),
        ("impact", "depth"): ("integer", 0, 100, False),
        ("impact", "limit"): ("integer", 1, 10000, False),
        ("impact", "max_tokens"): ("integer", 1, 4294967295, False),
        ("call_graph", "line"): ("integer", 1, 4294967295, False),
        ("call_graph", "column"): ("integer", 1, 4294967295, False),
        ("call_graph", "depth"): ("integer", 1, 10, False),
        ("call_graph", "max_nodes"): ("integer", 1, 1000, False),
        ("call_graph", "max_tokens"): ("integer", 1, 4294967295, False),
        ("changes", "depth"): ("integer", 0, 100, False),
        ("changes", "limit"): ("integer", 1, 10000, False),
        ("changes", "max_tokens"): ("integer", 1, 4294967295, False),
        ("explore", "max_tokens"): ("integer", 1, 4294967295, False),
        ("parse_source", "max_depth"): ("integer", 1, 1000, False),
        ("parse_source", "max_nodes"): ("integer", 1, 5000, False),
        ("outline", "limit"): ("integer", 1, 5000, False),
        ("outline", "offset"): ("integer", 0, 4294967295, False),
        ("lookup_symbol", "limit"): ("integer", 1, 200, False),
        ("find_definition", "line"): ("integer", 1, 4294967295, False),
        ("find_definition", "column"): ("integer", 1, 4294967295, False),
        ("find_implementations", "line"): ("integer", 1, 4294967295, False),
        ("find_implementations", "column"): ("integer", 1, 4294967295, False),
        ("find_implementations", "limit"): ("integer", 1, 1000, False),
        ("find_references", "line"): ("integer", 1, 4294967295, False),
        ("find_references", "column"): ("integer", 1, 4294967295, False),
        ("find_references", "limit"): ("integer", 1, 1000, False),
        ("rename_symbol", "line"): ("integer", 1, 4294967295, False),
        ("rename_symbol", "column"): ("integer", 1, 4294967295, False),
        ("import_graph", "depth"): ("integer", 0, 20, False),
        ("import_graph", "limit"): ("integer", 1, 2000, False),
        ("typecheck", "limit"): ("integer", 1, 5000, False),
        ("format_source", "tab_size"): ("integer", 1, 16, False),
        ("read_symbol", "context_lines"): ("integer", 0, 100, False),
        ("read_symbol", "max_tokens"): ("integer", 1, 4294967295, False),
        ("read_symbol", "run_max_tokens"): ("integer", 1, 4294967295, False),
        ("read_file", "offset"): ("integer", 1, 4294967295, False),
        ("read_file", "limit"): ("integer", 1, 100000, False),
        ("read_file", "max_tokens"): ("integer", 1, 4294967295, False),
        ("workspace_bootstrap", "max_tokens"): ("integer", 1, 4294967295, False),
        ("pack_context", "max_tokens"): ("integer", 1, 1000000, False),
        ("skeleton", "offset"): ("integer", 0, 4294967295, False),
        ("skeleton", "line"): ("integer", 1, 4294967295, False),
        ("skeleton", "max_tokens"): ("integer", 1, 4294967295, False),
        ("repo_map", "max_tokens"): ("integer", 1, 4294967295, False),
        ("search", "context"): ("integer", 0, 20, False),
        ("search", "limit"): ("integer", 1, 1000, False),
        ("search", "offset"): ("integer", 0, 4294967295, False),
        ("search", "max_tokens"): ("integer", 1, 4294967295, False),
        ("apply_patch", "fuzz"): ("integer", 0, 3, False),
        ("edit_symbol", "line"): ("integer", 1, 4294967295, False),
    }
    assert all(schema["additionalProperties"] is False for schema in tools.values())


async def test_language_and_kind_enums_come_from_the_registry(workspace):
    """Every language `sextant languages` lists can be named in a schema, and only those."""
    import json
    import subprocess

    from conftest import SEXTANT

    listed = subprocess.run([SEXTANT, "languages", "--json"], capture_output=True, text=True, check=True)
    ids = [language["id"] for language in json.loads(listed.stdout)]
    async with stdio_session(workspace) as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    for tool in ("lookup_symbol", "parse_source"):
        assert tools[tool].input_schema["$defs"]["LanguageId"] == {"type": "string", "enum": ids}
    kinds = tools["lookup_symbol"].input_schema["$defs"]["SymbolKind"]["enum"]
    assert tools["outline"].output_schema["$defs"]["SymbolKind"]["enum"] == kinds
    assert tools["lookup_symbol"].output_schema["$defs"]["SymbolKind"]["enum"] == kinds
    positions = {"type": "string", "enum": ["lines", "full"]}
    for tool in ("find_definition", "find_references", "list_imports", "lookup_symbol", "outline", "parse_source"):
        assert tools[tool].input_schema["$defs"]["Positions"] == positions
