//! The check policy as the commands that edit take it (`apply`, `edit`, `rename`,
//! `format`), and the line each new diagnostic is shown as.

use clap::ValueEnum;

use crate::ide::{CheckPolicy, DiagnosticInfo};

/// What new diagnostics in an edit's result do: [`CheckPolicy`] on the command line.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum CheckArg {
    Report,
    Refuse,
    Off,
}

impl CheckArg {
    pub fn policy(self) -> CheckPolicy {
        match self {
            CheckArg::Report => CheckPolicy::Report,
            CheckArg::Refuse => CheckPolicy::Refuse,
            CheckArg::Off => CheckPolicy::Off,
        }
    }
}

/// `path:line:column: severity CODE message (new)`.
pub fn new_diagnostic_line(d: &DiagnosticInfo) -> String {
    let severity = serde_json::to_value(d.severity).unwrap_or_default();
    format!(
        "{}:{}:{}: {} {} {} (new)",
        d.path,
        d.span.start.line,
        d.span.start.column,
        severity.as_str().unwrap_or_default(),
        d.code,
        d.message
    )
}
