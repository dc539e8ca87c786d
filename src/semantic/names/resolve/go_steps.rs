//! The resolver's Go steps (`import_style = "go-package"`): a package's block spans the
//! files of its directory with one `package` clause, a file's imports bind package names,
//! methods belong to their receiver's type in any file of the package, and what a function
//! or method declares as its result is an instance of that type. A Go local is seen only
//! after its declaration.
//!
//! Invariant: each step answers for Go files only (empty or `false` for others), so the
//! other languages' resolution is unchanged; like the rest of the resolver, it reads only
//! `FileNames`, `file_symbols` and import resolution of the current revision.

use std::sync::Arc;

use super::{MAX_DEPTH, Namespace, Resolver, Target, is_star_import, push_unique};
use crate::{
    db::SourceFile,
    semantic::{
        imports,
        names::{BindingKind, OccurrenceId, Role, ScopeId, go},
        symbols::file_symbols,
    },
};

impl Resolver<'_> {
    /// Whether a name of `scope` is seen only after its declaration: a Go function's or
    /// block's (package-level names are seen everywhere in the package).
    pub(super) fn declared_in_order(&self, file: SourceFile, scope: ScopeId) -> bool {
        scope != 0 && go::is_go(self.db, file)
    }

    /// Go: a name `file`'s own top scope does not bind, from the rest of the package block
    /// and the file's imports: a package imported without a name (by the package's own
    /// name), the other files of its package, and the packages it dot-imports.
    pub(super) fn package_scope(
        &mut self,
        file: SourceFile,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        if !go::is_go(self.db, file) || depth > MAX_DEPTH {
            return Vec::new();
        }
        let mut found = Vec::new();
        let imports = file_symbols(self.db, file).imports.summaries.clone();
        for import in imports.iter().filter(|i| i.alias.is_none() && !i.wildcard) {
            match imports::resolve(self.db, self.workspace, file, import) {
                imports::Target::Resolved { file: package, .. }
                    if go::package_name(package.text(self.db)) == Some(&**name) =>
                {
                    push_unique(&mut found, Target::Module(package));
                }
                imports::Target::External { .. } if go::import_name(&import.module) == &**name => {
                    push_unique(
                        &mut found,
                        Target::External {
                            module: import.module.clone(),
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
            for other in go::package_files(self.db, self.workspace, package, name) {
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
            if let Some(result) = self.names(site_file).occurrence(site).constructor {
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
        if !go::is_go(self.db, file) {
            return Vec::new();
        }
        let type_name = names.name(type_name);
        let mut sites = Vec::new();
        for other in go::package_files(self.db, self.workspace, file, name) {
            let names = self.names(other);
            sites.extend(go::methods(&names, type_name, name).map(|m| (other, m)));
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
