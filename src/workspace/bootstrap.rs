//! `workspace_bootstrap` / `sextant bootstrap`: in one answer, what a new agent session needs
//! to know of the workspace. The index's facts (`ide::BootstrapFacts`) and what only the
//! disk knows: the instruction files present, the commands the manifests and Makefile
//! declare, and the git state (`git::git_state`).
//!
//! Invariant: every file is read through the workspace's `System` (confined, size-limited);
//! nothing is run; the answer's text fits its budget, whole lines kept, and says when lines
//! were left out.

use std::{
    path::Path,
    sync::{Arc, atomic::AtomicBool},
};

use serde::Serialize;

use super::{
    git::{GitState, git_state},
    system::System,
};
use crate::ide::{BootstrapFacts, Budget, Encoding, ProjectKind};

/// Files an agent should read first, when present at the root.
const INSTRUCTION_FILES: &[&str] = &[
    "AGENTS.md",
    "CLAUDE.md",
    "GEMINI.md",
    ".cursorrules",
    ".github/copilot-instructions.md",
    "CONTRIBUTING.md",
    "README.md",
    "README.rst",
    "README.txt",
    "README",
];

/// The largest Makefile or `package.json` read for commands.
const MAX_MANIFEST_BYTES: u64 = 256 * 1024;

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct Bootstrap {
    /// The answer as a model reads it.
    pub text: String,
    /// Exact tokens of `text`.
    pub tokens: usize,
    pub encoding: Encoding,
    pub max_tokens: usize,
    /// Lines of the text were left out for the budget (the data below has them all).
    pub truncated: bool,
    pub instruction_files: Vec<String>,
    pub commands: Vec<DeclaredCommand>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git: Option<GitState>,
    #[serde(flatten)]
    pub facts: BootstrapFacts,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DeclaredCommand {
    pub command: String,
    /// Where it is declared, or the project kind it is the usual command of.
    pub source: String,
}

/// `interrupt`, once set, stops the git status (a large working tree's takes seconds): the
/// answer then has no git state.
pub fn bootstrap(
    system: &dyn System,
    root: &Path,
    facts: BootstrapFacts,
    budget: &Budget,
    interrupt: Arc<AtomicBool>,
) -> Bootstrap {
    let read = |rel: &str| {
        system
            .read(&root.join(rel), MAX_MANIFEST_BYTES)
            .ok()
            .map(|content| String::from_utf8_lossy(&content.bytes).into_owned())
    };
    let instruction_files: Vec<String> = INSTRUCTION_FILES
        .iter()
        .filter(|name| system.exists(&root.join(name)) && !system.is_dir(&root.join(name)))
        .map(|name| name.to_string())
        .collect();
    let commands = declared_commands(&facts, &read);
    let git = git_state(root, interrupt);
    let lines = render(root, &facts, &instruction_files, &commands, git.as_ref());
    let (text, truncated) = fit(lines, budget);
    Bootstrap {
        tokens: budget.encoding.count(&text),
        text,
        encoding: budget.encoding,
        max_tokens: budget.max_tokens,
        truncated,
        instruction_files,
        commands,
        git,
        facts,
    }
}

/// The commands the Makefile and the root `package.json` declare, and the usual ones of
/// the project kinds present.
fn declared_commands(
    facts: &BootstrapFacts,
    read: &dyn Fn(&str) -> Option<String>,
) -> Vec<DeclaredCommand> {
    let mut commands = Vec::new();
    let mut add = |command: String, source: &str| {
        if !commands
            .iter()
            .any(|c: &DeclaredCommand| c.command == command)
        {
            commands.push(DeclaredCommand {
                command,
                source: source.to_string(),
            });
        }
    };
    let has = |kind: ProjectKind| facts.projects.iter().any(|p| p.kind == kind);
    if has(ProjectKind::Cargo) || has(ProjectKind::CargoWorkspace) {
        for command in ["cargo build", "cargo test", "cargo clippy --all-targets"] {
            add(command.into(), "Cargo.toml");
        }
    }
    if has(ProjectKind::GoModule) || has(ProjectKind::GoWork) {
        for command in ["go build ./...", "go test ./...", "go vet ./..."] {
            add(command.into(), "go.mod");
        }
    }
    if let Some(package) =
        read("package.json").and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        && let Some(scripts) = package.get("scripts").and_then(|s| s.as_object())
    {
        for name in scripts.keys().take(crate::ide::MAX_BOOTSTRAP_LISTED) {
            add(format!("npm run {name}"), "package.json");
        }
    }
    let pytest_configured = read("pytest.ini").is_some()
        || read("pyproject.toml").is_some_and(|t| t.contains("[tool.pytest"))
        || read("setup.cfg").is_some_and(|t| t.contains("[tool:pytest]"))
        || read("tox.ini").is_some_and(|t| t.contains("[pytest]"));
    if pytest_configured {
        add("python -m pytest".into(), "pytest configuration");
    }
    if let Some(makefile) = read("Makefile").or_else(|| read("makefile")) {
        for target in make_targets(&makefile)
            .into_iter()
            .take(crate::ide::MAX_BOOTSTRAP_LISTED)
        {
            add(format!("make {target}"), "Makefile");
        }
    }
    commands
}

/// A Makefile's explicit targets, in order: `name:` at the start of a line, not a special
/// target (`.PHONY`), a pattern (`%.o`) or a variable assignment (`X := 1`).
fn make_targets(makefile: &str) -> Vec<String> {
    let mut targets: Vec<String> = Vec::new();
    for line in makefile.lines() {
        let Some((names, rest)) = line.split_once(':') else {
            continue;
        };
        if line.starts_with(['\t', ' ', '.', '#']) || rest.starts_with('=') {
            continue;
        }
        for name in names.split_whitespace() {
            let plain = name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_/".contains(c));
            if plain && !targets.iter().any(|t| t == name) {
                targets.push(name.to_string());
            }
        }
    }
    targets
}

/// `Git: branch main at 1a2b3c4, 2 changed, 1 untracked (a.py, b.py, c.py)`.
fn git_line(git: &GitState) -> String {
    let mut line = match (&git.branch, &git.commit) {
        (Some(branch), Some(commit)) => format!("Git: branch {branch} at {commit}"),
        (Some(branch), None) => format!("Git: branch {branch}, no commit yet"),
        (None, Some(commit)) => format!("Git: detached at {commit}"),
        (None, None) => "Git: no commit".to_string(),
    };
    match git.dirty {
        false => line.push_str(", clean"),
        true => {
            line.push_str(&format!(
                ", {} changed, {} untracked",
                git.changed, git.untracked
            ));
            let more = git.changed + git.untracked - git.listed.len();
            let more = match more {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            line.push_str(&format!(" ({}{more})", git.listed.join(", ")));
        }
    }
    line
}

fn render(
    root: &Path,
    facts: &BootstrapFacts,
    instruction_files: &[String],
    commands: &[DeclaredCommand],
    git: Option<&GitState>,
) -> Vec<String> {
    let files: usize = facts.languages.iter().map(|l| l.files).sum();
    let lines: usize = facts.languages.iter().map(|l| l.lines).sum();
    let mut out = vec![format!(
        "Workspace {}: {files} files, {lines} lines",
        root.display()
    )];
    if let Some(git) = git {
        out.push(git_line(git));
    }
    let languages: Vec<String> = facts
        .languages
        .iter()
        .map(|l| format!("{} ({} files, {} lines)", l.language, l.files, l.lines))
        .collect();
    out.push(format!("Languages: {}", languages.join(", ")));
    if !instruction_files.is_empty() {
        out.push(format!("Read first: {}", instruction_files.join(", ")));
    }
    section(
        &mut out,
        "Projects",
        facts.projects.iter().map(|p| {
            let name = p.name.as_deref().map_or(String::new(), |n| format!(" {n}"));
            format!("{}{name} at {} ({})", p.kind.as_str(), p.root, p.manifest)
        }),
    );
    section(
        &mut out,
        "Commands",
        commands
            .iter()
            .map(|c| format!("{} ({})", c.command, c.source)),
    );
    let more = facts.entry_points_total - facts.entry_points.len();
    let heading = match more {
        0 => "Entry points".to_string(),
        _ => format!("Entry points ({} in all)", facts.entry_points_total),
    };
    section(
        &mut out,
        &heading,
        facts.entry_points.iter().map(|e| match &e.command {
            Some(command) => format!("{} ({} `{command}`)", e.path, e.kind),
            None => format!("{} ({})", e.path, e.kind),
        }),
    );
    section(
        &mut out,
        "Layout",
        facts.layout.iter().map(|d| {
            let path = match d.path.as_str() {
                "." => "(root)".to_string(),
                dir => format!("{dir}/"),
            };
            format!(
                "{path} {} files, {} lines, mostly {}",
                d.files, d.lines, d.language
            )
        }),
    );
    section(
        &mut out,
        "Most imported",
        facts
            .most_imported
            .iter()
            .map(|f| format!("{} ({} importers)", f.path, f.importers)),
    );
    out
}

fn section(out: &mut Vec<String>, heading: &str, items: impl Iterator<Item = String>) {
    let items: Vec<String> = items.map(|item| format!("  {item}")).collect();
    if !items.is_empty() {
        out.push(format!("{heading}:"));
        out.extend(items);
    }
}

/// The lines joined, as many from the start as fit in the budget with a last line saying
/// how many were left out.
fn fit(lines: Vec<String>, budget: &Budget) -> (String, bool) {
    let whole: String = lines.iter().map(|l| format!("{l}\n")).collect();
    if budget.admits(&whole) {
        return (whole, false);
    }
    let cut = |n: usize| {
        let mut text: String = lines[..n].iter().map(|l| format!("{l}\n")).collect();
        text.push_str(&format!(
            "({} more lines left out for the budget)\n",
            lines.len() - n
        ));
        text
    };
    let (mut low, mut high) = (0, lines.len().saturating_sub(1));
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if budget.admits(&cut(mid)) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    match budget.admits(&cut(low)) {
        true => (cut(low), true),
        false => (String::new(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn make_targets_are_plain_names_at_line_starts() {
        let makefile = ".PHONY: all test\nall: build\nbuild test: deps\n\tcc -o x x.c\nCC := gcc\n%.o: %.c\nlint:\n# note: x\n";
        assert_eq!(make_targets(makefile), ["all", "build", "test", "lint"]);
    }
}
