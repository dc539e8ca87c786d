//! The imports of one file and where each leads.

use serde::Serialize;

use super::Span;
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        self,
        imports::{Target, resolve},
        symbols::file_symbols,
    },
};

/// One imported module or name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct ImportInfo {
    /// The module as written: `a.b`, or relative `..a` / `.`.
    pub module: String,
    /// The name imported from the module; absent for `import module`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The local name given with `as`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// `from module import *`.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub wildcard: bool,
    /// Also a public re-export (`pub use`, `export … from`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_public: bool,
    /// Names types only (TypeScript's `import type`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub type_only: bool,
    /// The whole import statement.
    pub span: Span,
    #[serde(flatten)]
    pub status: ImportStatus,
}

/// Where an import leads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ImportStatus {
    /// A workspace file; with the named definition's name when the file defines it.
    Resolved {
        path: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        definition: Option<Span>,
    },
    /// Outside the workspace: the standard library's (or the runtime's built-in) `package`,
    /// or a dependency a manifest lists.
    External { package: String },
    /// Nothing in the workspace, the standard library or the listed dependencies matches.
    Unresolved,
}

impl ImportInfo {
    /// The import as a short phrase: `module`, `module: name`, `module: *`, `… as alias`,
    /// then ` (public)` and ` (type)` when so.
    pub fn describe(&self) -> String {
        let mut what = self.module.clone();
        if let Some(name) = &self.name {
            what = format!("{what}: {name}");
        }
        if self.wildcard {
            what.push_str(": *");
        }
        if let Some(alias) = &self.alias {
            what = format!("{what} as {alias}");
        }
        if self.is_public {
            what.push_str(" (public)");
        }
        if self.type_only {
            what.push_str(" (type)");
        }
        what
    }
}

/// Where it leads, as people read it: `path` or `path:line:column` of the definition,
/// `external (package)`, `unresolved`.
impl std::fmt::Display for ImportStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportStatus::Resolved {
                path,
                definition: Some(d),
            } => write!(f, "{path}:{}:{}", d.start.line, d.start.column),
            ImportStatus::Resolved { path, .. } => write!(f, "{path}"),
            ImportStatus::External { package } => write!(f, "external ({package})"),
            ImportStatus::Unresolved => write!(f, "unresolved"),
        }
    }
}

pub(crate) fn imports(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<ImportInfo> {
    let found = file_symbols(db, file).imports.clone();
    let index = semantic::line_index(db, file);
    found
        .summaries
        .iter()
        .zip(found.statements.iter())
        .map(|(import, &statement)| {
            let status = match resolve(db, workspace, file, import) {
                Target::Resolved {
                    file: target,
                    symbol,
                } => ImportStatus::Resolved {
                    path: target.path(db).clone(),
                    definition: symbol.map(|i| {
                        let pos = file_symbols(db, target).positions[i as usize];
                        Span::from_start(&target.text(db), pos.name_range, pos.name_start)
                    }),
                },
                Target::External { package } => ImportStatus::External { package },
                Target::Unresolved => ImportStatus::Unresolved,
            };
            ImportInfo {
                module: import.module.to_string(),
                name: import.name.as_deref().map(str::to_string),
                alias: import.alias.as_deref().map(str::to_string),
                wildcard: import.wildcard,
                is_public: import.is_public,
                type_only: import.type_only,
                span: Span::new(&index, statement),
                status,
            }
        })
        .collect()
}
