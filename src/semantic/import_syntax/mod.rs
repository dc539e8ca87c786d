//! Imports as a file writes them: [`ImportCollector`] gathers them from the matches of
//! `queries/<lang>/imports.scm` during the one per-file walk that also finds symbols
//! (`symbols.rs`), and `rust.rs` expands Rust's `use` trees and `mod` declarations.
//! Where the imports lead is `imports`' business, which reads them through `file_symbols`.
//!
//! Capture conventions (see `queries/README.md`): `@import` the statement, `@module` the
//! module as written (`a.b`; Python's relative `..a` and `.` included), `@name` a name
//! imported from it, `@alias` the local name given with `as`, `@wildcard` for `*`,
//! `@public` when the import is also a public re-export (`pub use`, `export … from`),
//! `@default` for a module's default export (the name is `default`), `@type_only` for
//! TypeScript's `import type`. When several patterns match one import, the earliest wins;
//! a match naming only the module is dropped when a match with a larger statement names
//! more of the same module node (`require("m")` inside `const {a} = require("m")`). A
//! match with neither `@import` nor `@module` is a member: an item of the statement of
//! the module-only match that holds it (an `export {a, b} from "m"` with thousands of
//! names, matched name by name, not in one pattern per name: see `queries/README.md`).
//! Rust's `@use_tree` and `@mod_name` are made into imports by `rust.rs`.

mod rust;

use std::{collections::HashMap, sync::Arc};

use serde::Serialize;

use crate::{
    semantic::small_text::SmallText,
    syntax::{TextRange, TextSize},
};

/// One imported module or name, as written, without positions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub struct ImportSummary {
    /// The module as written: `a.b`, or relative `..a` / `.`.
    pub module: SmallText,
    /// The name imported from the module (`from m import name`); none for `import m`.
    pub name: Option<SmallText>,
    /// The local name given with `as`.
    pub alias: Option<SmallText>,
    /// `from m import *`.
    pub wildcard: bool,
    /// Also a public re-export (`pub use`, `export … from`).
    pub is_public: bool,
    /// Names types only (TypeScript's `import type`, `import {type T}`).
    pub type_only: bool,
    /// Rust: the inline modules around the import in its file (`tests` for
    /// `mod tests { use super::*; }`), which `self` and `super` count from.
    pub within: Option<SmallText>,
}

// Every import of the workspace is kept for the whole session (96,000 on a tree of 150 MB
// of text): `SmallText` keeps nearly all their strings inline, without allocations.
const _: () = assert!(size_of::<ImportSummary>() == 104);

impl ImportSummary {
    /// Names only the module: no name, alias or wildcard (`import "m"`, `require("m")`).
    fn is_bare(&self) -> bool {
        self.name.is_none() && self.alias.is_none() && !self.wildcard
    }
}

/// The imports of one file and their statements' ranges, in document order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FileImports {
    pub summaries: Arc<[ImportSummary]>,
    /// The whole statement of each import (several imports may share one).
    pub statements: Arc<[TextRange]>,
}

/// Gathers the imports of one file from the matches of its imports patterns.
#[derive(Default)]
pub(crate) struct ImportCollector {
    found: Vec<Found>,
    /// Matches without `@import` and `@module`: items of a statement matched on its own.
    members: Vec<Member>,
}

struct Found {
    /// (statement start, item start) orders the imports as written.
    order: (usize, usize),
    pattern: usize,
    /// Where the module node starts.
    module: usize,
    summary: ImportSummary,
    statement: TextRange,
}

struct Member {
    /// Where the item starts.
    at: usize,
    pattern: usize,
    summary: ImportSummary,
}

