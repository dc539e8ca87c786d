//! Each checker's machine output read into [`Finding`]s: pure functions of the output's
//! text, so that every format is tested without the tool. Positions stay in the unit the
//! tool writes (tsc: 1-based UTF-16 columns; rustc: byte offsets into the file; go:
//! 1-based byte columns; mypy: 0-based columns; pyright: 0-based lines and UTF-16
//! columns), converted exactly once the file's text is
//! at hand (`diagnostic` in the parent module).

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use crate::ide::{ColumnUnit, Severity};

/// Where a finding is, as the tool says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Place {
    /// 1-based line and 0-based column in `unit` within that line.
    Line { line: u32, column: u32, unit: Unit },
    /// A byte offset into the file.
    Byte(u32),
}

/// [`ColumnUnit`], serializable for the memo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Unit {
    Utf8,
    Utf16,
    Chars,
}

impl Unit {
    pub fn column_unit(self) -> ColumnUnit {
        match self {
            Unit::Utf8 => ColumnUnit::Utf8,
            Unit::Utf16 => ColumnUnit::Utf16,
            Unit::Chars => ColumnUnit::Chars,
        }
    }
}

/// One diagnostic as a tool reported it; `path` as it wrote it (relative to the directory
/// it ran in, or absolute).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Finding {
    pub path: String,
    pub start: Place,
    pub end: Option<Place>,
    pub severity: Severity,
    /// Namespaced by the tool: `tsc:TS2322`, `rustc:E0308`, `go:vet/printf`, `mypy:arg-type`.
    pub code: String,
    pub message: String,
}

/// A tool's output read: what has a place, and what the tool said without one (a
/// configuration error, a crash), kept to explain a failed run.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub findings: Vec<Finding>,
    pub unplaced: Vec<String>,
}

/// Which reader a checker's output needs (`output` in `grammars/checkers.toml`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    Tsc,
    Cargo,
    GoVet,
    Mypy,
    Pyright,
    Ty,
}

pub fn parse(format: Format, output: &str) -> Parsed {
    match format {
        Format::Tsc => tsc(output),
        Format::Cargo => cargo(output),
        Format::GoVet => go_vet(output),
        Format::Mypy => mypy(output),
        Format::Pyright => pyright(output),
        Format::Ty => ty(output),
    }
}

const UNPLACED_KEPT: usize = 20;

fn unplaced(parsed: &mut Parsed, line: &str) {
    let line = line.trim();
    if !line.is_empty() && parsed.unplaced.len() < UNPLACED_KEPT {
        parsed.unplaced.push(line.chars().take(300).collect());
    }
}

/// The finding of a tool's head line, matched as 1 path, 2 line, 3 1-based column (in
/// `unit`), 4 severity word and 6 message, with its namespaced `code`; `None` when a
/// number does not fit.
fn head_finding(c: &regex::Captures, unit: Unit, code: String) -> Option<Finding> {
    let (Ok(row), Ok(col)) = (c[2].parse::<u32>(), c[3].parse::<u32>()) else {
        return None;
    };
    Some(Finding {
        path: c[1].to_string(),
        start: Place::Line {
            line: row,
            column: col.saturating_sub(1),
            unit,
        },
        end: None,
        severity: match &c[4] {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            _ => Severity::Information,
        },
        code,
        message: c[6].to_string(),
    })
}

/// `tsc --pretty false`: `path(line,col): error TS2322: message`, a message's further
/// lines indented below it; columns are 1-based UTF-16 code units.
fn tsc(output: &str) -> Parsed {
    static HEAD: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^(.+)\((\d+),(\d+)\): (error|warning|message) TS(\d+): (.*)$")
            .expect("valid pattern")
    });
    let mut parsed = Parsed::default();
    let mut continues = false;
    for line in output.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(c) = HEAD.captures(line) {
            let Some(finding) = head_finding(&c, Unit::Utf16, format!("tsc:TS{}", &c[5])) else {
                unplaced(&mut parsed, line);
                continue;
            };
            parsed.findings.push(finding);
            continues = true;
        } else if continues && line.starts_with(' ') {
            let last = parsed.findings.last_mut().expect("a finding continues");
            last.message.push('\n');
            last.message.push_str(line.trim_start());
        } else {
            continues = false;
            unplaced(&mut parsed, line);
        }
    }
    parsed
}

