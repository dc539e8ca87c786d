//! [`CheckContext`]: what every rule reads of the file it checks, each part computed the
//! first time a rule asks for it and then shared by the rules after it, so one file's rules
//! open its tree, names and symbols once.
//!
//! Invariant (incremental): a part is computed only when a rule asks, so a file's check
//! depends on exactly the queries its rules read (a tree is parsed only for a candidate to
//! judge), as when each rule opened them itself.

use std::{cell::OnceCell, sync::Arc};

use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        file_tree,
        names::{FileNames, file_names},
        symbols::{FileSymbols, file_symbols},
    },
};

/// One file under check, and its parts as the rules ask for them.
pub struct CheckContext<'db> {
    pub db: &'db dyn Db,
    pub workspace: Workspace,
    pub file: SourceFile,
    /// The family of the file's language: what a rule matches on where languages differ.
    pub lang: Family,
    names: OnceCell<Arc<FileNames>>,
    symbols: OnceCell<Arc<FileSymbols>>,
    tree: OnceCell<Option<tree_sitter::Tree>>,
}

impl<'db> CheckContext<'db> {
    pub fn new(db: &'db dyn Db, workspace: Workspace, file: SourceFile) -> CheckContext<'db> {
        CheckContext {
            db,
            workspace,
            file,
            lang: file.lang(db).info().family,
            names: OnceCell::new(),
            symbols: OnceCell::new(),
            tree: OnceCell::new(),
        }
    }

    pub fn path(&self) -> &'db str {
        self.file.path(self.db)
    }

    pub fn text(&self) -> Arc<str> {
        self.file.text(self.db).clone()
    }

    /// The file's scopes, bindings and uses.
    pub fn names(&self) -> &Arc<FileNames> {
        self.names.get_or_init(|| file_names(self.db, self.file))
    }

    /// The file's symbols and imports.
    pub fn symbols(&self) -> &Arc<FileSymbols> {
        self.symbols
            .get_or_init(|| file_symbols(self.db, self.file))
    }

    /// The file's tree-sitter tree; `None` when the parser gave up (a rule then reports
    /// nothing it would judge from the tree).
    pub fn tree(&self) -> Option<&tree_sitter::Tree> {
        self.tree
            .get_or_init(|| file_tree(self.db, self.file))
            .as_ref()
    }

    /// The file's text and its tree's root, for a rule with a candidate to judge.
    pub fn root(&self) -> Option<(Arc<str>, tree_sitter::Node<'_>)> {
        let text = self.text();
        Some((text, self.tree()?.root_node()))
    }
}
