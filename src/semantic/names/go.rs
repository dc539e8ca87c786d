//! Go name rules the locals query cannot say: the predeclared identifiers
//! (`grammars/go-predeclared.txt`), the package a file belongs to (its directory and its
//! `package` clause: the package block spans those files), the name an unnamed import
//! binds (the imported package's own name), and the methods declared on a type (method
//! declarations name their receiver's type; they may sit in any file of the package). A
//! Go local is seen only after its declaration.
//!
//! The resolver's Go steps are here too: a name the file's top scope does not bind comes
//! from the rest of the package block or a package import, methods belong to their
//! receiver's type in any file of the package, and what a function or method declares as
//! its result is an instance of that type.
//!
//! Invariant: everything here reads a file's text or its [`FileNames`]; which files form a
//! package is decided by directory (`go_packages`) and `package` clause alone, so `foo` and
//! `foo_test` in one directory are two packages. Each resolver step answers for Go files
//! only (empty for others), and like the rest of the resolver reads only `FileNames`,
//! `file_symbols` and import resolution of the current revision.

use std::{
    collections::HashSet,
    sync::{Arc, LazyLock},
};

use super::{
    BindingKind, FileNames, NameRules, OccurrenceId, Role, ScopeId,
    identifiers::file_identifiers,
    resolve::{MAX_DEPTH, Namespace, Resolver, Target, is_star_import, push_unique},
    spaces::Space,
};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        imports::{self, ImportSummary, go_packages},
        projects::paths,
        symbols::file_symbols,
    },
};

/// Go's [`NameRules`].
pub struct GoNames;

impl NameRules for GoNames {
    fn predeclared_module(&self) -> &'static str {
        PREDECLARED_MODULE
    }

    fn is_predeclared(&self, name: &str) -> bool {
        is_predeclared(name)
    }

    fn is_module_attribute(&self, _name: &str) -> bool {
        false
    }

    /// The alias, else the imported name, else the path as written, as in Python (the
    /// package name an unnamed import binds is [`Resolver::package_scope`]'s).
    fn local_name<'i>(&self, import: &'i ImportSummary) -> &'i str {
        super::python::local_name(import)
    }

    fn first_parameter_is_receiver(&self) -> bool {
        false
    }

    fn declared_in_order(&self) -> bool {
        true
    }

    /// Types and values share one namespace.
    fn keeps_types_apart(&self) -> bool {
        false
    }

    /// A method's references are its own.
    fn counts_member_families(&self) -> bool {
        false
    }

    /// A method's name is its declaration.
    fn counts_member_assignments(&self) -> bool {
        false
    }

    fn initializer(&self) -> Option<&'static str> {
        None
    }
}

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

/// The name in a Go file's `package` clause, memoized: resolving a name asks it of every
/// file of a package, and reading it again would decompress each text (`StoredText`).
#[salsa::tracked(returns(clone))]
pub fn package_clause(db: &dyn Db, file: SourceFile) -> Option<Arc<str>> {
    package_name(&file.text(db)).map(Arc::from)
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
    let package = package_clause(db, file);
    let mentions = |f: SourceFile| file_identifiers(db, f).contains(name);
    go_packages(db, workspace)
        .files(dir)
        .iter()
        .copied()
        .filter(|&f| mentions(f))
        .filter(|&f| f == file || package_clause(db, f) == package)
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
                .get()
                .is_some_and(|receiver| names.name(receiver) == type_name)
    })
}

impl Resolver<'_> {
    /// Go: a name `file`'s own top scope does not bind, from the rest of the package block
    /// and the file's imports: a package imported without a name (by the package's own
    /// name), the other files of its package, and the packages it dot-imports.
    pub(super) fn package_scope(
        &mut self,
        file: SourceFile,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        if !is_go(self.db, file) || depth > MAX_DEPTH {
            return Vec::new();
        }
        let mut found = Vec::new();
        let imports = file_symbols(self.db, file).imports.summaries.clone();
        for import in imports.iter().filter(|i| i.alias.is_none() && !i.wildcard) {
            match imports::resolve(self.db, self.workspace, file, import) {
                imports::Target::Resolved { file: package, .. }
                    if package_clause(self.db, package).as_deref() == Some(&**name) =>
                {
                    push_unique(&mut found, Target::Module(package));
                }
                imports::Target::External { .. } if import_name(&import.module) == &**name => {
                    push_unique(
                        &mut found,
                        Target::External {
                            module: import.module.to_string(),
                            name: None,
                        },
                    );
                }
                _ => {}
            }
        }
        if !found.is_empty() {
            return found;
        }
        let mut packages = vec![file];
        for import in imports.iter().filter(|i| is_star_import(i)) {
            if let imports::Target::Resolved { file: package, .. } =
                imports::resolve(self.db, self.workspace, file, import)
            {
                packages.push(package);
            }
        }
        for package in packages {
            for other in package_files(self.db, self.workspace, package, name) {
                if other == file {
                    continue;
                }
                // Imports belong to their file, not to the package.
                let names = self.names(other);
                let declared = names
                    .bindings(0, name)
                    .iter()
                    .any(|&b| names.occurrence(b).role != Role::Definition(BindingKind::Import));
                if declared {
                    push_unique(
                        &mut found,
                        Target::Symbol {
                            file: other,
                            scope: 0,
                            name: name.clone(),
                            space: Space::All,
                        },
                    );
                }
            }
        }
        found
    }

    /// Go: what calling the methods called `name` of the type whose scope is `class`
    /// gives, from the result types they declare (`c.Root().Name()`).
    pub(super) fn go_method_results(
        &mut self,
        file: SourceFile,
        class: ScopeId,
        name: &str,
        depth: u32,
    ) -> Vec<Namespace> {
        let mut found = Vec::new();
        for (site_file, site) in self.go_methods(file, class, name) {
            if let Some(result) = self.names(site_file).occurrence(site).constructor.get() {
                for namespace in self.namespaces_of(site_file, result, depth) {
                    push_unique(&mut found, namespace);
                }
            }
        }
        found
    }

    /// Go: the declarations of the methods called `name` on the package-level type whose
    /// scope is `class`, in every file of its package.
    pub(super) fn go_methods(
        &mut self,
        file: SourceFile,
        class: ScopeId,
        name: &str,
    ) -> Vec<(SourceFile, OccurrenceId)> {
        let names = self.names(file);
        let scope = &names.scopes[class as usize];
        let (Some(type_name), Some(0)) = (scope.named_by, scope.parent) else {
            return Vec::new();
        };
        if !is_go(self.db, file) {
            return Vec::new();
        }
        let type_name = names.name(type_name);
        let mut sites = Vec::new();
        for other in package_files(self.db, self.workspace, file, name) {
            let names = self.names(other);
            sites.extend(methods(&names, type_name, name).map(|m| (other, m)));
        }
        sites
    }

    /// Go: what a value of the type at `written` is (`x := C{}`, `p *C`, a function
    /// returning `*C`): instances of a workspace type, or of a type from outside the
    /// workspace, whose members are that package's (`p *pflag.Flag`).
    pub(super) fn go_instances(
        &mut self,
        file: SourceFile,
        written: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        self.namespaces_of(file, written, depth)
            .into_iter()
            .filter(|n| matches!(n, Namespace::Class { .. } | Namespace::External(_)))
            .collect()
    }
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
