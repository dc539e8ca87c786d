//! A class member's family, for the languages whose reference search counts it
//! ([`NameRules::counts_member_families`](super::NameRules::counts_member_families),
//! TypeScript): the members of the same name in its bases, up to the first declaration, and
//! the members overriding any of them in every class derived from those, as TypeScript's
//! language service groups them (`Subject.next`, `ReplaySubject.next` and `AsyncSubject.next`
//! are one family).
//!
//! Invariant: only exact steps are taken (bases resolved through scopes and imports, classes
//! derived from a class found by resolving their written bases), and the walk is bounded by
//! [`MAX_CLASSES`], so a family is never guessed and never unbounded.

use std::{collections::HashSet, sync::Arc};

use super::{
    ScopeId,
    identifiers::identifier_index,
    resolve::{MAX_DEPTH, Namespace, Resolver, Target, push_unique},
    spaces::Space,
};
use crate::db::SourceFile;

/// How many classes one family's walk visits at most.
const MAX_CLASSES: usize = 256;

impl Resolver<'_> {
    /// `target` and, when it is a class member in a language that counts families, the
    /// members of its family.
    pub fn member_family(&mut self, target: &Target) -> Vec<Target> {
        let Target::Symbol {
            file, scope, name, ..
        } = target
        else {
            return vec![target.clone()];
        };
        if !self.rules(*file).counts_member_families()
            || !self.names(*file).scopes[*scope as usize].is_class
        {
            return vec![target.clone()];
        }
        let mut family = vec![target.clone()];
        // Up: the bases that declare the name, and theirs.
        let mut declaring = vec![(*file, *scope)];
        let mut seen: HashSet<(SourceFile, ScopeId)> = HashSet::from([(*file, *scope)]);
        let mut up = vec![(*file, *scope, 0u32)];
        while let Some((class_file, class, depth)) = up.pop() {
            if depth > MAX_DEPTH || seen.len() > MAX_CLASSES {
                break;
            }
            for base in self.base_namespaces(class_file, class, 1) {
                let Namespace::Class { file, scope } = base else {
                    continue;
                };
                if seen.insert((file, scope)) {
                    if self.binds(file, scope, name) {
                        declaring.push((file, scope));
                    }
                    up.push((file, scope, depth + 1));
                }
            }
        }
        // Down: every class derived from one that declares the name.
        let mut down = declaring.clone();
        let mut below: HashSet<(SourceFile, ScopeId)> = declaring.iter().copied().collect();
        while let Some((class_file, class)) = down.pop() {
            if below.len() > MAX_CLASSES {
                break;
            }
            for derived in self.derived_classes(class_file, class) {
                if below.insert(derived) {
                    down.push(derived);
                    if self.binds(derived.0, derived.1, name) {
                        declaring.push(derived);
                    }
                }
            }
        }
        for (file, scope) in declaring {
            push_unique(
                &mut family,
                Target::Symbol {
                    file,
                    scope,
                    name: Arc::clone(name),
                    space: Space::All,
                },
            );
        }
        family
    }

    /// Whether class `scope` of `file` declares `name` itself.
    fn binds(&mut self, file: SourceFile, scope: ScopeId, name: &str) -> bool {
        !self.names(file).bindings(scope, name).is_empty()
    }

    /// The classes whose written bases resolve to class `class` of `file`, in the files
    /// that mention its name.
    fn derived_classes(&mut self, file: SourceFile, class: ScopeId) -> Vec<(SourceFile, ScopeId)> {
        let Some(class_name) = self.names(file).scope_name(class).map(str::to_string) else {
            return Vec::new();
        };
        let index = identifier_index(self.db, self.workspace);
        let mut derived = Vec::new();
        for candidate in index.files(&class_name) {
            let names = self.names(candidate);
            let mut bases: Vec<_> = names
                .bases
                .iter()
                .flat_map(|(&named_by, bases)| bases.iter().map(move |&b| (named_by, b)))
                .filter(|&(_, base)| names.name(base) == class_name)
                .collect();
            bases.sort_unstable();
            for (named_by, base) in bases {
                let is_base = self
                    .namespaces_of(candidate, base, 1)
                    .contains(&Namespace::Class { file, scope: class });
                if is_base && let Some(scope) = names.scope_named_by(named_by) {
                    push_unique(&mut derived, (candidate, scope));
                }
            }
        }
        derived
    }
}