impl ImportCollector {
    /// Records one match of an imports pattern; `names` are the query's capture names.
    pub(crate) fn add(&mut self, m: &tree_sitter::QueryMatch<'_, '_>, names: &[&str], text: &str) {
        // Token boundaries are character boundaries; `get` keeps a surprise from panicking.
        let node_text = |node: tree_sitter::Node| {
            SmallText::new(text.get(node.byte_range()).unwrap_or_default())
        };
        let (mut statement, mut module, mut item) = (None, None, None);
        // Rust: a `use` tree and a `mod name;`, made into imports by `rust.rs`.
        let (mut use_tree, mut mod_name) = (None, None);
        let mut summary = ImportSummary::default();
        for capture in m.captures() {
            let node = capture.node;
            match names[capture.index as usize] {
                "import" => statement = Some(node),
                "module" => {
                    module = Some(node);
                    summary.module = node_text(node);
                }
                "name" => {
                    item = Some(node);
                    summary.name = Some(node_text(node));
                }
                "alias" => summary.alias = Some(node_text(node)),
                "wildcard" => {
                    item = Some(node);
                    summary.wildcard = true;
                }
                "default" => {
                    item = Some(node);
                    summary.name = Some(SmallText::new("default"));
                }
                "public" => summary.is_public = true,
                "type_only" => summary.type_only = true,
                "use_tree" => use_tree = Some(node),
                "mod_name" => mod_name = Some(node),
                _ => {}
            }
        }
        if let Some(statement) = statement {
            let expanded = match (use_tree, mod_name) {
                (Some(tree), _) => Some(rust::use_tree_imports(statement, tree, text)),
                (None, Some(name)) => Some(vec![rust::mod_declaration(statement, name, text)]),
                (None, None) => None,
            };
            if let Some(expanded) = expanded {
                let range = TextRange::new(
                    (statement.start_byte() as u32).into(),
                    (statement.end_byte() as u32).into(),
                );
                for (found, at) in expanded {
                    self.found.push(Found {
                        order: (statement.start_byte(), at),
                        pattern: m.pattern_index,
                        // Each import of a tree is its own: none is a bare duplicate.
                        module: at,
                        summary: ImportSummary {
                            is_public: summary.is_public,
                            ..found
                        },
                        statement: range,
                    });
                }
                return;
            }
        }
        let (Some(statement), Some(module)) = (statement, module) else {
            if let (None, None, Some(item)) = (statement, module, item) {
                self.members.push(Member {
                    at: item.start_byte(),
                    pattern: m.pattern_index,
                    summary,
                });
            }
            return;
        };
        let at = item.unwrap_or(module).start_byte();
        let range = TextRange::new(
            (statement.start_byte() as u32).into(),
            (statement.end_byte() as u32).into(),
        );
        self.found.push(Found {
            order: (statement.start_byte(), at),
            pattern: m.pattern_index,
            module: module.start_byte(),
            summary,
            statement: range,
        });
    }

    pub(crate) fn finish(mut self) -> FileImports {
        self.found.sort_by_key(|f| (f.order, f.pattern));
        self.found.dedup_by_key(|f| f.order);
        self.join_members();
        // The widest statement that names something of each module node.
        let mut widest: HashMap<usize, TextSize> = HashMap::new();
        for f in self.found.iter().filter(|f| !f.summary.is_bare()) {
            let len = widest.entry(f.module).or_default();
            *len = (*len).max(f.statement.len());
        }
        self.found.retain(|f| {
            !f.summary.is_bare()
                || widest
                    .get(&f.module)
                    .is_none_or(|&w| w <= f.statement.len())
        });
        let (summaries, statements): (Vec<ImportSummary>, Vec<TextRange>) = self
            .found
            .into_iter()
            .map(|f| (f.summary, f.statement))
            .unzip();
        FileImports {
            summaries: summaries.into(),
            statements: statements.into(),
        }
    }

    /// Each member joins the match naming only a module whose statement holds it (the
    /// latest to start before it): it takes that module, statement and flags, and the
    /// match it joined is dropped. Members inside no such statement are dropped.
    fn join_members(&mut self) {
        if self.members.is_empty() {
            return;
        }
        // `found` is sorted by statement start; the bare ones, by their index there.
        let bare: Vec<usize> = (0..self.found.len())
            .filter(|&i| self.found[i].summary.is_bare())
            .collect();
        let mut joined = vec![false; self.found.len()];
        let mut members = std::mem::take(&mut self.members);
        members.sort_by_key(|m| (m.at, m.pattern));
        members.dedup_by_key(|m| m.at);
        let mut added = Vec::new();
        for member in members {
            let before = bare.partition_point(|&i| self.found[i].order.0 <= member.at);
            let Some(&host) = before.checked_sub(1).and_then(|b| bare.get(b)) else {
                continue;
            };
            let statement = &self.found[host];
            if !statement
                .statement
                .contains(TextSize::new(member.at as u32))
            {
                continue;
            }
            joined[host] = true;
            let mut summary = member.summary;
            summary.module.clone_from(&statement.summary.module);
            summary.is_public |= statement.summary.is_public;
            summary.type_only |= statement.summary.type_only;
            added.push(Found {
                order: (statement.order.0, member.at),
                pattern: member.pattern,
                module: statement.module,
                summary,
                statement: statement.statement,
            });
        }
        let mut index = 0;
        self.found.retain(|_| {
            index += 1;
            !joined[index - 1]
        });
        self.found.extend(added);
        self.found.sort_by_key(|f| (f.order, f.pattern));
        self.found.dedup_by_key(|f| f.order);
    }
}
