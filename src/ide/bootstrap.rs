//! What a new agent session needs to know of a workspace, from the index: languages and
//! sizes, projects, the top-level layout, entry points and the most imported files.
//! (`workspace::bootstrap` adds what only the disk knows: instruction files, commands, git.)
//!
//! Invariant: every fact comes from the database of one revision; lists are bounded
//! (`MAX_LISTED`) and say how many there are in all.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::{Direction, Granularity, GraphQuery, LanguageStats, ProjectKind};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::symbols::{SymbolKind, file_symbols},
};

/// Entry point kinds, most telling first.
const ENTRY_KINDS: [&str; 7] = [
    "rust binary",
    "go main package",
    "console script",
    "npm bin",
    "npm main",
    "python -m",
    "python script",
];

/// The most entries of any list.
pub const MAX_LISTED: usize = 15;

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct BootstrapFacts {
    pub languages: Vec<LanguageStats>,
    pub projects: Vec<ProjectSummary>,
    /// Top-level directories (and `.` for files at the root), each with its files and
    /// main language.
    pub layout: Vec<DirectorySummary>,
    pub entry_points: Vec<EntryPoint>,
    pub entry_points_total: usize,
    /// The files most other files import, most imported first.
    pub most_imported: Vec<ImportedFile>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct ProjectSummary {
    pub kind: ProjectKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub root: String,
    pub manifest: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DirectorySummary {
    pub path: String,
    pub files: usize,
    pub lines: usize,
    /// The language most of its lines are in.
    pub language: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct EntryPoint {
    pub path: String,
    /// What makes it one: `rust binary`, `go main package`, `console script` (a Python
    /// project's `[project.scripts]`), `npm bin`, `npm main`, `python -m`, `python script`.
    pub kind: String,
    /// The command a manifest declares it as (a Cargo `[[bin]]`, an npm `bin`, a Python
    /// script), with a console script's `module:function`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportedFile {
    pub path: String,
    /// Workspace files importing it.
    pub importers: usize,
}

pub(crate) fn bootstrap_facts(db: &dyn Db, workspace: Workspace) -> BootstrapFacts {
    let files = workspace.files(db);
    let projects: Vec<ProjectSummary> = crate::semantic::projects::projects(db, workspace)
        .iter()
        .map(|p| ProjectSummary {
            kind: p.kind,
            name: p.name.clone(),
            root: p.root.clone(),
            manifest: p.manifest.clone(),
        })
        .collect();
    let mut entry_points: Vec<EntryPoint> = files
        .iter()
        .filter_map(|&file| entry_point(db, file))
        .collect();
    for project in crate::semantic::projects::projects(db, workspace).iter() {
        if let Some(main) = project.npm.as_ref().and_then(|npm| npm.main.as_ref()) {
            let path = match project.root.as_str() {
                "." => main.trim_start_matches("./").to_string(),
                root => format!("{root}/{}", main.trim_start_matches("./")),
            };
            entry_points.push(EntryPoint {
                path,
                kind: "npm main".into(),
                command: None,
            });
        }
    }
    for declared in declared_entry_points(db, workspace) {
        match entry_points
            .iter_mut()
            .find(|e| e.path == declared.path && e.kind == declared.kind)
        {
            Some(found) => found.command = declared.command,
            None => entry_points.push(declared),
        }
    }
    // Programs before scripts: a binary or a main package says what the project is.
    entry_points.sort_by_key(|e| {
        (
            ENTRY_KINDS.iter().position(|k| *k == e.kind),
            e.path.clone(),
        )
    });
    let entry_points_total = entry_points.len();
    entry_points.truncate(MAX_LISTED);
    BootstrapFacts {
        languages: super::stats::workspace_stats(db, workspace).languages,
        projects,
        layout: layout(db, files),
        entry_points,
        entry_points_total,
        most_imported: most_imported(db, workspace),
    }
}

/// Each top-level directory's files, lines and main language, largest first.
fn layout(db: &dyn Db, files: &[SourceFile]) -> Vec<DirectorySummary> {
    let mut dirs: BTreeMap<&str, (usize, HashMap<&str, usize>)> = BTreeMap::new();
    for &file in files {
        let path = file.path(db);
        let top = path.split_once('/').map_or(".", |(top, _)| top);
        let lines = super::stats::line_count(db, file);
        let entry = dirs.entry(top).or_default();
        entry.0 += 1;
        *entry.1.entry(file.lang(db).info().id.as_str()).or_default() += lines;
    }
    let mut layout: Vec<DirectorySummary> = dirs
        .into_iter()
        .map(|(path, (files, by_language))| {
            let (language, _) = by_language
                .iter()
                .max_by_key(|(language, lines)| (**lines, std::cmp::Reverse(**language)))
                .map(|(l, n)| (l.to_string(), *n))
                .unwrap_or_default();
            DirectorySummary {
                path: path.to_string(),
                files,
                lines: by_language.values().sum(),
                language,
            }
        })
        .collect();
    layout.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.path.cmp(&b.path)));
    layout
}

/// Why `file` is an entry point, if it is one.
fn entry_point(db: &dyn Db, file: SourceFile) -> Option<EntryPoint> {
    let path = file.path(db);
    let name = path.rsplit('/').next().unwrap_or(path);
    let text = file.text(db);
    let kind = match file.lang(db).info().family {
        Family::Rust => (name == "main.rs" && path.ends_with("src/main.rs")
            || path.contains("src/bin/"))
        .then_some("rust binary"),
        Family::Go => (text.lines().any(|l| l.trim() == "package main")
            && defines_function(db, file, "main"))
        .then_some("go main package"),
        Family::Python if name == "__main__.py" => Some("python -m"),
        Family::Python => (text.contains("__name__ == \"__main__\"")
            || text.contains("__name__ == '__main__'"))
        .then_some("python script"),
        Family::Ecma { .. } => None,
    }?;
    Some(EntryPoint {
        path: path.clone(),
        kind: kind.into(),
        command: None,
    })
}

/// The programs the manifests declare (the projects' Cargo `[[bin]]`s, npm `bin`s and
/// Python scripts, their modules resolved to files), each where it is a workspace file.
fn declared_entry_points(db: &dyn Db, workspace: Workspace) -> Vec<EntryPoint> {
    let indexed: std::collections::HashSet<&str> = workspace
        .files(db)
        .iter()
        .map(|f| f.path(db).as_str())
        .collect();
    let modules = crate::semantic::imports::python_modules(db, workspace);
    let mut found = Vec::new();
    for project in crate::semantic::projects::projects(db, workspace).iter() {
        let cargo = project.cargo.iter().flat_map(|c| &c.bins);
        let npm = project.npm.iter().flat_map(|n| &n.bins);
        let paths = cargo
            .map(|bin| (bin, bin.target.clone(), "rust binary"))
            .chain(npm.map(|bin| (bin, bin.target.clone(), "npm bin")));
        let scripts = project.python.iter().flat_map(|p| &p.scripts);
        let modules = scripts.filter_map(|script| {
            let module = modules.module(script.target.split(':').next()?.trim())?;
            Some((script, module.path(db).clone(), "console script"))
        });
        for (program, path, kind) in paths.chain(modules) {
            if indexed.contains(path.as_str()) {
                let command = match kind {
                    "console script" => format!("{}: {}", program.command, program.target),
                    _ => program.command.clone(),
                };
                found.push(EntryPoint {
                    path,
                    kind: kind.into(),
                    command: Some(command),
                });
            }
        }
    }
    found
}

fn defines_function(db: &dyn Db, file: SourceFile, name: &str) -> bool {
    file_symbols(db, file)
        .summaries
        .iter()
        .any(|s| s.kind == SymbolKind::Function && s.name == name && s.container.is_none())
}

/// The files imported by the most other workspace files.
fn most_imported(db: &dyn Db, workspace: Workspace) -> Vec<ImportedFile> {
    let query = GraphQuery {
        file: None,
        direction: Direction::Dependencies,
        depth: 0,
        granularity: Granularity::File,
        external: false,
        limit: usize::MAX,
    };
    let graph = super::import_graph::import_graph_view(db, workspace, &query);
    let mut importers: HashMap<u32, usize> = HashMap::new();
    for edge in &graph.edges {
        if edge.from != edge.to {
            *importers.entry(edge.to).or_default() += 1;
        }
    }
    let mut ranked: Vec<ImportedFile> = importers
        .into_iter()
        .map(|(node, count)| ImportedFile {
            path: graph.nodes[node as usize].path.clone(),
            importers: count,
        })
        .collect();
    ranked.sort_by(|a, b| b.importers.cmp(&a.importers).then(a.path.cmp(&b.path)));
    ranked.truncate(MAX_LISTED);
    ranked
}