#[derive(Deserialize)]
struct CargoLine {
    reason: String,
    message: Option<RustcMessage>,
}

#[derive(Deserialize)]
struct RustcMessage {
    message: String,
    level: String,
    code: Option<RustcCode>,
    #[serde(default)]
    spans: Vec<RustcSpan>,
    rendered: Option<String>,
}

#[derive(Deserialize)]
struct RustcCode {
    code: String,
}

#[derive(Deserialize)]
struct RustcSpan {
    file_name: String,
    byte_start: u32,
    byte_end: u32,
    is_primary: bool,
}

/// `cargo check --message-format=json`: one JSON object per line; rustc's messages carry
/// byte offsets into the file, used as they are (no column arithmetic at all).
fn cargo(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    for line in output.lines() {
        let Ok(entry) = serde_json::from_str::<CargoLine>(line) else {
            if !line.trim_start().starts_with('{') {
                unplaced(&mut parsed, line);
            }
            continue;
        };
        let Some(message) = entry.message.filter(|_| entry.reason == "compiler-message") else {
            continue;
        };
        let severity = match message.level.as_str() {
            "error" | "error: internal compiler error" => Severity::Error,
            "warning" => Severity::Warning,
            "note" | "help" => Severity::Information,
            // `failure-note` and the like: summaries of what was already reported.
            _ => continue,
        };
        let Some(span) = message.spans.iter().find(|s| s.is_primary) else {
            // "aborting due to 2 previous errors" and the like: not a place in the code.
            if severity == Severity::Error
                && !message.message.starts_with("aborting due to")
                && let Some(rendered) = &message.rendered
            {
                unplaced(&mut parsed, rendered);
            }
            continue;
        };
        parsed.findings.push(Finding {
            path: span.file_name.clone(),
            start: Place::Byte(span.byte_start),
            end: Some(Place::Byte(span.byte_end)),
            severity,
            code: match &message.code {
                Some(code) => format!("rustc:{}", code.code),
                None => "rustc".to_string(),
            },
            message: message.message,
        });
    }
    parsed
}

/// `go vet -json` on stderr: `# package` headers, each package's analyzers' findings as an
/// indented JSON object (`{"pkg": {"printf": [{"posn": "file:line:col", "message": …}]}}`),
/// and, for a package that does not type-check, `vet: file:line:col: message` (only its
/// first type error: vet stops there). Columns are 1-based bytes.
fn go_vet(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut block: Option<String> = None;
    for line in output.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(text) = &mut block {
            text.push_str(line);
            text.push('\n');
            if line == "}" {
                let text = block.take().expect("inside a block");
                go_vet_block(&text, &mut parsed);
            }
            continue;
        }
        if line == "{" {
            block = Some("{\n".to_string());
        } else if line.starts_with("# ") || line == "{}" {
            // `{}`: a package with nothing to report.
            continue;
        } else if let Some((path, place, message)) =
            go_position(line.strip_prefix("vet: ").unwrap_or(line))
        {
            parsed.findings.push(Finding {
                path,
                start: place,
                end: None,
                severity: Severity::Error,
                code: "go:build".to_string(),
                message: message.to_string(),
            });
        } else {
            unplaced(&mut parsed, line);
        }
    }
    if let Some(text) = block {
        unplaced(&mut parsed, &text);
    }
    parsed
}

type VetPackages =
    std::collections::BTreeMap<String, std::collections::BTreeMap<String, serde_json::Value>>;

#[derive(Deserialize)]
struct VetFinding {
    posn: String,
    message: String,
}

