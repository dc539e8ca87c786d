//! `sextant check --format sarif`: a SARIF 2.1.0 log (the format code-scanning services
//! read), one run whose driver lists every code of the registry as a rule.
//!
//! Invariant: every region is 1-based and its columns count Unicode code points (`columnKind`
//! says so explicitly), the same columns `sextant check` prints; `endColumn` is the column
//! after the last character, as SARIF defines it. URIs are workspace-relative, percent-encoded
//! and based on `%SRCROOT%`, so a log does not depend on where the checkout is.

use serde_json::{Value, json};

use crate::ide::{self, DiagnosticInfo, Severity, Span};

/// The SARIF level of a severity (`note` for both information and hint).
fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "note",
    }
}

/// A workspace path as a relative URI reference: every byte outside RFC 3986's unreserved
/// set and `/` percent-encoded.
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for &b in path.as_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn region(span: &Span) -> Value {
    json!({
        "startLine": span.start.line,
        "startColumn": span.start.column,
        "endLine": span.end.line,
        "endColumn": span.end.column,
    })
}

fn location(path: &str, span: &Span) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri(path), "uriBaseId": "%SRCROOT%"},
            "region": region(span),
        }
    })
}

fn rule(code: &ide::DiagnosticCode) -> Value {
    let help = format!(
        "{}\n\nExample:\n\n{}\n\nFixed:\n\n{}",
        code.help, code.example, code.fix
    );
    let indent = |text: &str| -> String {
        text.lines()
            .map(|l| format!("    {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let markdown = format!(
        "{}\n\nExample:\n\n{}\n\nFixed:\n\n{}",
        code.help,
        indent(&code.example),
        indent(&code.fix)
    );
    json!({
        "id": code.id,
        "name": code.name,
        "shortDescription": {"text": code.title},
        "fullDescription": {"text": code.description.trim()},
        "help": {"text": help, "markdown": markdown},
        "defaultConfiguration": {"enabled": code.enabled, "level": level(code.severity)},
        "properties": {"tags": [code.category]},
    })
}

fn result(d: &DiagnosticInfo, rule_index: Option<usize>) -> Value {
    let mut result = json!({
        "ruleId": d.code,
        "level": level(d.severity),
        "message": {"text": d.message},
        "locations": [location(&d.path, &d.span)],
    });
    if let Some(index) = rule_index {
        result["ruleIndex"] = json!(index);
    }
    if !d.related.is_empty() {
        result["relatedLocations"] = d
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut l = location(r.path.as_deref().unwrap_or(&d.path), &r.span);
                l["id"] = json!(i);
                l["message"] = json!({"text": r.message});
                l
            })
            .collect();
    }
    result
}

/// The SARIF log of a check (every listed diagnostic; the limit is the caller's).
pub fn check(result: &ide::CheckResult) -> String {
    let codes = ide::diagnostic_codes();
    let results: Vec<Value> = result
        .diagnostics
        .iter()
        .map(|d| {
            let index = codes.iter().position(|c| c.id == d.code);
            self::result(d, index)
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "sextant",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": codes.iter().map(rule).collect::<Vec<_>>(),
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    let mut out = serde_json::to_string_pretty(&log).expect("a SARIF log serializes");
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_relative_uri_references() {
        assert_eq!(uri("src/main.rs"), "src/main.rs");
        assert_eq!(uri("a dir/ü#1.py"), "a%20dir/%C3%BC%231.py");
    }
}
