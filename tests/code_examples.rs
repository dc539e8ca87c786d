//! Every diagnostic code's example, as `sextant explain` and docs/diagnostics.md show it, run
//! through the CLI as a user would: in a workspace of its own the example must report its
//! code, and its fix must not. An explanation whose example does not do what it says
//! teaches the wrong thing.

use std::{
    path::Path,
    process::{Command, Output},
};

use sextant::ide::DiagnosticCode;

/// The language of `path` from its extension: an example's language is its file's.
fn language_of(path: &str) -> &'static sextant::lang::Language {
    sextant::lang::registry()
        .for_path(Path::new(path), None)
        .unwrap_or_else(|| panic!("{path}: no language has this extension"))
}

/// The path a marker line (`# path`, `# path: note`, `# path, note`, or the same after `//`)
/// names: a word with a language's extension, then nothing, `:` or `,`.
fn marker(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("# ")
        .or_else(|| line.strip_prefix("// "))?;
    let end = rest.find([':', ',']).unwrap_or(rest.len());
    let path = &rest[..end];
    let known = sextant::lang::registry()
        .for_path(Path::new(path), None)
        .is_some();
    (known && !path.contains(' ')).then_some(path)
}

/// An example's (or fix's) files: the text before any marker line is `default`'s; each
/// marker line starts the file it names.
fn files_of(default: &str, text: &str) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = vec![(default.to_string(), String::new())];
    for line in text.trim_matches('\n').lines() {
        if let Some(path) = marker(line) {
            files.retain(|(p, text)| p != default || !text.trim().is_empty());
            files.push((path.to_string(), String::new()));
            continue;
        }
        let text = &mut files.last_mut().unwrap().1;
        text.push_str(line);
        text.push('\n');
    }
    files
}

/// The codes `sextant check --select CODE --format json` reports in a fresh workspace of
/// `files` (the code's context, then the example's or fix's files over them).
fn reported(code: &DiagnosticCode, files: &[(String, String)]) -> (Vec<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in code
        .example_context
        .iter()
        .chain(files.iter().map(|(p, t)| (p, t)))
    {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let out: Output = Command::new(env!("CARGO_BIN_EXE_sextant"))
        .current_dir(dir.path())
        .arg("--root")
        .arg(dir.path())
        .args(["check", "--select", &code.id, "--format", "json"])
        .output()
        .expect("sextant runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let answer: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!(
            "{}: not JSON ({e}): {stdout}{}",
            code.id,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let codes = answer["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect();
    (codes, stdout)
}

#[test]
fn every_example_reports_its_code_and_every_fix_does_not() {
    let mut wrong = Vec::new();
    for code in sextant::ide::diagnostic_codes() {
        let lang = language_of(&code.example_file);
        assert!(
            code.is_implemented_for(lang),
            "{}: its example is {}, where the code is not checked",
            code.id,
            lang.id
        );
        let example = files_of(&code.example_file, &code.example);
        let (codes, answer) = reported(code, &example);
        if !codes.contains(&code.id) {
            wrong.push(format!(
                "{}: the example does not report it; files {example:?}, answer {answer}",
                code.id
            ));
        }
        let fix = files_of(&code.example_file, &code.fix);
        let (codes, answer) = reported(code, &fix);
        if codes.contains(&code.id) {
            wrong.push(format!(
                "{}: the fix still reports it; files {fix:?}, answer {answer}",
                code.id
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn marker_lines_start_files() {
    let text = "# shapes.py\nfrom units import Unit\n# units.py: a note\nclass Unit: ...\n";
    assert_eq!(
        files_of("x.py", text),
        [
            (
                "shapes.py".to_string(),
                "from units import Unit\n".to_string()
            ),
            ("units.py".to_string(), "class Unit: ...\n".to_string()),
        ]
    );
    // A comment that only mentions a file is code of the example's file.
    let text = "# app/util.py defines helper only\nfrom app.util import helpr\n";
    assert_eq!(files_of("app/main.py", text).len(), 1);
    assert_eq!(files_of("app/main.py", text)[0].0, "app/main.py");
}
