//! Rust name rules the locals query cannot say: the names every module sees (the prelude,
//! primitive types and the standard library's macros, `grammars/rust-prelude.txt`) and
//! the name a `use` binds.
//!
//! The resolver's Rust steps are here too: members of a type live in its impl blocks, in
//! any file (`impl Foo { fn new() }`, `impl Trait for Foo`, and the trait's provided
//! methods); `Self` is the type an impl (or the type or trait around) is for; `crate`,
//! `self` and `super` at the start of a path name modules, counted from the inline modules
//! around them; a `use` leads where `imports::resolve` says, down to the definition it
//! names (`a::Enum::Variant`); a name no scope binds may be a crate.
//!
//! Invariant: the name rules are facts of the language, the same for every file. Each
//! resolver step answers for Rust files only (empty or `None` for others), and like the
//! rest of the resolver reads only `FileNames`, `file_symbols` and import resolution of the
//! current revision.

use std::{
    collections::HashSet,
    sync::{Arc, LazyLock},
};

use super::{
    BindingKind, FileNames, NameRules, OccurrenceId, Role, ScopeId,
    resolve::{MAX_DEPTH, Namespace, Resolver, Target, push_unique},
    spaces::Space,
};
use crate::{
    db::{Db, SourceFile},
    lang::Family,
    semantic::{
        imports::{self, ImportSummary},
        small_text::SmallText,
        symbols::file_symbols,
    },
};

/// Rust's [`NameRules`].
pub struct RustNames;

impl NameRules for RustNames {
    fn predeclared_module(&self) -> &'static str {
        PRELUDE_MODULE
    }

    fn is_predeclared(&self, name: &str) -> bool {
        is_prelude(name)
    }

    fn is_module_attribute(&self, _name: &str) -> bool {
        false
    }

    fn local_name<'i>(&self, import: &'i ImportSummary) -> &'i str {
        local_name(import)
    }

    /// `self` is a keyword.
    fn first_parameter_is_receiver(&self) -> bool {
        false
    }

    fn declared_in_order(&self) -> bool {
        false
    }

    /// Types and values share one namespace.
    fn keeps_types_apart(&self) -> bool {
        false
    }

    /// A method's references are its own.
    fn counts_member_families(&self) -> bool {
        false
    }

    /// A field is assigned, never a method.
    fn counts_member_assignments(&self) -> bool {
        false
    }

    fn initializer(&self) -> Option<&'static str> {
        None
    }
}

static PRELUDE: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/rust-prelude.txt")));

/// Where a prelude name is said to come from.
pub const PRELUDE_MODULE: &str = "std::prelude";

/// Names a module sees without defining or importing them.
pub(super) fn is_prelude(name: &str) -> bool {
    PRELUDE.contains(name)
}

/// The name a `use` (or `mod`, `extern crate`) binds where it is written: the alias, the
/// path's last name, or a one-segment path itself (`use log;`, `mod a;` is `self::a`).
pub(super) fn local_name(import: &ImportSummary) -> &str {
    if let Some(alias) = &import.alias {
        return alias;
    }
    if let Some(name) = &import.name {
        return name;
    }
    import.module.rsplit("::").next().unwrap_or_default()
}

