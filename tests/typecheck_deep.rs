//! `sextant check --deep` as a user runs it: the binary on temporary projects with the real
//! checkers (tsc from the repository's npm tools, `go`, `cargo`, mypy from the test venv),
//! and fake checkers (`[typecheck.programs]` in sextant.toml) that hang, print garbage or
//! report files outside the root. Every expected line is exact: the tool's code, the path
//! and the 1-based line and character column sextant converts the tool's position to.

mod support;

use std::{
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    process::{Command, Output},
    time::{Duration, Instant},
};

use support::{stdout, write_file};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The binary in `root` with the test's own cache directory and `path_front` put before
/// PATH (where a test wants a checker found).
fn deep(root: &Path, cache: &Path, args: &[&str], path_front: Option<&Path>) -> Output {
    let mut path = std::env::var_os("PATH").unwrap_or_default();
    if let Some(front) = path_front {
        let mut joined = front.as_os_str().to_owned();
        joined.push(":");
        joined.push(&path);
        path = joined;
    }
    Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .arg("--cache-dir")
        .arg(cache)
        .args(args)
        .env("PATH", path)
        .output()
        .expect("sextant runs")
}

/// `text` with each status line's duration (` in 12 ms`) as ` in N ms`.
fn without_durations(text: &str) -> String {
    let durations = regex::Regex::new(r" in \d+ ms").unwrap();
    durations.replace_all(text, " in N ms").into_owned()
}

fn executable(root: &Path, rel: &str, script: &str) {
    write_file(root, rel, script);
    let path = root.join(rel);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn tsc() -> Option<PathBuf> {
    let tsc = repo().join("target/npm-tools/node_modules/.bin/tsc");
    if tsc.exists() {
        return Some(tsc);
    }
    eprintln!(
        "skipped: no tsc at {} (scripts/test installs it)",
        tsc.display()
    );
    None
}

fn on_path(program: &str) -> bool {
    let found = Command::new(program).arg("version").output().is_ok();
    if !found {
        eprintln!("skipped: {program} is not installed");
    }
    found
}

/// A TypeScript project whose error sits after an emoji (2 UTF-16 units, 1 character), with
/// tsc found in its own `node_modules/.bin`.
fn typescript_project(tsc: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "tsconfig.json",
        r#"{"compilerOptions": {"strict": true, "incremental": true}}"#,
    );
    write_file(
        dir.path(),
        "src/a.ts",
        "const s = \"😀\"; const n: number = \"x\";\nexport { s, n };\n",
    );
    std::fs::create_dir_all(dir.path().join("node_modules/.bin")).unwrap();
    std::os::unix::fs::symlink(tsc, dir.path().join("node_modules/.bin/tsc")).unwrap();
    dir
}

#[test]
fn tsc_errors_come_with_their_code_and_utf16_columns_converted_then_from_the_memo() {
    let Some(tsc) = tsc() else { return };
    let dir = typescript_project(&tsc);
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "src/a.ts:1:22: tsc:TS2322 Type 'string' is not assignable to type 'number'.",
        "{text}"
    );
    assert_eq!(
        lines[1],
        "Found 1 diagnostic in 1 of 1 file (tsc:TS2322 1)."
    );
    assert!(
        lines[2].starts_with("checker tsc (project .): ran in "),
        "{text}"
    );
    assert!(lines[2].ends_with(" ms, 1 diagnostic"), "{text}");
    assert_eq!(lines.len(), 3);
    assert_eq!(out.status.code(), Some(1));
    // The project's `incremental` build info went to sextant's directory, not beside it.
    assert!(!dir.path().join("tsconfig.tsbuildinfo").exists());

    // Unchanged: answered from the memo, the same diagnostic.
    let again = deep(
        dir.path(),
        cache.path(),
        &["check", "--deep", "--format", "json"],
        None,
    );
    let json: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(json["checkers"][0]["tool"], "tsc");
    assert_eq!(json["checkers"][0]["status"], "cached");
    assert_eq!(json["checkers"][0]["diagnostics"], 1);
    assert_eq!(json["diagnostics"][0]["code"], "tsc:TS2322");
    assert_eq!(json["diagnostics"][0]["span"]["start"]["column"], 22);
    assert_eq!(json["diagnostics"][0]["span"]["byte_start"], 24);
    assert_eq!(json["summary"]["by_code"]["tsc:TS2322"], 1);

    // Edited: run again, the new position found.
    write_file(dir.path(), "src/a.ts", "export const n: number = \"x\";\n");
    let edited = stdout(&deep(dir.path(), cache.path(), &["check", "--deep"], None));
    assert!(edited.starts_with("src/a.ts:1:14: tsc:TS2322 "), "{edited}");
    assert!(
        edited.contains("checker tsc (project .): ran in "),
        "{edited}"
    );
}

