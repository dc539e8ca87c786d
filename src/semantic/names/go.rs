//! Go name rules the locals query cannot say: the predeclared identifiers
//! (`grammars/go-predeclared.txt`), the package a file belongs to (its directory and its
//! `package` clause: the package block spans those files), the name an unnamed import
//! binds (the imported package's own name), and the methods declared on a type (method
//! declarations name their receiver's type; they may sit in any file of the package).
//!
//! Invariant: everything here reads a file's text or its [`FileNames`]; which files form a
//! package is decided by directory (`go_packages`) and `package` clause alone, so `foo` and
//! `foo_test` in one directory are two packages.

use std::{collections::HashSet, sync::LazyLock};

use super::{FileNames, OccurrenceId, Role, identifiers::file_identifiers};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{imports::go_packages, projects::paths},
};

/// Where a predeclared identifier is said to come from (the Go documentation's name for
/// the universe block).
pub const PREDECLARED_MODULE: &str = "builtin";

static PREDECLARED: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/go-predeclared.txt")));

/// Names every Go file sees without declaring or importing them.
pub(super) fn is_predeclared(name: &str) -> bool {
    PREDECLARED.contains(name)
}

/// Whether `file` is a Go file.
pub fn is_go(db: &dyn Db, file: SourceFile) -> bool {
    file.lang(db).info().family == Family::Go
}

/// The name in a Go file's `package` clause (comments and blank lines before it skipped).
pub fn package_name(text: &str) -> Option<&str> {
    let mut rest = text.trim_start_matches('\u{feff}');
    loop {
        rest = rest.trim_start();
        if let Some(comment) = rest.strip_prefix("//") {
            rest = comment.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(comment) = rest.strip_prefix("/*") {
            rest = comment.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    let rest = rest.strip_prefix("package")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim_start();
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The name a package imported without a name is known by when its files cannot be read
/// (outside the workspace): its path's last element, skipping a major-version element
/// (`…/v2`) and a `.vN` suffix (`gopkg.in/yaml.v3`), without a `go-` prefix
/// (`go-isatty`), as Go's tools guess it.
pub fn import_name(path: &str) -> &str {
    let mut elements = path.rsplit('/');
    let mut last = elements.next().unwrap_or_default();
    let is_version = |e: &str| {
        e.strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    if is_version(last)
        && let Some(previous) = elements.next()
    {
        last = previous;
    }
    if let Some((stem, version)) = last.rsplit_once('.')
        && is_version(version)
    {
        last = stem;
    }
    last.strip_prefix("go-").unwrap_or(last)
}

/// The files of `file`'s package (its directory, the same `package` clause) that can
/// mention `name`, `file` included when it can.
pub fn package_files(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    name: &str,
) -> Vec<SourceFile> {
    let dir = paths::parent(file.path(db));
    let package = package_name(file.text(db));
    let mentions = |f: SourceFile| {
        file_identifiers(db, f)
            .binary_search_by(|word| (**word).cmp(name))
            .is_ok()
    };
    go_packages(db, workspace)
        .files(dir)
        .iter()
        .copied()
        .filter(|&f| mentions(f))
        .filter(|&f| f == file || package_name(f.text(db)) == package)
        .collect()
}

/// The declarations of methods called `method` on the type called `type_name` in one file
/// of its package.
pub(super) fn methods<'n>(
    names: &'n FileNames,
    type_name: &'n str,
    method: &str,
) -> impl Iterator<Item = OccurrenceId> + 'n {
    names.occurrences_named(method).filter(move |&id| {
        let occurrence = names.occurrence(id);
        occurrence.role == Role::MemberDefinition
            && occurrence
                .receiver
                .is_some_and(|receiver| names.name(receiver) == type_name)
    })
}

#[cfg(test)]
mod tests {
    use super::{import_name, package_name};

    #[test]
    fn package_clause_after_comments() {
        assert_eq!(
            package_name("// Copyright\n/* doc */\n//go:build linux\n\npackage store // x\n"),
            Some("store")
        );
        assert_eq!(package_name("package main"), Some("main"));
        assert_eq!(package_name("packages x"), None);
        assert_eq!(package_name("func f() {}"), None);
    }

    #[test]
    fn import_names_as_go_tools_guess_them() {
        assert_eq!(import_name("fmt"), "fmt");
        assert_eq!(import_name("net/http"), "http");
        assert_eq!(import_name("github.com/spf13/cobra/v2"), "cobra");
        assert_eq!(import_name("gopkg.in/yaml.v3"), "yaml");
        assert_eq!(import_name("github.com/mattn/go-isatty"), "isatty");
    }
}