fn go_vet_block(text: &str, parsed: &mut Parsed) {
    let Ok(packages) = serde_json::from_str::<VetPackages>(text) else {
        unplaced(parsed, text);
        return;
    };
    for analyzers in packages.values() {
        for (analyzer, found) in analyzers {
            let Ok(found) = serde_json::from_value::<Vec<VetFinding>>(found.clone()) else {
                // `{"error": …}` for an analyzer that could not run.
                unplaced(parsed, &format!("{analyzer}: {found}"));
                continue;
            };
            for f in found {
                let Some((path, start)) = go_posn(&f.posn) else {
                    unplaced(parsed, &f.posn);
                    continue;
                };
                parsed.findings.push(Finding {
                    path,
                    start,
                    end: None,
                    severity: Severity::Warning,
                    code: format!("go:vet/{analyzer}"),
                    message: f.message,
                });
            }
        }
    }
}

/// `file:line:col` or `file:line` (the path may hold colons; the numbers are last).
fn go_posn(posn: &str) -> Option<(String, Place)> {
    let mut parts = posn.rsplitn(3, ':');
    let last = parts.next()?;
    let middle = parts.next()?;
    match (parts.next(), middle.parse::<u32>(), last.parse::<u32>()) {
        (Some(path), Ok(line), Ok(col)) if !path.is_empty() => Some((
            path.to_string(),
            Place::Line {
                line,
                column: col.saturating_sub(1),
                unit: Unit::Utf8,
            },
        )),
        _ => {
            let line = last.parse::<u32>().ok()?;
            Some((
                middle.to_string(),
                Place::Line {
                    line,
                    column: 0,
                    unit: Unit::Utf8,
                },
            ))
        }
    }
}

/// A text line `file:line:col: message`, as go's compiler and vet's type check write.
fn go_position(line: &str) -> Option<(String, Place, &str)> {
    static HEAD: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^([^\s:][^:]*\.go):(\d+)(?::(\d+))?: (.*)$").expect("valid pattern")
    });
    let c = HEAD.captures(line)?;
    let row = c[2].parse::<u32>().ok()?;
    let col = match c.get(3) {
        Some(col) => col.as_str().parse::<u32>().ok()?,
        None => 1,
    };
    Some((
        c[1].to_string(),
        Place::Line {
            line: row,
            column: col.saturating_sub(1),
            unit: Unit::Utf8,
        },
        c.get(4).expect("group 4").as_str(),
    ))
}

#[derive(Deserialize)]
struct MypyLine {
    file: String,
    line: i64,
    column: i64,
    end_line: Option<i64>,
    end_column: Option<i64>,
    message: String,
    hint: Option<String>,
    code: Option<String>,
    severity: String,
}

/// `mypy -O json`: one JSON object per line, 1-based lines and 0-based character columns
/// (-1 when unknown); a note right after an error on the same line is part of it.
fn mypy(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let place = |line: i64, column: i64| Place::Line {
        line: u32::try_from(line.max(1)).unwrap_or(1),
        column: u32::try_from(column.max(0)).unwrap_or(0),
        unit: Unit::Chars,
    };
    for line in output.lines() {
        let Ok(entry) = serde_json::from_str::<MypyLine>(line) else {
            unplaced(&mut parsed, line);
            continue;
        };
        let mut message = entry.message;
        if let Some(hint) = entry.hint.filter(|h| !h.is_empty()) {
            message.push('\n');
            message.push_str(&hint);
        }
        let start = place(entry.line, entry.column);
        if entry.severity == "note"
            && let Some(last) = parsed.findings.last_mut()
            && last.path == entry.file
            && matches!(last.start, Place::Line { line, .. } if Some(line) == u32::try_from(entry.line).ok())
        {
            last.message.push('\n');
            last.message.push_str(&message);
            continue;
        }
        parsed.findings.push(Finding {
            path: entry.file,
            start,
            end: match (entry.end_line, entry.end_column) {
                (Some(line), Some(column)) if line >= 1 && column >= 0 => Some(place(line, column)),
                _ => None,
            },
            severity: match entry.severity.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Information,
            },
            code: format!("mypy:{}", entry.code.as_deref().unwrap_or("misc")),
            message,
        });
    }
    parsed
}

#[derive(Deserialize)]
struct PyrightReport {
    #[serde(rename = "generalDiagnostics")]
    diagnostics: Vec<PyrightDiagnostic>,
}

