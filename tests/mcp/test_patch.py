"""`apply_patch` through the MCP Python SDK: the three patch forms as a dry run (diff, file
summaries, new diagnostics) and applied (the files and the index follow), refusals that
write nothing (a hunk that does not apply, a path leaving the root, new errors under
`check: refuse`, a file changed since the reviewed dry run), `operation_id` retries, `expected_sha256`, and
`--read-only` hiding `apply`."""

import asyncio
import hashlib
import os

import pytest

from conftest import stdio_session, tool_error, wait_until_indexed, write

pytestmark = pytest.mark.anyio

GEO = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"
MAIN = "from app.geo import area\n\nprint(area(1, 2))\n"

GIT_DIFF = """diff --git a/app/geo.py b/app/geo.py
index 1111111..2222222 100644
--- a/app/geo.py
+++ b/app/geo.py
@@ -1,5 +1,5 @@
-def area(w, h):
-    return w * h
+def area(width, height):
+    return width * height
 
 
 def perimeter(w, h):
diff --git a/app/main.py b/app/main.py
--- a/app/main.py
+++ b/app/main.py
@@ -1,3 +1,3 @@
 from app.geo import area
 
-print(area(1, 2))
+print(area(3, 4))
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "ws"
    write(root, "app/__init__.py", "")
    write(root, "app/geo.py", GEO)
    write(root, "app/main.py", MAIN)
    return root


async def call(session, args):
    result = await session.call_tool("apply_patch", args)
    return result


async def test_a_dry_run_shows_the_diff_and_summaries_and_writes_nothing(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await call(session, {"patch": GIT_DIFF})
        assert not result.is_error, result
        answer = result.structured_content
        assert answer["applied"] is False
        assert len(answer["change_id"]) == 32
        assert answer["files"] == [
            {"path": "app/geo.py", "status": "modified", "lines_added": 2, "lines_removed": 2},
            {"path": "app/main.py", "status": "modified", "lines_added": 1, "lines_removed": 1},
        ]
        assert answer["new_diagnostics"] == []
        assert answer["diff"] == (
            "diff --git a/app/geo.py b/app/geo.py\n--- a/app/geo.py\n+++ b/app/geo.py\n"
            "@@ -1,5 +1,5 @@\n-def area(w, h):\n-    return w * h\n+def area(width, height):\n"
            "+    return width * height\n \n \n def perimeter(w, h):\n"
            "diff --git a/app/main.py b/app/main.py\n--- a/app/main.py\n+++ b/app/main.py\n"
            "@@ -1,3 +1,3 @@\n from app.geo import area\n \n-print(area(1, 2))\n+print(area(3, 4))\n"
        )
        assert (project / "app/geo.py").read_text() == GEO
        assert (project / "app/main.py").read_text() == MAIN


async def test_apply_writes_every_file_and_the_index_follows(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await call(session, {"patch": GIT_DIFF, "apply": True})
        assert not result.is_error, result
        assert result.structured_content["applied"] is True
        assert (project / "app/geo.py").read_text() == GEO.replace(
            "def area(w, h):\n    return w * h", "def area(width, height):\n    return width * height"
        )
        assert (project / "app/main.py").read_text() == "from app.geo import area\n\nprint(area(3, 4))\n"
        # Read-your-writes: the next request sees the new parameter names.
        hover = await session.call_tool("read_symbol", {"targets": [{"symbol": "app.geo.area"}]})
        assert not hover.is_error, hover
        assert "def area(width, height):" in hover.content[0].text


async def test_the_envelope_and_search_replace_blocks_apply_the_same_way(project):
    envelope = (
        "*** Begin Patch\n*** Update File: app/main.py\n@@\n-print(area(1, 2))\n+print(area(5, 6))\n"
        "*** End Patch\n"
    )
    blocks = "app/geo.py\n<<<<<<< SEARCH\n    return 2 * (w + h)\n=======\n    return (w + h) * 2\n>>>>>>> REPLACE\n"
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        first = await call(session, {"patch": envelope, "apply": True})
        assert not first.is_error, first
        assert (project / "app/main.py").read_text() == "from app.geo import area\n\nprint(area(5, 6))\n"
        second = await call(session, {"patch": blocks, "apply": True})
        assert not second.is_error, second
        assert (project / "app/geo.py").read_text() == GEO.replace("2 * (w + h)", "(w + h) * 2")
        third = await call(session, {
            "replacements": [{"path": "app/geo.py", "old_text": "w * h", "new_text": "h * w"}],
            "apply": True,
        })
        assert not third.is_error, third
        assert "    return h * w\n" in (project / "app/geo.py").read_text()


async def test_a_hunk_that_does_not_apply_writes_nothing(project):
    broken = GIT_DIFF.replace("-print(area(1, 2))", "-print(area(9, 9))")
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        error = tool_error(await call(session, {"patch": broken, "apply": True}))
        assert error["code"] == "PATCH_DOES_NOT_APPLY"
        assert error["message"].startswith("app/main.py: ")
        assert (project / "app/geo.py").read_text() == GEO
        assert (project / "app/main.py").read_text() == MAIN


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", "app/../../x.py"])
async def test_a_path_outside_the_root_is_refused(project, path):
    patch = f"*** Begin Patch\n*** Add File: {path}\n+x = 1\n*** End Patch\n"
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        error = tool_error(await call(session, {"patch": patch, "apply": True}))
        assert error["code"] == "PATCH_INVALID", error
    assert not (project.parent / "outside.py").exists()


async def test_new_errors_are_reported_or_refused_as_asked(project):
    # `area` is still imported and called, but no longer defined: an undefined name.
    breaking = "app/geo.py\n<<<<<<< SEARCH\ndef area(w, h):\n=======\ndef surface(w, h):\n>>>>>>> REPLACE\n"
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        dry = (await call(session, {"patch": breaking})).structured_content
        assert dry["new_diagnostics"] == []  # geo.py itself has no new diagnostic
        main_breaking = (
            "app/main.py\n<<<<<<< SEARCH\nprint(area(1, 2))\n=======\nprint(aera(1, 2))\n>>>>>>> REPLACE\n"
        )
        dry = (await call(session, {"patch": main_breaking})).structured_content
        # The import left unused, and the misspelt name.
        assert [(d["path"], d["line"], d["code"], d["severity"]) for d in dry["new_diagnostics"]] == [
            ("app/main.py", 1, "SX006", "warning"),
            ("app/main.py", 3, "SX005", "error"),
        ]
        refused = await call(session, {"patch": main_breaking, "apply": True, "check": "refuse"})
        error = tool_error(refused)
        assert error["code"] == "NEW_DIAGNOSTICS"
        assert (project / "app/main.py").read_text() == MAIN
        written = await call(session, {"patch": main_breaking, "apply": True})
        assert not written.is_error, written
        assert written.structured_content["applied"] is True
        assert len(written.structured_content["new_diagnostics"]) == 2
        assert "aera" in (project / "app/main.py").read_text()


async def test_apply_writes_only_the_change_that_was_reviewed(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        reviewed = (await call(session, {"patch": GIT_DIFF})).structured_content
        # The file changes after the review, in a way the patch still applies to.
        write(project, "app/geo.py", GEO + "\n\ndef volume(w, h, d):\n    return w * h * d\n")
        error = tool_error(await call(session, {
            "patch": GIT_DIFF, "apply": True, "expected_change_id": reviewed["change_id"],
        }))
        assert error["code"] == "CONFLICT"
        assert (project / "app/main.py").read_text() == MAIN


async def test_expected_sha256_holds_the_patch_to_the_files_it_was_made_for(project):
    sha256 = lambda path: hashlib.sha256((project / path).read_bytes()).hexdigest()
    async with stdio_session(project, "--read-only") as session:
        await wait_until_indexed(session)
        # A precondition, not a write: a read-only server's dry run takes it too.
        good = {"app/geo.py": sha256("app/geo.py"), "app/main.py": sha256("app/main.py").upper()}
        result = await call(session, {"patch": GIT_DIFF, "expected_sha256": good})
        assert not result.is_error, result
        stale = dict(good, **{"app/main.py": hashlib.sha256(b"old").hexdigest()})
        error = tool_error(await call(session, {"patch": GIT_DIFF, "expected_sha256": stale}))
        assert error == {
            "code": "CONFLICT",
            "message": f"app/main.py: the file changed: its SHA-256 is {sha256('app/main.py')}, "
                       f"not the expected {stale['app/main.py']}",
        }
        error = tool_error(await call(session, {"patch": GIT_DIFF, "expected_sha256": {"app/geo.py": "12"}}))
        assert error["code"] == "INVALID_ARGUMENT"
        assert error["message"] == "expected_sha256 for app/geo.py: a SHA-256 is 64 hexadecimal digits"
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        write(project, "app/main.py", MAIN + "# changed\n")
        error = tool_error(await call(session, {"patch": GIT_DIFF, "apply": True, "expected_sha256": good}))
        assert error["code"] == "CONFLICT"
        assert (project / "app/geo.py").read_text() == GEO, "nothing was written"


async def test_a_retried_operation_answers_the_first_result(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        args = {"patch": GIT_DIFF, "apply": True, "operation_id": "op-1"}
        first = await call(session, args)
        assert not first.is_error, first
        assert "replayed" not in first.structured_content
        again = await call(session, args)
        assert not again.is_error, again
        replay = again.structured_content
        assert replay["replayed"] is True
        assert replay["change_id"] == first.structured_content["change_id"]
        assert (project / "app/main.py").read_text() == "from app.geo import area\n\nprint(area(3, 4))\n"
        other = await call(session, {"patch": GIT_DIFF.replace("area(3, 4)", "area(7, 8)"), "apply": True,
                                     "operation_id": "op-1"})
        assert tool_error(other) == {
            "code": "INVALID_ARGUMENT",
            "message": 'operation_id "op-1" was used for another request',
        }
    # The record outlives the server: a retry sent to the next one (after a crash, say)
    # answers the first result too, even though the files changed meanwhile.
    write(project, "app/main.py", MAIN)
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        again = await call(session, args)
        assert not again.is_error, again
        assert again.structured_content == dict(first.structured_content, replayed=True)
        assert (project / "app/main.py").read_text() == MAIN


async def test_a_retry_sent_while_the_first_call_runs_waits_and_replays_it(project):
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        args = {"patch": GIT_DIFF, "apply": True, "operation_id": "op-twice"}
        first, second = await asyncio.gather(call(session, args), call(session, args))
        assert not first.is_error and not second.is_error, (first, second)
        replayed = sorted(bool(r.structured_content.get("replayed")) for r in (first, second))
        assert replayed == [False, True]
        assert first.structured_content["change_id"] == second.structured_content["change_id"]
        assert (project / "app/main.py").read_text() == "from app.geo import area\n\nprint(area(3, 4))\n"


async def test_a_read_only_server_offers_no_apply(project):
    async with stdio_session(project, "--read-only") as session:
        await wait_until_indexed(session)
        tools = {t.name: t for t in (await session.list_tools()).tools}
        schema = tools["apply_patch"].input_schema["properties"]
        assert "apply" not in schema and "operation_id" not in schema and "break_hard_links" not in schema
        assert tools["apply_patch"].annotations.read_only_hint is True
        error = tool_error(await call(session, {"patch": GIT_DIFF, "apply": True}))
        assert error["code"] == "INVALID_ARGUMENT"
        assert (project / "app/main.py").read_text() == MAIN


TREE_DIFF = """diff --git a/tools/run.sh b/tools/run.sh
new file mode 100755
--- /dev/null
+++ b/tools/run.sh
@@ -0,0 +1,2 @@
+#!/bin/sh
+python -m app.main
diff --git a/app/old.py b/app/old.py
deleted file mode 100644
--- a/app/old.py
+++ /dev/null
@@ -1 +0,0 @@
-LEGACY = True
diff --git a/app/geo.py b/app/shapes.py
similarity index 80%
rename from app/geo.py
rename to app/shapes.py
--- a/app/geo.py
+++ b/app/shapes.py
@@ -1,2 +1,2 @@
-def area(w, h):
+def area(w, h=1):
     return w * h
