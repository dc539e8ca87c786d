//! `sextant format` with the external formatters a workspace's `sextant.toml` names, as a
//! user runs it: the binary on temporary workspaces. A formatter is code from the
//! workspace (run only with `--allow-external-formatter`); its output is judged before it
//! replaces anything, and checked for new diagnostics (`--diagnostics`); `--write` writes
//! all files or none; a formatter that hangs or leaves processes behind neither hangs
//! sextant nor outlives its deadline.

use std::{
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

/// Runs in `root`, stopped (and the test failed) if it takes longer than `limit`: the
/// failures these tests guard against are hangs.
fn sextant_within(root: &Path, args: &[&str], limit: Duration) -> (Output, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(root)
        .arg("--root")
        .arg(root)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sextant runs");
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "sextant {args:?} still running after {limit:?}; stdout: {}",
                String::from_utf8_lossy(&out.stdout)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (out, started.elapsed())
}

fn sextant(root: &Path, args: &[&str]) -> Output {
    sextant_within(root, args, Duration::from_secs(60)).0
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn write(root: &Path, rel: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, contents).unwrap();
    path
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

const OK_PY: &str = "def f():\n    return 1\n";
const ALSO_PY: &str = "x = [1,\n  2]\n";

fn python_workspace(formatter: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app/ok.py", OK_PY);
    write(dir.path(), "app/also.py", ALSO_PY);
    write(
        dir.path(),
        "sextant.toml",
        format!("[format.python]\ncommand = {formatter}\n"),
    );
    dir
}

/// A formatter printing nothing, garbage, or code with a word dropped: each refused with
/// FORMATTER_OUTPUT_REJECTED, nothing written, exit 2.
#[test]
fn external_output_that_is_empty_broken_or_drops_a_word_is_refused_and_nothing_is_written() {
    let cases = [
        (r#"["true"]"#, "its output is empty"),
        (
            r#"["sh", "-c", "echo 'def (('"]"#,
            "it changed tokens and its output has a syntax error (line 1)",
        ),
        (
            r#"["sed", "s/return //"]"#,
            "it changed the code, not only its layout: `return` occurs 0 times in its output, 1 in the input",
        ),
    ];
    for (formatter, reason) in cases {
        let dir = python_workspace(formatter);
        let root = dir.path();
        let out = sextant(
            root,
            &[
                "format",
                "--write",
                "--allow-external-formatter",
                "app/ok.py",
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{formatter}: {}", stdout(&out));
        let program = formatter.split('"').nth(1).unwrap();
        assert_eq!(
            stdout(&out),
            format!(
                "app/ok.py: FORMATTER_OUTPUT_REJECTED the output of the formatter {program:?} was not used: {reason}; nothing was changed\n0 of 1 file would be formatted; 1 could not be formatted, so none was written.\n"
            ),
            "{formatter}"
        );
        assert_eq!(read(root, "app/ok.py"), OK_PY, "{formatter}");
    }
}

/// Changing tokens is allowed when the result still parses and keeps its words (quotes,
/// trailing commas); only layout may change in a file with syntax errors.
#[test]
fn external_output_that_changes_punctuation_but_keeps_the_code_is_written() {
    let dir = python_workspace(r#"["sed", "s/2]/2,]/; s/return 1/return (1)/"]"#);
    let root = dir.path();
    let out = sextant(root, &["format", "--write", "--allow-external-formatter"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(read(root, "app/also.py"), "x = [1,\n  2,]\n");
    assert_eq!(read(root, "app/ok.py"), "def f():\n    return (1)\n");
}

/// A formatter that moves a trailing `# noqa` to a line of its own keeps every token, but
/// the import it suppressed diagnostics on now has them: new diagnostics in the formatted
/// file, reported (`--diagnostics report`, the default), refused when one is an error
/// (`refuse`, exit 1, nothing written) or not looked for (`off`).
#[test]
fn new_diagnostics_of_the_formatted_file_are_reported_refused_or_not_looked_for() {
    const USE_PY: &str = "from app.missing import thing  # noqa\n";
    let dir = python_workspace(r#"["sed", "s/  # noqa$/\\n# noqa/"]"#);
    let root = dir.path();
    write(root, "app/__init__.py", "");
    write(root, "app/use.py", USE_PY);
    let format = [
        "format",
        "--allow-external-formatter",
        "--write",
        "app/use.py",
    ];
    let new = "app/use.py:1:1: error SX003 no module 'app.missing' in the workspace (new)\n\
               app/use.py:1:25: warning SX006 'app.missing.thing' imported but unused (new)\n";

    let out = sextant(root, &[&format[..], &["--diagnostics", "refuse"]].concat());
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "app/use.py: would be formatted\n{new}1 of 1 file would be formatted; not written: \
             the formatted files would have new errors (--diagnostics refuse).\n"
        )
    );
    assert_eq!(read(root, "app/use.py"), USE_PY, "nothing is written");

    let out = sextant(root, &format);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        format!("app/use.py: formatted\n{new}1 of 1 file formatted.\n")
    );
    assert_eq!(
        read(root, "app/use.py"),
        "from app.missing import thing\n# noqa\n"
    );

    write(root, "app/use.py", USE_PY);
    let out = sextant(root, &[&format[..], &["--diagnostics", "off"]].concat());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        "app/use.py: formatted\n1 of 1 file formatted.\n"
    );
    assert_eq!(
        read(root, "app/use.py"),
        "from app.missing import thing\n# noqa\n"
    );
}

/// The command in the workspace's own sextant.toml (here a script shipped in the
/// repository) is not run by `--check`, `--diff` or `--write` unless the user allows it.
#[test]
fn a_formatter_named_by_the_workspace_runs_only_when_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    let marker = dir.path().join("ran");
    write(&root, "app/ok.py", OK_PY);
    let script = write(
        &root,
        "fmt.sh",
        format!("#!/bin/sh\ntouch {}\ncat\n", marker.display()),
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    write(
        &root,
        "sextant.toml",
        "[format.python]\ncommand = [\"./fmt.sh\"]\n",
    );
    for mode in ["--check", "--diff", "--write"] {
        let out = sextant(&root, &["format", mode]);
        assert_eq!(out.status.code(), Some(2), "{mode}");
        assert!(
            stdout(&out).starts_with(
                "app/ok.py: FORMATTER_NOT_ALLOWED sextant.toml names the formatter \"./fmt.sh\" for python: a command named by the workspace is code from the workspace, run only when allowed (pass --allow-external-formatter)\n"
            ),
            "{mode}: {}",
            stdout(&out)
        );
        assert!(!marker.exists(), "{mode} ran the workspace's formatter");
    }
    let out = sextant(&root, &["format", "--check", "--allow-external-formatter"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(marker.exists(), "allowed, the formatter runs");
}

/// One file that cannot be formatted stops `--write` for every file.
#[test]
fn write_is_all_or_none() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/lib.rs", "fn f() {\nlet x = 1;   \n}\n");
    write(root, "app/bad.py", "def f(:\n  pass   \n");
    let out = sextant(root, &["format", "--write"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "app/bad.py: FORMAT_SYNTAX_ERROR line 1 has a syntax error; a file with syntax errors is not formatted\nsrc/lib.rs: would be formatted\n1 of 2 files would be formatted; 1 could not be formatted, so none was written.\n"
    );
    assert_eq!(read(root, "src/lib.rs"), "fn f() {\nlet x = 1;   \n}\n");
}

/// A formatter that leaves a process behind holding its output pipe: sextant takes the
/// answer when the formatter exits and kills what it left.
#[test]
fn a_formatter_leaving_a_process_behind_does_not_hold_format_up() {
    let dir = python_workspace(r#"["sh", "-c", "cat; (sleep 100 &)"]"#);
    let root = dir.path();
    let (out, took) = sextant_within(
        root,
        &["format", "--check", "--allow-external-formatter"],
        Duration::from_secs(30),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert_eq!(stdout(&out), "0 of 2 files would be formatted.\n");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

/// Past `timeout_ms` the formatter's whole process group is killed, its children too.
#[test]
fn a_formatter_past_its_timeout_is_killed_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("sleep.pid");
    let root = dir.path().join("ws");
    write(&root, "app/ok.py", OK_PY);
    write(
        &root,
        "sextant.toml",
        format!(
            "[format.python]\ncommand = [\"sh\", \"-c\", \"sleep 100 & echo $! > {}; wait\"]\ntimeout_ms = 500\n",
            pid_file.display()
        ),
    );
    let (out, took) = sextant_within(
        &root,
        &["format", "--check", "--allow-external-formatter"],
        Duration::from_secs(30),
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "app/ok.py: FORMATTER_FAILED the formatter \"sh\" failed: still running after 500 ms; stopped\n0 of 1 file would be formatted; 1 could not be formatted.\n"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(
        gone(pid.trim()),
        "the formatter's child {pid} is still running"
    );
}

/// Whether a process has ended (gone, or a zombie waiting for its new parent).
fn gone(pid: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok();
        let ended = state.as_deref().is_none_or(|stat| {
            stat.rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z'))
        });
        if ended || Instant::now() > deadline {
            return ended;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `timeout_ms` is checked as the file loads.
#[test]
fn timeout_ms_out_of_range_stops_loading() {
    let dir = python_workspace("[\"cat\"]\ntimeout_ms = 0");
    let out = sextant(dir.path(), &["format"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("[format.python]: timeout_ms must be between 1 and 600000"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The built-in formatter's output is bounded: 20,000 nested blocks at column 0 would
/// indent into tens of megabytes; it refuses instead, quickly.
#[test]
fn the_built_in_formatter_refuses_a_result_many_times_larger_than_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let depth = 20_000;
    write(
        root,
        "deep.ts",
        format!("{}{}", "{\n".repeat(depth), "}\n".repeat(depth)),
    );
    let (out, took) = sextant_within(root, &["format", "--check"], Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stdout(&out),
        "deep.ts: FORMAT_TOO_LARGE the formatted text would be over 1368576 bytes; nothing was changed\n0 of 1 file would be formatted; 1 could not be formatted.\n"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// The formatter's own process group does not get the terminal's Ctrl-C; it is killed
/// when sextant dies instead.
#[test]
fn a_formatter_dies_with_sextant() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("formatter.pid");
    let root = dir.path().join("ws");
    write(&root, "app/ok.py", OK_PY);
    write(
        &root,
        "sextant.toml",
        format!(
            "[format.python]\ncommand = [\"sh\", \"-c\", \"echo $$ > {}; exec sleep 100\"]\n",
            pid_file.display()
        ),
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .args(["--root"])
        .arg(&root)
        .args(["format", "--check", "--allow-external-formatter"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let pid = loop {
        let pid = std::fs::read_to_string(&pid_file).unwrap_or_default();
        if !pid.trim().is_empty() {
            break pid;
        }
        assert!(Instant::now() < deadline, "the formatter never started");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(gone(pid.trim()), "the formatter {pid} outlived sextant");
}

/// A read-only server never runs a formatter, so asking for both is refused at start.
#[test]
fn a_read_only_server_refuses_to_allow_external_formatters() {
    let dir = python_workspace(r#"["cat"]"#);
    let out = sextant(
        dir.path(),
        &["mcp", "--read-only", "--allow-external-formatter"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("'--read-only' cannot be used with '--allow-external-formatter'"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Only the first bytes of stderr are kept for the message, but all of it is read: a
/// verbose formatter is not blocked on a full pipe until its deadline.
#[test]
fn a_verbose_formatter_is_not_blocked_on_stderr() {
    let dir = python_workspace(r#"["sh", "-c", "head -c 1000000 /dev/zero >&2; cat"]"#);
    let (out, took) = sextant_within(
        dir.path(),
        &[
            "format",
            "--check",
            "--allow-external-formatter",
            "app/ok.py",
        ],
        Duration::from_secs(60),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(took < Duration::from_secs(10), "took {took:?}");
}