#[derive(Deserialize)]
struct PyrightDiagnostic {
    file: String,
    severity: String,
    message: String,
    range: Option<PyrightRange>,
    rule: Option<String>,
}

#[derive(Deserialize)]
struct PyrightRange {
    start: PyrightPosition,
    end: PyrightPosition,
}

#[derive(Deserialize)]
struct PyrightPosition {
    line: u32,
    character: u32,
}

/// `pyright --outputjson`: one JSON document whose `generalDiagnostics` carry LSP ranges
/// (0-based lines, UTF-16 columns) and the rule that reported them; a diagnostic with no
/// rule (a syntax error, an unresolvable configuration) is `pyright` alone. Anything but
/// that document (a configuration error printed as text) is unplaced.
fn pyright(output: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let report = match serde_json::from_str::<PyrightReport>(output) {
        Ok(report) => report,
        Err(_) => {
            output.lines().for_each(|line| unplaced(&mut parsed, line));
            return parsed;
        }
    };
    let place = |p: &PyrightPosition| Place::Line {
        line: p.line.saturating_add(1),
        column: p.character,
        unit: Unit::Utf16,
    };
    for d in report.diagnostics {
        let Some(range) = d.range else {
            unplaced(&mut parsed, &format!("{}: {}", d.file, d.message));
            continue;
        };
        parsed.findings.push(Finding {
            path: d.file,
            start: place(&range.start),
            end: Some(place(&range.end)),
            severity: match d.severity.as_str() {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => Severity::Information,
            },
            code: match d.rule {
                Some(rule) => format!("pyright:{rule}"),
                None => "pyright".to_string(),
            },
            message: plain_indents(&d.message),
        });
    }
    parsed
}

/// `ty check --output-format concise`: `path:line:col: error[rule] message`, 1-based
/// lines and 1-based character columns; the closing `Found N diagnostics` and the like are
/// unplaced.
fn ty(output: &str) -> Parsed {
    static HEAD: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^(.+?):(\d+):(\d+): (error|warning|info)\[([\w-]+)\] (.*)$")
            .expect("valid pattern")
    });
    let mut parsed = Parsed::default();
    for line in output.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some(c) = HEAD.captures(line) else {
            if !(line.starts_with("Found ") || line == "All checks passed!") {
                unplaced(&mut parsed, line);
            }
            continue;
        };
        let Some(finding) = head_finding(&c, Unit::Chars, format!("ty:{}", &c[5])) else {
            unplaced(&mut parsed, line);
            continue;
        };
        parsed.findings.push(finding);
    }
    parsed
}