diff --git a/app/cli.py b/app/cli.py
old mode 100644
new mode 100755
--- a/app/cli.py
+++ b/app/cli.py
@@ -1 +1,2 @@
+#!/usr/bin/env python3
 print("hi")
"""


async def test_created_deleted_renamed_and_mode_changed_files_are_written_together(project):
    write(project, "app/old.py", "LEGACY = True\n")
    write(project, "app/cli.py", 'print("hi")\n')
    (project / "app/cli.py").chmod(0o644)
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        dry = (await call(session, {"patch": TREE_DIFF})).structured_content
        assert [(f["path"], f["status"], f.get("new_path"), f.get("executable")) for f in dry["files"]] == [
            ("tools/run.sh", "added", None, True),
            ("app/old.py", "deleted", None, None),
            ("app/geo.py", "renamed", "app/shapes.py", None),
            ("app/cli.py", "modified", None, True),
        ]
        assert (project / "app/geo.py").exists() and not (project / "tools").exists()
        result = await call(session, {"patch": TREE_DIFF, "apply": True})
        assert not result.is_error, result
        assert (project / "tools/run.sh").read_text() == "#!/bin/sh\npython -m app.main\n"
        assert (project / "tools/run.sh").stat().st_mode & 0o111 != 0
        assert not (project / "app/old.py").exists()
        assert not (project / "app/geo.py").exists()
        assert (project / "app/shapes.py").read_text() == GEO.replace("def area(w, h):", "def area(w, h=1):")
        assert (project / "app/cli.py").read_text() == '#!/usr/bin/env python3\nprint("hi")\n'
        assert (project / "app/cli.py").stat().st_mode & 0o777 == 0o755
        # The index follows: the moved definition is found at its new path.
        found = await session.call_tool("find_definition", {"query": "area"})
        assert [(d["path"], d["line"]) for d in found.structured_content["definitions"]] == [("app/shapes.py", 1)]


async def test_a_file_that_cannot_be_created_stops_the_whole_patch(project):
    # The last file cannot be created (a file is where its directory should be): the
    # writer refuses the patch before it writes any of it.
    write(project, "blocked", "a file, not a directory\n")
    diff = GIT_DIFF + "diff --git a/blocked/x.py b/blocked/x.py\nnew file mode 100644\n--- /dev/null\n+++ b/blocked/x.py\n@@ -0,0 +1 @@\n+x = 1\n"
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        error = tool_error(await call(session, {"patch": diff, "apply": True}))
        assert (error["code"], error["message"]) == (
            "WRITE_REFUSED", "blocked/x.py: Not a directory (os error 20); nothing was written"
        )
        assert (project / "app/geo.py").read_text() == GEO
        assert (project / "app/main.py").read_text() == MAIN


async def test_a_hunk_found_away_from_its_line_is_applied_and_reported(project):
    # Lines were added above the call since the diff was made: its hunk is found 3 lines lower.
    write(project, "app/main.py", "import os\nimport sys\n\n" + MAIN)
    diff = "--- a/app/main.py\n+++ b/app/main.py\n@@ -1,3 +1,3 @@\n from app.geo import area\n \n-print(area(1, 2))\n+print(area(3, 4))\n"
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        result = await call(session, {"patch": diff, "apply": True})
        assert not result.is_error, result
        assert result.structured_content["files"] == [{
            "path": "app/main.py", "status": "modified", "lines_added": 1, "lines_removed": 1,
            "inexact_hunks": [{"hunk": 1, "line": 4, "patch_line": 1, "fuzz": 0, "whitespace_ignored": False}],
        }]
        assert (project / "app/main.py").read_text() == "import os\nimport sys\n\nfrom app.geo import area\n\nprint(area(3, 4))\n"


LATIN1 = b"# -*- coding: latin-1 -*-\r\nNAME = 'Jos\xe9'\r\nSIGN = '\x80'\r\n"


async def test_a_latin_1_file_is_patched_in_latin_1_and_keeps_its_other_bytes(project):
    (project / "app/legacy.py").write_bytes(LATIN1)
    patch = "--- a/app/legacy.py\n+++ b/app/legacy.py\n@@ -2 +2 @@\n-NAME = 'José'\n+NAME = 'André'\n"
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        preview = await call(session, {"patch": patch})
        assert not preview.is_error, preview
        assert preview.structured_content["files"] == [
            {"path": "app/legacy.py", "status": "modified", "encoding": "latin-1",
             "lines_added": 1, "lines_removed": 1},
        ]
        euro = await call(session, {"replacements": [
            {"path": "app/legacy.py", "old_text": "'\x80'", "new_text": "'€'"}], "apply": True})
        assert tool_error(euro) == {
            "code": "PATCH_DOES_NOT_APPLY",
            "message": "app/legacy.py: line 3 has '€' (U+20AC), which Latin-1, the file's encoding, "
                       "cannot hold",
        }
        applied = await call(session, {"patch": patch, "apply": True})
        assert not applied.is_error, applied
        assert (project / "app/legacy.py").read_bytes() == LATIN1.replace(b"Jos\xe9", b"Andr\xe9")


async def test_a_file_with_other_hard_links_is_written_only_when_asked(project):
    (project / "app/linked.py").write_text("X = 1\n")
    os.link(project / "app/linked.py", project / "app/other.py")
    replace = {"replacements": [{"path": "app/linked.py", "old_text": "X = 1", "new_text": "X = 2"}]}
    async with stdio_session(project) as session:
        await wait_until_indexed(session)
        error = tool_error(await call(session, dict(replace, apply=True)))
        assert error == {
            "code": "WRITE_REFUSED",
            "message": "app/linked.py: it has 2 hard links, and replacing it would leave the others with "
                       "the old text (allow that with `break_hard_links`); nothing was written",
        }
        assert (project / "app/linked.py").read_text() == "X = 1\n"
        dry = tool_error(await call(session, dict(replace, break_hard_links=True)))
        assert dry["code"] == "INVALID_ARGUMENT"
        written = await call(session, dict(replace, apply=True, break_hard_links=True))
        assert not written.is_error, written
        assert written.structured_content["hard_links_broken"] == ["app/linked.py"]
        assert (project / "app/linked.py").read_text() == "X = 2\n"
        assert (project / "app/other.py").read_text() == "X = 1\n"