impl Resolver<'_> {
    pub(super) fn is_rust(&self, file: SourceFile) -> bool {
        file.lang(self.db).info().family == Family::Rust
    }

    /// `crate`, `self`, `super`, `super::super` at the start of a path: the module it
    /// names (an inline module's items are found from it as members).
    pub(super) fn rust_module_path(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        occurrence: OccurrenceId,
        depth: u32,
    ) -> Vec<Target> {
        let occ = names.occurrence(occurrence);
        let module = names.path_as_written(occ);
        let import = ImportSummary {
            module: module.into(),
            within: inline_modules(names, occ.scope),
            ..ImportSummary::default()
        };
        self.follow_rust_import(file, &import, depth + 1)
            .unwrap_or_default()
    }

    /// Where a Rust import (or a path written as one) leads: a module, the definition it
    /// names (found again by its names from the module down: `Enum`, then `Variant`), or
    /// something outside the workspace; `None` when it leads nowhere known.
    pub(super) fn follow_rust_import(
        &mut self,
        file: SourceFile,
        import: &ImportSummary,
        depth: u32,
    ) -> Option<Vec<Target>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let found = match imports::resolve(self.db, self.workspace, file, import) {
            imports::Target::Resolved {
                file: found,
                symbol: Some(index),
            } => {
                let symbols = file_symbols(self.db, found);
                let mut chain: Vec<Arc<str>> = Vec::new();
                let mut at = Some(index);
                while let Some(i) = at {
                    let summary = symbols.summaries.get(i as usize)?;
                    chain.push(summary.name.as_str().into());
                    at = summary.parent();
                }
                chain.reverse();
                let (first, rest) = chain.split_first()?;
                let mut targets = self.module_name(found, first, depth + 1);
                for name in rest {
                    let namespaces = self.namespaces_of_targets(found, targets, false, depth + 1);
                    targets = Vec::new();
                    for namespace in namespaces {
                        for target in self.member(namespace, name, depth + 1) {
                            push_unique(&mut targets, target);
                        }
                    }
                }
                targets
            }
            imports::Target::Resolved {
                file: found,
                symbol: None,
            } => {
                // `use a::b` is the module `b`, unless `b` is a name `a` does not define
                // (an item made by a macro, an import that leads nowhere): then `a`'s own
                // binding of it, if any.
                let container = import.name.as_ref().map(|_| ImportSummary {
                    name: None,
                    alias: None,
                    ..import.clone()
                });
                match container.map(|c| imports::resolve(self.db, self.workspace, file, &c)) {
                    Some(imports::Target::Resolved { file: inside, .. }) if inside == found => {
                        let name: Arc<str> = import.name.as_deref().unwrap_or_default().into();
                        self.module_name(found, &name, depth + 1)
                    }
                    _ => vec![Target::Module(found)],
                }
            }
            imports::Target::External { .. } => vec![Target::External {
                module: import.module.to_string(),
                name: import.name.as_deref().map(str::to_string),
            }],
            imports::Target::Unresolved => return None,
        };
        (!found.is_empty()).then_some(found)
    }

    /// A name no scope of `file` binds and the prelude does not have: a crate (a workspace
    /// library, a dependency, `std`), as `use name;` would find it, or a variant a star
    /// import of an enum brings (`use Ordering::*`), which only a path's resolution finds.
    pub(super) fn rust_crate(&mut self, file: SourceFile, name: &str, depth: u32) -> Vec<Target> {
        let import = ImportSummary {
            module: name.into(),
            ..ImportSummary::default()
        };
        let target = if self.rust_star_imports_an_item(file) {
            imports::resolve(self.db, self.workspace, file, &import)
        } else {
            imports::rust_unbound_name(self.db, self.workspace, file, name)
        };
        match target {
            // A module (a crate's root): what following `use name;` gives, without
            // resolving it again.
            imports::Target::Resolved {
                file: found,
                symbol: None,
            } if found != file => vec![Target::Module(found)],
            imports::Target::Resolved { file: found, .. } if found != file => self
                .follow_rust_import(file, &import, depth + 1)
                .unwrap_or_default(),
            imports::Target::External { package } => vec![Target::External {
                module: package,
                name: None,
            }],
            _ => Vec::new(),
        }
    }

    /// Whether a star import of `file` leads to a definition (an enum's or a type's
    /// items) rather than a module.
    fn rust_star_imports_an_item(&self, file: SourceFile) -> bool {
        file_symbols(self.db, file)
            .imports
            .summaries
            .iter()
            .filter(|i| i.wildcard)
            .any(|i| {
                matches!(
                    imports::resolve(self.db, self.workspace, file, i),
                    imports::Target::Resolved {
                        symbol: Some(_),
                        ..
                    }
                )
            })
    }

    /// What a value is an instance of when its type (or the function that made it) is
    /// outside the workspace, in a Rust file: a capitalised name is a type (`Vec`,
    /// `std::collections::HashMap`, as Rust writes types), and a function of a type
    /// (`String::with_capacity`, `HashMap::new`) is taken to return the type. `None` for
    /// anything else (a free function's result is not known).
    pub(super) fn rust_outside_instance(
        &self,
        file: SourceFile,
        namespace: &Namespace,
    ) -> Option<Namespace> {
        let Namespace::External(path) = namespace else {
            return None;
        };
        if !self.is_rust(file) {
            return None;
        }
        let is_type = |name: &str| name.starts_with(|c: char| c.is_ascii_uppercase());
        let (owner, last) = path.rsplit_once("::").unwrap_or(("", path));
        if is_type(last) {
            return Some(namespace.clone());
        }
        let owner_last = owner.rsplit("::").next().unwrap_or_default();
        is_type(owner_last).then(|| Namespace::External(owner.into()))
    }

    /// Fields and methods are apart in Rust: a field read on an impl's instance
    /// (`self.len`) is the type's field even when the impl has a method `len`, and a call
    /// on a type's instance (`names.len()`) is a method of its impl blocks even when the
    /// type has a field `len`. The members for such a use; `None` when the usual lookup
    /// answers.
    pub(super) fn rust_member(
        &mut self,
        namespace: &Namespace,
        name: &Arc<str>,
        role: Role,
        depth: u32,
    ) -> Option<Vec<Target>> {
        let &Namespace::Class { file, scope } = namespace else {
            return None;
        };
        if !self.is_rust(file) || depth > MAX_DEPTH {
            return None;
        }
        let names = self.names(file);
        let is_field = |names: &FileNames, scope: ScopeId| {
            let bindings = names.bindings(scope, name);
            !bindings.is_empty()
                && bindings
                    .iter()
                    .all(|&b| names.occurrence(b).role == Role::Definition(BindingKind::Variable))
        };
        match role {
            Role::Member => {
                let block = names.impl_of(scope)?;
                for candidate in self.namespaces_of(file, block.self_type, depth + 1) {
                    if let Namespace::Class {
                        file: type_file,
                        scope: type_scope,
                    } = candidate
                        && is_field(&self.names(type_file), type_scope)
                    {
                        return Some(self.member(candidate, name, depth + 1));
                    }
                }
                None
            }
            Role::MemberCall if is_field(&names, scope) => {
                let methods = self.rust_associated_items(file, scope, name, depth + 1);
                (!methods.is_empty()).then_some(methods)
            }
            _ => None,
        }
    }

    /// `name` as a Rust file's star imports bring it: from the first module they reach
    /// (through star imports of star imports, depth first) that binds it. What a module
    /// reached only through another's star import gives counts only when it is in the
    /// workspace, as for other languages.
    pub(super) fn rust_star_name(
        &mut self,
        file: SourceFile,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        let reached = imports::rust_star_closure(self.db, self.workspace, file);
        for &(module, direct) in reached.iter() {
            if self.names(module).bindings(0, name).is_empty() {
                continue;
            }
            let mut found = self.module_name(module, name, depth + 1);
            if !direct {
                found.retain(|t| matches!(t, Target::Symbol { .. } | Target::Module(_)));
            }
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// `name` as a glob import of the inline module `scope` brings it in (`mod tests { use
    /// super::Token::*; … Class { … } }`), when `scope` is an inline module of a Rust file;
    /// `None` otherwise, or when none does.
    pub(super) fn rust_inline_module_glob(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        scope: ScopeId,
        name: &str,
        depth: u32,
    ) -> Option<Vec<Target>> {
        let named_by = names.scopes[scope as usize].named_by?;
        if names.occurrence(named_by).role != Role::Definition(BindingKind::Module)
            || !self.is_rust(file)
        {
            return None;
        }
        let within = inline_modules(names, scope);
        let has_glob = file_symbols(self.db, file)
            .imports
            .summaries
            .iter()
            .any(|i| i.wildcard && i.within == within);
        if !has_glob {
            return None;
        }
        let import = ImportSummary {
            module: name.into(),
            within,
            ..ImportSummary::default()
        };
        match imports::resolve(self.db, self.workspace, file, &import) {
            imports::Target::Resolved {
                symbol: Some(_), ..
            } => self.follow_rust_import(file, &import, depth + 1),
            _ => None,
        }
    }

    /// `Self` at `occurrence`: the type of the impl around it (or the type or trait whose
    /// definition it is in). `None` for other names and languages.
    pub(super) fn rust_self_type(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        occurrence: OccurrenceId,
        depth: u32,
    ) -> Option<Vec<Target>> {
        if names.name(occurrence) != "Self" || !self.is_rust(file) {
            return None;
        }
        let class = names.enclosing_class(names.occurrence(occurrence).scope)?;
        if let Some(block) = names.impl_of(class) {
            return Some(self.resolve_at(file, block.self_type, depth + 1).targets);
        }
        Some(type_defined_by(names, file, class).into_iter().collect())
    }

    /// Members of a type that its own scope does not bind, in Rust: for an impl block,
    /// those of the type it is for (and of its trait); for a type or trait, those of its
    /// impl blocks anywhere in the workspace, then the provided methods of the traits those
    /// impl blocks implement.
    pub(super) fn rust_associated_items(
        &mut self,
        file: SourceFile,
        class: ScopeId,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        if depth > MAX_DEPTH || !self.is_rust(file) {
            return Vec::new();
        }
        let names = self.names(file);
        let mut found = Vec::new();
        if let Some(block) = names.impl_of(class).cloned() {
            let here = Namespace::Class { file, scope: class };
            for namespace in self.namespaces_of(file, block.self_type, depth + 1) {
                if namespace != here {
                    for target in self.member(namespace, name, depth + 1) {
                        push_unique(&mut found, target);
                    }
                }
            }
            if found.is_empty()
                && let Some(trait_name) = block.trait_name
            {
                let namespaces = self.namespaces_of(file, trait_name, depth + 1);
                for namespace in namespaces
                    .into_iter()
                    .filter(|n| matches!(n, Namespace::Class { .. }))
                {
                    for target in self.member(namespace, name, depth + 1) {
                        push_unique(&mut found, target);
                    }
                }
            }
            return found;
        }
        let Some(ty) = type_defined_by(&names, file, class) else {
            return Vec::new();
        };
        let Target::Symbol {
            name: type_name, ..
        } = &ty
        else {
            return Vec::new();
        };
        let files = super::identifiers::identifier_index(self.db, self.workspace)
            .files(type_name)
            .to_vec();
        let mut traits: Vec<(SourceFile, OccurrenceId)> = Vec::new();
        for other in files {
            if !self.is_rust(other) || !impl_self_types(self.db, other).contains(type_name) {
                continue;
            }
            let names = self.names(other);
            for block in &names.impls {
                if names.name(block.self_type) != &**type_name
                    || !self
                        .resolve_at(other, block.self_type, depth + 1)
                        .targets
                        .contains(&ty)
                {
                    continue;
                }
                if names.bindings(block.scope, name).is_empty() {
                    traits.extend(block.trait_name.map(|t| (other, t)));
                    continue;
                }
                for target in self.follow_symbol(other, &names, block.scope, name, depth + 1) {
                    push_unique(&mut found, target);
                }
            }
        }
        if found.is_empty() {
            for (other, trait_name) in traits {
                // A trait outside the workspace may not be where the member comes from
                // (`impl Deref for Tokens` and `tokens.get(0)`): only the workspace's
                // traits are looked in.
                let namespaces = self.namespaces_of(other, trait_name, depth + 1);
                for namespace in namespaces
                    .into_iter()
                    .filter(|n| matches!(n, Namespace::Class { .. }))
                {
                    for target in self.member(namespace, name, depth + 1) {
                        push_unique(&mut found, target);
                    }
                }
            }
        }
        found
    }

    /// Rust: what a value of the type at `written` is: instances of a workspace type, or
    /// of an outside one (`Vec`, `HashMap`).
    pub(super) fn rust_instances(
        &mut self,
        file: SourceFile,
        written: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        self.namespaces_of(file, written, depth)
            .into_iter()
            .filter_map(|n| match n {
                Namespace::Class { .. } => Some(n),
                _ => self.rust_outside_instance(file, &n),
            })
            .collect()
    }
}

/// The names a Rust file's impl blocks are for (`Foo` for `impl<T> a::Foo<T>` and for
/// `impl Display for Foo`), sorted, each once. A type's members are looked for in every
/// file whose words include its name, thousands of files for `Error` in a workspace of many
/// crates; this small memo says which of them to load names for at all, since names are
/// bounded by an LRU and a file's are rebuilt (parsed again) each time after eviction.
#[salsa::tracked(returns(clone))]
pub fn impl_self_types(db: &dyn Db, file: SourceFile) -> Arc<ImplSelfTypes> {
    let names = super::file_names(db, file);
    let mut types: Vec<Box<str>> = names
        .impls
        .iter()
        .map(|block| names.name(block.self_type).into())
        .collect();
    types.sort_unstable();
    types.dedup();
    Arc::new(ImplSelfTypes(types))
}

/// See [`impl_self_types`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImplSelfTypes(Vec<Box<str>>);

impl ImplSelfTypes {
    pub fn contains(&self, name: &str) -> bool {
        self.0.binary_search_by(|t| (**t).cmp(name)).is_ok()
    }
}

/// The type (or trait) whose definition names `scope` (`struct Foo { … }`), as a target.
fn type_defined_by(names: &FileNames, file: SourceFile, scope: ScopeId) -> Option<Target> {
    let info = &names.scopes[scope as usize];
    let named_by = info.named_by?;
    (names.occurrence(named_by).role == Role::Definition(BindingKind::Type)).then(|| {
        Target::Symbol {
            file,
            scope: info.parent.unwrap_or(0),
            name: names.name(named_by).into(),
            space: Space::All,
        }
    })
}

/// The inline modules (`mod a { mod b { … } }`) around `scope`: `a::b`, as imports record
/// them in `within`.
fn inline_modules(names: &FileNames, scope: ScopeId) -> Option<SmallText> {
    let mut found = Vec::new();
    let mut current = Some(scope);
    while let Some(id) = current {
        let info = &names.scopes[id as usize];
        if let Some(named_by) = info.named_by
            && names.occurrence(named_by).role == Role::Definition(BindingKind::Module)
        {
            found.push(names.name(named_by));
        }
        current = info.parent;
    }
    found.reverse();
    (!found.is_empty()).then(|| SmallText::new(&found.join("::")))
}
