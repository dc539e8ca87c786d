//! `sextant check --format github`: one GitHub Actions workflow command per diagnostic
//! (`::error file=…,line=…,col=…,endLine=…,endColumn=…,title=SX005::message`), which a
//! workflow run shows as an annotation on the line.
//!
//! Invariant: values are escaped as the workflow-command rules require: `%`, `\r` and `\n`
//! everywhere, and `:` and `,` too in properties, so no path or message can end a command
//! early or start another one.

use std::fmt::Write;

use crate::ide::{self, Severity};

/// The command of a severity (`notice` for information and hint).
fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "notice",
    }
}

/// A command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command per listed diagnostic. Paths are workspace-relative: run the check
/// from the repository's root for the annotations to land on the files.
pub fn check(result: &ide::CheckResult) -> String {
    let mut out = String::new();
    for d in &result.diagnostics {
        let _ = writeln!(
            out,
            "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            command(d.severity),
            escape_property(&d.path),
            d.span.start.line,
            d.span.start.column,
            d.span.end.line,
            d.span.end.column,
            escape_property(&d.code),
            escape_data(&d.message),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_as_workflow_commands_require() {
        assert_eq!(escape_data("50% a:b,c\r\nnext"), "50%25 a:b,c%0D%0Anext");
        assert_eq!(escape_property("a:b,c%d\n"), "a%3Ab%2Cc%25d%0A");
    }
}
