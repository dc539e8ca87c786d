//! What a checker's code (`rustc:E0308`, `go:vet/printf`, `mypy:arg-type`) means: the
//! tool's own offline explanation where it has one (`rustc --explain E0308`, `go tool vet
//! help printf`), run from PATH through [`super::process`] (bounded in time and output,
//! killed on cancellation), and the address of the tool's documentation for the code,
//! both from the registry (`explain` and `docs` in `grammars/checkers.toml`).

use std::{path::PathBuf, time::Duration};

use super::{CheckerSpec, checkers, executable};
use crate::workspace::process::{self, Finished, Spawn};

/// How long a tool may take to explain a code.
const EXPLAIN_TIMEOUT: Duration = Duration::from_secs(10);
/// What is kept of an explanation (rustc's longest is a few kilobytes).
const MAX_EXPLANATION: usize = 256 * 1024;

/// A checker's code explained.
#[derive(Debug, PartialEq, Eq)]
pub struct ToolCode {
    /// As asked: `rustc:E0308`.
    pub code: String,
    /// The checker that reports it (`cargo` for `rustc:`).
    pub tool: String,
    /// What the tool itself says the code means, offline.
    pub explanation: Option<String>,
    /// Why there is no explanation (the tool documents it online only, or is not installed).
    pub note: Option<String>,
    /// The tool's documentation of the code.
    pub url: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum ExplainError {
    /// No checker's codes have this namespace, or the tool says the code is not one of its.
    Unknown(String),
    Cancelled,
}

/// `code` explained if it is namespaced (`None` for one of sextant's own, `SX005`).
pub fn explain_tool_code(
    code: &str,
    stop: &dyn Fn() -> bool,
) -> Option<Result<ToolCode, ExplainError>> {
    let (namespace, rest) = code.trim().split_once(':')?;
    let Some(spec) = checkers()
        .iter()
        .find(|c| c.namespace.as_deref() == Some(namespace))
    else {
        let known: Vec<String> = checkers()
            .iter()
            .filter_map(|c| c.namespace.as_ref().map(|n| format!("{n}:")))
            .collect();
        return Some(Err(ExplainError::Unknown(format!(
            "{code:?}: no checker reports codes in {namespace:?} (known: {})",
            known.join(", ")
        ))));
    };
    Some(explain_with(spec, code.trim(), rest, stop))
}

fn explain_with(
    spec: &CheckerSpec,
    code: &str,
    rest: &str,
    stop: &dyn Fn() -> bool,
) -> Result<ToolCode, ExplainError> {
    let url = spec
        .docs
        .iter()
        .find_map(|pair| fill(pair, rest))
        .map(|mut filled| filled.remove(0));
    let command = spec.explain.iter().find_map(|entry| fill(entry, rest));
    if url.is_none() && command.is_none() {
        return Err(ExplainError::Unknown(format!(
            "{code:?} is not a code {} reports",
            spec.tool
        )));
    }
    let mut explained = ToolCode {
        code: code.to_string(),
        tool: spec.tool.clone(),
        explanation: None,
        note: None,
        url,
    };
    match command {
        None => explained.note = Some(format!("{} documents its codes online only", spec.tool)),
        Some(command) => match run_explain(&command, stop)? {
            Ok(text) => explained.explanation = Some(text),
            Err(Said::NotACode(said)) => {
                return Err(ExplainError::Unknown(format!("{code:?}: {said}")));
            }
            Err(Said::Unavailable(why)) => explained.note = Some(why),
        },
    }
    Ok(explained)
}

/// `entry` ([pattern, template…]) filled in for `rest` when its pattern matches it.
fn fill(entry: &[String], rest: &str) -> Option<Vec<String>> {
    let (pattern, templates) = entry.split_first()?;
    let pattern = regex::Regex::new(pattern).ok()?;
    let found = pattern.captures(rest)?;
    let group = found.get(1).map_or("", |m| m.as_str());
    Some(
        templates
            .iter()
            .map(|t| t.replace("{code}", rest).replace("{1}", group))
            .collect(),
    )
}

enum Said {
    /// The tool ran and said the code is not one of its.
    NotACode(String),
    /// It is not installed, or could not answer.
    Unavailable(String),
}

fn run_explain(
    command: &[String],
    stop: &dyn Fn() -> bool,
) -> Result<Result<String, Said>, ExplainError> {
    let (program, args) = command.split_first().expect("a command names its program");
    let Some(path) = on_path(program) else {
        return Ok(Err(Said::Unavailable(format!(
            "{program} is not on PATH: its explanation is at the address given"
        ))));
    };
    let cwd = std::env::temp_dir();
    let spawn = Spawn {
        program: path,
        args,
        cwd: &cwd,
        env: Vec::new(),
        stdin: None,
        max_stdout: MAX_EXPLANATION,
        stop_on_large_stdout: false,
        max_stderr: MAX_EXPLANATION,
    };
    let unavailable = |why: String| Ok(Err(Said::Unavailable(why)));
    match process::run(spawn, EXPLAIN_TIMEOUT, stop) {
        Err(e) => unavailable(format!("{program}: {e}")),
        Ok(Finished::Cancelled) => Err(ExplainError::Cancelled),
        Ok(Finished::TimedOut) => unavailable(format!(
            "{program} did not answer within {} s",
            EXPLAIN_TIMEOUT.as_secs()
        )),
        Ok(Finished::OutputTooLarge | Finished::OutputNotClosed) => unavailable(format!(
            "{program} did not answer in a way sextant can read"
        )),
        Ok(Finished::Exited {
            status, out, err, ..
        }) => {
            let out = String::from_utf8_lossy(&out).trim().to_string();
            if status.success() && !out.is_empty() {
                return Ok(Ok(out));
            }
            let err = String::from_utf8_lossy(&err);
            let said = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Ok(Err(Said::NotACode(format!(
                "{program} says: {}",
                said.trim()
            ))))
        }
    }
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|p| p.join(program))
        .find(|p| executable(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles_and_every_namespace_is_one_checkers() {
        let mut namespaces = Vec::new();
        for spec in checkers() {
            let namespace = spec.namespace.as_deref().expect("every checker has one");
            assert!(!namespaces.contains(&namespace), "{namespace} twice");
            namespaces.push(namespace);
            for entry in spec.docs.iter().chain(&spec.explain) {
                assert!(entry.len() >= 2, "{}: {entry:?}", spec.tool);
                regex::Regex::new(&entry[0]).unwrap();
            }
        }
    }

    #[test]
    fn addresses_are_filled_from_the_code_and_its_group() {
        let never = || false;
        let explained = |code| explain_tool_code(code, &never).unwrap();
        let mypy = explained("mypy:arg-type").unwrap();
        assert_eq!(
            mypy.url.as_deref(),
            Some("https://mypy.readthedocs.io/en/stable/error_code_list.html#code-arg-type")
        );
        assert_eq!(
            (mypy.tool.as_str(), mypy.explanation, mypy.note.as_deref()),
            ("mypy", None, Some("mypy documents its codes online only"))
        );
        assert_eq!(
            explained("pyright:reportAttributeAccessIssue")
                .unwrap()
                .url
                .as_deref(),
            Some(
                "https://microsoft.github.io/pyright/#/configuration?id=reportAttributeAccessIssue"
            )
        );
        assert_eq!(
            explained("tsc:nonsense"),
            Err(ExplainError::Unknown(
                "\"tsc:nonsense\" is not a code tsc reports".into()
            ))
        );
        assert!(
            matches!(explained("eslint:no-undef"), Err(ExplainError::Unknown(m))
            if m == "\"eslint:no-undef\": no checker reports codes in \"eslint\" (known: tsc:, go:, rustc:, pyright:, ty:, mypy:)")
        );
        assert_eq!(explain_tool_code("SX005", &never), None);
    }
}
