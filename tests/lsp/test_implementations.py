"""`textDocument/implementation` and the type hierarchy requests through a real client."""

from pathlib import Path

import pytest
from lsprotocol import types

from conftest import open_doc, start

FILES = {
    "api.ts": (
        "export interface Closable {\n    close(): void;\n}\n"
        "export interface Stream extends Closable {\n    read(): string;\n}\n"
    ),
    "impl.ts": (
        'import { Closable, Stream } from "./api";\n\n'
        "export class File implements Stream {\n    read(): string { return \"\"; }\n    close(): void {}\n}\n"
        "export class Socket implements Closable {\n    close(): void {}\n}\n"
        "class Local extends File {\n    close(): void {}\n}\n"
    ),
}


def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def doc(path: Path) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=path.as_uri())


def relative(root: Path, uri: str) -> str:
    return str(Path(uri.removeprefix("file://")).relative_to(root.resolve()))


def places(root: Path, items) -> list:
    return [(relative(root, i.uri), i.selection_range.start.line, i.selection_range.start.character, i.name) for i in items]


@pytest.mark.asyncio
async def test_implementations_of_an_interface_and_of_its_method(client, tmp_path):
    root = workspace(tmp_path)
    result = await start(client, root)
    assert result.capabilities.implementation_provider is True
    assert result.capabilities.type_hierarchy_provider is True
    api = root / "api.ts"
    open_doc(client, api, api.read_text(), "typescript")

    found = await client.text_document_implementation_async(
        types.ImplementationParams(text_document=doc(api), position=types.Position(line=0, character=20))
    )
    assert [(relative(root, l.uri), l.range.start.line, l.range.start.character) for l in found] == [
        ("api.ts", 3, 17),
        ("impl.ts", 6, 13),
        ("impl.ts", 2, 13),
        ("impl.ts", 9, 6),
    ]

    methods = await client.text_document_implementation_async(
        types.ImplementationParams(text_document=doc(api), position=types.Position(line=1, character=6))
    )
    assert [(relative(root, l.uri), l.range.start.line, l.range.start.character) for l in methods] == [
        ("impl.ts", 7, 4),
        ("impl.ts", 4, 4),
        ("impl.ts", 10, 4),
    ]

    nothing = await client.text_document_implementation_async(
        types.ImplementationParams(text_document=doc(api), position=types.Position(line=2, character=0))
    )
    assert nothing is None


@pytest.mark.asyncio
async def test_type_hierarchy_one_level_at_a_time(client, tmp_path):
    root = workspace(tmp_path)
    await start(client, root)
    impl = root / "impl.ts"
    open_doc(client, impl, impl.read_text(), "typescript")

    prepared = await client.text_document_prepare_type_hierarchy_async(
        types.TypeHierarchyPrepareParams(text_document=doc(impl), position=types.Position(line=2, character=15))
    )
    assert places(root, prepared) == [("impl.ts", 2, 13, "File")]
    assert prepared[0].kind == types.SymbolKind.Class

    supertypes = await client.type_hierarchy_supertypes_async(types.TypeHierarchySupertypesParams(item=prepared[0]))
    assert places(root, supertypes) == [("api.ts", 3, 17, "Stream")]
    assert supertypes[0].kind == types.SymbolKind.Interface
    up_again = await client.type_hierarchy_supertypes_async(types.TypeHierarchySupertypesParams(item=supertypes[0]))
    assert places(root, up_again) == [("api.ts", 0, 17, "Closable")]

    subtypes = await client.type_hierarchy_subtypes_async(types.TypeHierarchySubtypesParams(item=prepared[0]))
    assert places(root, subtypes) == [("impl.ts", 9, 6, "Local")]
    leaf = await client.type_hierarchy_subtypes_async(types.TypeHierarchySubtypesParams(item=subtypes[0]))
    assert list(leaf) == []

    # A method has no type hierarchy.
    method = await client.text_document_prepare_type_hierarchy_async(
        types.TypeHierarchyPrepareParams(text_document=doc(impl), position=types.Position(line=3, character=5))
    )
    assert method is None