#[test]
fn go_vet_findings_and_type_errors_with_byte_columns_converted() {
    if !on_path("go") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "go.mod", "module example.com/m\n\ngo 1.19\n");
    write_file(
        dir.path(),
        "main.go",
        "package main\n\nimport \"fmt\"\n\nfunc main() {\n\ts := \"é\"; fmt.Printf(\"%d\\n\", s)\n}\n",
    );
    write_file(
        dir.path(),
        "sub/s.go",
        "package sub\n\nfunc F() int { return \"x\" }\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        [
            // vet's column 13 (the call) is a byte column; `é` is two bytes: character 12.
            "main.go:6:12: go:vet/printf fmt.Printf format %d has arg s of wrong type string",
            "sub/s.go:3:23: go:build cannot use \"x\" (untyped string constant) as int value in return statement",
            "Found 2 diagnostics in 2 of 2 files (go:build 1, go:vet/printf 1).",
        ],
        "{text}"
    );
    assert!(
        lines[3].starts_with("checker go-vet (project .): ran in "),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn cargo_check_errors_once_each_with_a_private_target_dir() {
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "Cargo.toml",
        "[package]\nname = \"deep\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    );
    write_file(
        dir.path(),
        "src/main.rs",
        "fn main() {\n    let s = \"é\"; let n: i32 = \"x\";\n    println!(\"{s}{n}\");\n}\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    // rustc's byte offset 32 is character 31 of line 2 (`é` is two bytes); reported once
    // although --all-targets compiles the file twice.
    assert_eq!(
        lines[0], "src/main.rs:2:31: rustc:E0308 mismatched types",
        "{text}"
    );
    assert_eq!(
        lines[1],
        "Found 1 diagnostic in 1 of 1 file (rustc:E0308 1)."
    );
    assert!(
        lines[2].starts_with("checker cargo (project .): ran in "),
        "{text}"
    );
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        !dir.path().join("target").exists(),
        "cargo wrote the user's target/"
    );
}

#[test]
fn mypy_errors_found_on_path() {
    let venv_bin = repo().join("target/test-venv/bin");
    if !venv_bin.join("mypy").exists() {
        eprintln!(
            "skipped: no mypy in {} (scripts/test installs it)",
            venv_bin.display()
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Configured, so that mypy runs though pyright or ty is installed (the venv has ty).
    write_file(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"p\"\n\n[tool.mypy]\n",
    );
    write_file(
        dir.path(),
        "app/a.py",
        "def f(x: int) -> int:\n    return x\n\n\nf(\"a\")\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let out = deep(
        dir.path(),
        cache.path(),
        &["check", "--deep"],
        Some(&venv_bin),
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "app/a.py:5:3: mypy:arg-type Argument 1 to \"f\" has incompatible type \"str\"; expected \"int\"",
        "{text}"
    );
    assert!(
        lines[2].starts_with("checker mypy (project .): ran in "),
        "{text}"
    );
    assert!(
        !dir.path().join(".mypy_cache").exists(),
        "mypy's cache went to the project"
    );
}

fn pyright() -> Option<PathBuf> {
    let pyright = repo().join("target/npm-tools/node_modules/.bin/pyright");
    if pyright.exists() {
        return Some(pyright);
    }
    eprintln!(
        "skipped: no pyright at {} (scripts/test installs it)",
        pyright.display()
    );
    None
}

/// A Python project with a missing attribute after an emoji (2 UTF-16 units, pyright's
/// unit, and 1 character), pyright in its `node_modules/.bin`, and `pyproject` as its
/// pyproject.toml.
fn python_project(pyright: &Path, pyproject: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "pyproject.toml", pyproject);
    write_file(
        dir.path(),
        "app/a.py",
        "class A:\n    x: int = 1\n\n\ndef f(x: int) -> int:\n    return x\n\n\ns = \"😀\"; A().y\nf(\"a\")\n",
    );
    std::fs::create_dir_all(dir.path().join("node_modules/.bin")).unwrap();
    std::os::unix::fs::symlink(pyright, dir.path().join("node_modules/.bin/pyright")).unwrap();
    dir
}

#[test]
fn pyright_errors_with_rules_and_utf16_columns_before_mypy() {
    let Some(pyright) = pyright() else { return };
    let venv_bin = repo().join("target/test-venv/bin");
    let dir = python_project(&pyright, "[project]\nname = \"p\"\n");
    let cache = tempfile::tempdir().unwrap();
    // mypy is on PATH too: the two are alternatives, and pyright comes first.
    let out = deep(
        dir.path(),
        cache.path(),
        &["check", "--deep"],
        Some(&venv_bin),
    );
    let text = without_durations(&stdout(&out));
    assert_eq!(
        text,
        "app/a.py:9:14: pyright:reportAttributeAccessIssue Cannot access attribute \"y\" for class \"A\" /   Attribute \"y\" is unknown\n\
         app/a.py:10:3: pyright:reportArgumentType Argument of type \"Literal['a']\" cannot be assigned to parameter \"x\" of type \"int\" in function \"f\" /   \"Literal['a']\" is not assignable to \"int\"\n\
         Found 2 diagnostics in 1 of 1 file (pyright:reportArgumentType 1, pyright:reportAttributeAccessIssue 1).\n\
         checker pyright (project .): ran in N ms, 2 diagnostics\n",
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_project_configuring_mypy_gets_mypy_though_pyright_is_there() {
    let Some(pyright) = pyright() else { return };
    let venv_bin = repo().join("target/test-venv/bin");
    if !venv_bin.join("mypy").exists() {
        eprintln!("skipped: no mypy in {}", venv_bin.display());
        return;
    }
    let dir = python_project(
        &pyright,
        "[project]\nname = \"p\"\n\n[tool.mypy]\nstrict = false\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let out = deep(
        dir.path(),
        cache.path(),
        &["check", "--deep"],
        Some(&venv_bin),
    );
    let text = without_durations(&stdout(&out));
    let runs: Vec<&str> = text.lines().filter(|l| l.starts_with("checker ")).collect();
    assert_eq!(
        runs,
        ["checker mypy (project .): ran in N ms, 2 diagnostics"],
        "{text}"
    );
    assert!(text.starts_with("app/a.py:9:"), "{text}");
    assert!(text.contains(" mypy:attr-defined "), "{text}");
}

/// ty from the test venv, or from PATH.
fn ty() -> Option<PathBuf> {
    let venv = repo().join("target/test-venv/bin/ty");
    if venv.exists() {
        return Some(venv);
    }
    let found = std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|p| p.join("ty"))
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!("skipped: no ty in the test venv or on PATH (scripts/test installs it)");
    }
    found
}

#[test]
fn ty_errors_with_rules_and_character_columns_when_the_project_configures_it() {
    let Some(ty) = ty() else { return };
    let dir = tempfile::tempdir().unwrap();
    write_file(
        dir.path(),
        "pyproject.toml",
        "[project]\nname = \"p\"\n\n[tool.ty]\n",
    );
    write_file(
        dir.path(),
        "app/a.py",
        "class A:\n    x: int = 1\n\n\ns = \"😀\"; A().y\n",
    );
    std::fs::create_dir_all(dir.path().join(".venv/bin")).unwrap();
    std::os::unix::fs::symlink(&ty, dir.path().join(".venv/bin/ty")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let text = without_durations(&stdout(&out));
    assert_eq!(
        text,
        "app/a.py:5:10: ty:missing-attribute Object of type `A` has no attribute `y`\n\
         Found 1 diagnostic in 1 of 1 file (ty:missing-attribute 1).\n\
         checker ty (project .): ran in N ms, 1 diagnostic\n",
    );
}

#[test]
fn when_no_python_checker_is_installed_each_is_reported_missing() {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "pyproject.toml", "[project]\nname = \"p\"\n");
    write_file(dir.path(), "a.py", "x = 1\n");
    let empty = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(dir.path())
        .args(["--root", ".", "--cache-dir"])
        .arg(cache.path())
        .args(["check", "--deep"])
        .env("PATH", empty.path())
        .output()
        .unwrap();
    let text = without_durations(&stdout(&out));
    let runs: Vec<&str> = text.lines().filter(|l| l.starts_with("checker ")).collect();
    assert_eq!(
        runs,
        [
            "checker pyright (project .): missing in N ms, 0 diagnostics; pyright is in neither node_modules/.bin (from the project up to the root) nor PATH",
            "checker ty (project .): missing in N ms, 0 diagnostics; ty is in neither .venv/bin, venv/bin (from the project up to the root) nor PATH",
            "checker mypy (project .): missing in N ms, 0 diagnostics; mypy is in neither .venv/bin, venv/bin (from the project up to the root) nor PATH",
        ],
        "{text}"
    );
}

/// A workspace with one tsconfig project whose tsc is `script`, and `extra` in sextant.toml.
fn fake_tsc(script: &str, extra: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_file(dir.path(), "tsconfig.json", "{}");
    write_file(dir.path(), "src/a.ts", "export const n = 1;\n");
    executable(dir.path(), "tools/fake-tsc", script);
    write_file(
        dir.path(),
        "sextant.toml",
        format!("[typecheck]\n{extra}\n[typecheck.programs]\ntsc = \"tools/fake-tsc\"\n"),
    );
    dir
}

#[test]
fn nothing_runs_unless_asked_and_deep_true_in_sextant_toml_asks() {
    let script = "#!/bin/sh\ntouch \"$(dirname \"$0\")/ran\"\nexit 0\n";
    let dir = fake_tsc(script, "");
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check"], None);
    assert_eq!(stdout(&out), "All checks passed (1 file checked).\n");
    assert!(!dir.path().join("tools/ran").exists());

    let dir = fake_tsc(script, "deep = true");
    let out = deep(dir.path(), cache.path(), &["check"], None);
    let text = stdout(&out);
    assert!(dir.path().join("tools/ran").exists());
    assert!(text.contains("checker tsc (project .): ran in "), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}");
}

#[test]
fn a_missing_checker_is_reported_not_an_error() {
    let dir = fake_tsc("", "");
    std::fs::remove_file(dir.path().join("tools/fake-tsc")).unwrap();
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    assert_eq!(
        without_durations(&stdout(&out)),
        "All checks passed (1 file checked).\nchecker tsc (project .): missing in N ms, 0 diagnostics; \
         tools/fake-tsc (from [typecheck.programs]) is not an executable file\n"
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_hanging_checker_is_killed_at_its_time_limit_with_what_it_started() {
    // The checker and a child of it both sleep; each writes its process id first.
    let script = "#!/bin/sh\nd=\"$(dirname \"$0\")\"\nsleep 300 &\necho $! > \"$d/child.pid\"\necho $$ > \"$d/self.pid\"\nwait\n";
    let dir = fake_tsc(script, "timeout_ms = 1000");
    let cache = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let took = started.elapsed();
    let text = stdout(&out);
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(
        text.contains("checker tsc (project .): timed_out in "),
        "{text}"
    );
    assert!(
        text.contains("still running after 1000 ms; its processes were killed"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
    for pid_file in ["tools/child.pid", "tools/self.pid"] {
        let pid = std::fs::read_to_string(dir.path().join(pid_file)).unwrap();
        let proc = PathBuf::from(format!("/proc/{}", pid.trim()));
        // Reaped or a zombie about to be: never still sleeping.
        let state = std::fs::read_to_string(proc.join("stat")).unwrap_or_default();
        assert!(
            state.is_empty() || state.contains(") Z "),
            "{pid_file}: {state}"
        );
    }
}

#[test]
fn garbage_output_is_a_failed_run_with_what_it_printed() {
    let script = "#!/bin/sh\necho 'Segmentation fault (core dumped) ###'\nexit 2\n";
    let dir = fake_tsc(script, "");
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let text = stdout(&out);
    let status = text.lines().last().unwrap();
    assert!(
        status.starts_with("checker tsc (project .): failed in "),
        "{text}"
    );
    assert!(
        status
            .ends_with(" ms, 0 diagnostics; exit status: 2: Segmentation fault (core dumped) ###"),
        "{text}"
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn paths_outside_the_root_are_dropped_and_counted() {
    let script = "#!/bin/sh\n\
        echo '../elsewhere/x.ts(1,1): error TS2322: outside by a relative path'\n\
        echo '/etc/x.ts(3,4): error TS2322: outside by an absolute path'\n\
        echo 'src/a.ts(1,14): error TS2322: inside'\n\
        exit 2\n";
    let dir = fake_tsc(script, "");
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "src/a.ts:1:14: tsc:TS2322 inside", "{text}");
    assert_eq!(
        lines[1],
        "Found 1 diagnostic in 1 of 1 file (tsc:TS2322 1)."
    );
    assert!(
        lines[2].ends_with(" ms, 1 diagnostic, 2 outside the workspace dropped"),
        "{text}"
    );
    assert_eq!(lines.len(), 3);
}

#[test]
fn a_checker_finding_what_sextant_found_is_merged_into_one_diagnostic() {
    let Some(tsc) = tsc() else { return };
    let dir = typescript_project(&tsc);
    write_file(
        dir.path(),
        "src/a.ts",
        "export const y = x;\nexport const n: number = \"x\";\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let out = deep(dir.path(), cache.path(), &["check", "--deep"], None);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "src/a.ts:1:18: SX005 (also tsc:TS2304) undefined name 'x'",
            "src/a.ts:2:14: tsc:TS2322 Type 'string' is not assignable to type 'number'.",
            "Found 2 diagnostics in 1 of 1 file (SX005 1, tsc:TS2322 1).",
        ],
        "{text}"
    );
    assert!(lines[3].ends_with(" ms, 2 diagnostics"), "{text}");
}

#[test]
fn select_and_ignore_take_tool_codes_and_prefixes() {
    let Some(tsc) = tsc() else { return };
    let dir = typescript_project(&tsc);
    write_file(
        dir.path(),
        "src/a.ts",
        "import { nothing } from \"./nowhere\";\nexport const n: number = \"x\";\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let codes = |args: &[&str]| -> Vec<String> {
        let out = deep(dir.path(), cache.path(), args, None);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut codes: Vec<String> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{}{:?}", d["code"].as_str().unwrap(), d.get("also")))
            .collect();
        codes.sort();
        codes
    };
    let all = codes(&["check", "--deep", "--json"]);
    assert_eq!(
        all,
        [
            "SX003Some(Array [String(\"tsc:TS2307\")])",
            "SX006None",
            "tsc:TS2322None"
        ],
        "{all:?}"
    );
    assert_eq!(
        codes(&["check", "--deep", "--json", "--select", "tsc:"]),
        ["tsc:TS2307None", "tsc:TS2322None"]
    );
    assert_eq!(
        codes(&["check", "--deep", "--json", "--ignore", "tsc:TS2322,SX006"]),
        ["SX003Some(Array [String(\"tsc:TS2307\")])"]
    );
}
