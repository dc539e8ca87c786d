"""`sextant lsp` driven by pytest-lsp (a real LSP client built on pygls)."""

import os
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

REPO = Path(__file__).resolve().parents[2]
SEXTANT = os.environ.get("SEXTANT_BIN", str(REPO / "target" / "debug" / "sextant"))


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[SEXTANT, "lsp"]))
async def client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def start(client: LanguageClient, root: Path, *, utf8: bool = False, progress: bool = False):
    capabilities = types.ClientCapabilities(
        general=types.GeneralClientCapabilities(
            position_encodings=[types.PositionEncodingKind.Utf8, types.PositionEncodingKind.Utf16]
            if utf8
            else [types.PositionEncodingKind.Utf16]
        ),
        window=types.WindowClientCapabilities(work_done_progress=progress),
    )
    return await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities,
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")],
        )
    )


def open_doc(client: LanguageClient, path: Path, text: str, language: str, version: int = 1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id=language, version=version, text=text)
        )
    )