/// pyright indents a message's further lines with no-break spaces (for editors that
/// collapse spaces); as plain spaces they read the same everywhere else.
fn plain_indents(message: &str) -> String {
    let lines: Vec<String> = message
        .split('\n')
        .map(|line| {
            let indent = line.chars().take_while(|c| *c == '\u{a0}').count();
            " ".repeat(indent) + line.trim_start_matches('\u{a0}')
        })
        .collect();
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, column: u32, unit: Unit) -> Place {
        Place::Line { line, column, unit }
    }

    #[test]
    fn tsc_lines_keep_utf16_columns_and_continued_messages() {
        let out = "src/a.ts(1,23): error TS2322: Type 'string' is not assignable to type 'number'.\n\
                   src/b.ts(4,2): error TS2345: Argument of type 'X' is not assignable.\n  \
                   Property 'y' is missing.\n\
                   error TS5083: Cannot read file 'tsconfig.base.json'.\n";
        let parsed = tsc(out);
        assert_eq!(parsed.findings.len(), 2);
        assert_eq!(parsed.findings[0].path, "src/a.ts");
        assert_eq!(parsed.findings[0].start, at(1, 22, Unit::Utf16));
        assert_eq!(parsed.findings[0].code, "tsc:TS2322");
        assert_eq!(parsed.findings[0].severity, Severity::Error);
        assert_eq!(
            parsed.findings[1].message,
            "Argument of type 'X' is not assignable.\nProperty 'y' is missing."
        );
        assert_eq!(
            parsed.unplaced,
            vec!["error TS5083: Cannot read file 'tsconfig.base.json'."]
        );
    }

    #[test]
    fn cargo_messages_use_the_primary_span_bytes_and_skip_summaries() {
        let out = concat!(
            r#"{"reason":"compiler-artifact","package_id":"x"}"#,
            "\n",
            r#"{"reason":"compiler-message","message":{"message":"mismatched types","level":"error","code":{"code":"E0308","explanation":"…"},"spans":[{"file_name":"src/other.rs","byte_start":1,"byte_end":2,"is_primary":false},{"file_name":"src/main.rs","byte_start":40,"byte_end":47,"is_primary":true}],"rendered":"error[E0308]"}}"#,
            "\n",
            r#"{"reason":"compiler-message","message":{"message":"unused variable: `x`","level":"warning","code":{"code":"unused_variables"},"spans":[{"file_name":"src/lib.rs","byte_start":3,"byte_end":4,"is_primary":true}],"rendered":"w"}}"#,
            "\n",
            r#"{"reason":"compiler-message","message":{"message":"aborting due to 1 previous error","level":"error","code":null,"spans":[],"rendered":"error: aborting"}}"#,
            "\n",
            r#"{"reason":"build-finished","success":false}"#,
            "\n",
            "garbage\n"
        );
        let parsed = cargo(out);
        assert_eq!(
            parsed.findings,
            vec![
                Finding {
                    path: "src/main.rs".into(),
                    start: Place::Byte(40),
                    end: Some(Place::Byte(47)),
                    severity: Severity::Error,
                    code: "rustc:E0308".into(),
                    message: "mismatched types".into(),
                },
                Finding {
                    path: "src/lib.rs".into(),
                    start: Place::Byte(3),
                    end: Some(Place::Byte(4)),
                    severity: Severity::Warning,
                    code: "rustc:unused_variables".into(),
                    message: "unused variable: `x`".into(),
                },
            ]
        );
        assert_eq!(parsed.unplaced, vec!["garbage"]);
    }

    #[test]
    fn go_vet_json_blocks_and_type_errors_with_byte_columns() {
        let out = "# example.com/m/clean\n{}\n# example.com/m/sub\n\
                   vet: sub/s.go:3:23: cannot use \"x\" (untyped string constant) as int value\n\
                   # example.com/m\n\
                   {\n\
                   \t\"example.com/m\": {\n\
                   \t\t\"printf\": [\n\
                   \t\t\t{\n\
                   \t\t\t\t\"posn\": \"/tmp/g x/main.go:6:28\",\n\
                   \t\t\t\t\"message\": \"fmt.Printf format %d has arg s of wrong type string\"\n\
                   \t\t\t}\n\
                   \t\t]\n\
                   \t}\n\
                   }\n";
        let parsed = go_vet(out);
        assert_eq!(parsed.unplaced, Vec::<String>::new());
        assert_eq!(parsed.findings.len(), 2);
        assert_eq!(parsed.findings[0].path, "sub/s.go");
        assert_eq!(parsed.findings[0].start, at(3, 22, Unit::Utf8));
        assert_eq!(parsed.findings[0].code, "go:build");
        assert_eq!(parsed.findings[1].path, "/tmp/g x/main.go");
        assert_eq!(parsed.findings[1].start, at(6, 27, Unit::Utf8));
        assert_eq!(parsed.findings[1].code, "go:vet/printf");
        assert_eq!(parsed.findings[1].severity, Severity::Warning);
    }

    #[test]
    fn mypy_json_lines_with_hints_and_notes_folded_in() {
        let out = concat!(
            r#"{"file": "a.py", "line": 4, "column": 11, "end_line": 4, "end_column": 14, "message": "Argument 1 to \"f\" has incompatible type \"str\"; expected \"int\"", "hint": null, "code": "arg-type", "severity": "error"}"#,
            "\n",
            r#"{"file": "a.py", "line": 4, "column": -1, "end_line": null, "end_column": null, "message": "See docs", "hint": null, "code": null, "severity": "note"}"#,
            "\n",
            r#"{"file": "b.py", "line": 2, "column": 0, "end_line": 2, "end_column": 3, "message": "Name \"x\" is not defined", "hint": "Did you mean \"y\"?", "code": "name-defined", "severity": "error"}"#,
            "\nnot json\n"
        );
        let parsed = mypy(out);
        assert_eq!(parsed.findings.len(), 2);
        assert_eq!(parsed.findings[0].code, "mypy:arg-type");
        assert_eq!(parsed.findings[0].start, at(4, 11, Unit::Chars));
        assert_eq!(parsed.findings[0].end, Some(at(4, 14, Unit::Chars)));
        assert!(parsed.findings[0].message.ends_with("\nSee docs"));
        assert_eq!(
            parsed.findings[1].message,
            "Name \"x\" is not defined\nDid you mean \"y\"?"
        );
        assert_eq!(parsed.unplaced, vec!["not json"]);
    }

    #[test]
    fn pyright_json_with_lsp_ranges_and_rules() {
        let out = r#"{
            "version": "1.1.414",
            "generalDiagnostics": [
                {"file": "/w/app/a.py", "severity": "error",
                 "message": "Cannot access attribute \"y\" for class \"A\"\n\u00a0\u00a0Attribute \"y\" is unknown",
                 "range": {"start": {"line": 8, "character": 4}, "end": {"line": 8, "character": 5}},
                 "rule": "reportAttributeAccessIssue"},
                {"file": "/w/app/b.py", "severity": "error", "message": "Expected expression",
                 "range": {"start": {"line": 0, "character": 3}, "end": {"line": 0, "character": 3}}},
                {"file": "/w/app/c.py", "severity": "information", "message": "no range"}
            ],
            "summary": {"errorCount": 2}
        }"#;
        let parsed = pyright(out);
        assert_eq!(
            parsed.findings,
            vec![
                Finding {
                    path: "/w/app/a.py".into(),
                    start: at(9, 4, Unit::Utf16),
                    end: Some(at(9, 5, Unit::Utf16)),
                    severity: Severity::Error,
                    code: "pyright:reportAttributeAccessIssue".into(),
                    message: "Cannot access attribute \"y\" for class \"A\"\n  Attribute \"y\" is unknown"
                        .into(),
                },
                Finding {
                    path: "/w/app/b.py".into(),
                    start: at(1, 3, Unit::Utf16),
                    end: Some(at(1, 3, Unit::Utf16)),
                    severity: Severity::Error,
                    code: "pyright".into(),
                    message: "Expected expression".into(),
                },
            ]
        );
        assert_eq!(parsed.unplaced, vec!["/w/app/c.py: no range"]);
        assert_eq!(
            pyright("No configuration file found.\nerror: bad").unplaced,
            vec!["No configuration file found.", "error: bad"]
        );
    }

    #[test]
    fn ty_concise_lines_with_character_columns() {
        let out = "app/e.py:4:10: error[missing-attribute] Object of type `A` has no attribute `zz`\n\
                   app/b.py:2:1: warning[unused-ignore-comment] Unused blanket `type: ignore`\n\
                   Found 2 diagnostics\n\
                   ty failed\n";
        let parsed = ty(out);
        assert_eq!(parsed.findings.len(), 2);
        assert_eq!(parsed.findings[0].path, "app/e.py");
        assert_eq!(parsed.findings[0].start, at(4, 9, Unit::Chars));
        assert_eq!(parsed.findings[0].code, "ty:missing-attribute");
        assert_eq!(
            parsed.findings[0].message,
            "Object of type `A` has no attribute `zz`"
        );
        assert_eq!(parsed.findings[1].severity, Severity::Warning);
        assert_eq!(parsed.unplaced, vec!["ty failed"]);
    }

    #[test]
    fn garbage_yields_no_finding_and_never_panics() {
        let garbage = "\u{0}\u{1}{{{ ((1,2): error TS: x\n}\n{\n(1,x): error TS12: y\n:::\n";
        for format in [
            Format::Tsc,
            Format::Cargo,
            Format::GoVet,
            Format::Mypy,
            Format::Pyright,
            Format::Ty,
        ] {
            let parsed = parse(format, garbage);
            assert_eq!(parsed.findings, Vec::new(), "{format:?}");
        }
    }
}
