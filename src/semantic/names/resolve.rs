//! What a name refers to, across files: scopes first (a function's own names, then the
//! enclosing functions', skipping class bodies, then the module's, then builtins), then
//! imports followed to the definition they bring in, then members looked up on what the
//! receiver is (a module, a class, an instance made by calling a class, `self`).
//!
//! Invariant: every answer is built from the [`FileNames`] of the files it passes through
//! and the import resolution of `imports`; nothing here is cached between requests beyond
//! what salsa memoizes, so answers are always those of the current revision. A result is
//! `exact` when every step was resolved; a member on a receiver of unknown type is matched
//! by name only and is `heuristic`.

use std::{collections::HashMap, sync::Arc};

use super::{
    BindingKind, FileNames, OccurrenceId, Role, ScopeId, ecmascript, file_names, python, rust,
};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::{self, ImportSummary},
        symbols::file_symbols,
    },
};

mod rust_steps;

/// How deep imports, aliases and base classes are followed.
const MAX_DEPTH: u32 = 12;

/// Something a name can refer to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A name bound in one scope of a workspace file: a variable, function, class or import
    /// of a module or function scope, or a member of a class (its body's names and the
    /// attributes its methods assign on `self`).
    Symbol {
        file: SourceFile,
        scope: ScopeId,
        name: Arc<str>,
    },
    /// A whole module.
    Module(SourceFile),
    /// Outside the workspace: a module of the standard library or a dependency, or a
    /// builtin (`module` is `builtins`), with the name looked up in it.
    External {
        module: String,
        name: Option<String>,
    },
}

/// What a use of a name refers to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resolution {
    pub targets: Vec<Target>,
    /// Matched by name where the receiver's type is unknown.
    pub heuristic: bool,
}

/// What a receiver is, for looking up a member on it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Namespace {
    Module(SourceFile),
    /// A module outside the workspace, by name.
    External(Arc<str>),
    /// A class, or an instance of it: both see the class's members.
    Class {
        file: SourceFile,
        scope: ScopeId,
    },
}

/// Resolves names for one request; caches what it has resolved (the database does not
/// change under it).
pub struct Resolver<'db> {
    db: &'db dyn Db,
    workspace: Workspace,
    members: HashMap<(Namespace, Arc<str>), Vec<Target>>,
    module_names: HashMap<(SourceFile, Arc<str>), Vec<Target>>,
    files: HashMap<SourceFile, Arc<FileNames>>,
}

impl<'db> Resolver<'db> {
    pub fn new(db: &'db dyn Db, workspace: Workspace) -> Resolver<'db> {
        Resolver {
            db,
            workspace,
            members: HashMap::new(),
            module_names: HashMap::new(),
            files: HashMap::new(),
        }
    }

    pub fn db(&self) -> &'db dyn Db {
        self.db
    }

    pub fn names(&mut self, file: SourceFile) -> Arc<FileNames> {
        let db = self.db;
        self.files
            .entry(file)
            .or_insert_with(|| file_names(db, file))
            .clone()
    }

    /// What the name at `occurrence` of `file` refers to, imports followed.
    pub fn resolve(&mut self, file: SourceFile, occurrence: OccurrenceId) -> Resolution {
        self.resolve_at(file, occurrence, 0)
    }

    fn resolve_at(&mut self, file: SourceFile, occurrence: OccurrenceId, depth: u32) -> Resolution {
        let names = self.names(file);
        let occ = names.occurrence(occurrence).clone();
        let name: Arc<str> = names.name(occurrence).into();
        if depth > MAX_DEPTH {
            return Resolution::default();
        }
        if occ.role.is_member() {
            let Some(receiver) = occ.receiver else {
                return Resolution {
                    targets: Vec::new(),
                    heuristic: true,
                };
            };
            let mut namespaces = self.namespaces_of(file, receiver, depth + 1);
            if occ.receiver_called {
                // Calling a class makes an instance; what calling anything else gives is
                // not known.
                namespaces.retain(|n| matches!(n, Namespace::Class { .. }));
            }
            if namespaces.is_empty() {
                return Resolution {
                    targets: Vec::new(),
                    heuristic: true,
                };
            }
            let mut targets = Vec::new();
            for namespace in namespaces {
                let found = match self.rust_member(&namespace, &name, occ.role, depth + 1) {
                    Some(found) => found,
                    None => self.member(namespace, &name, depth + 1),
                };
                for target in found {
                    push_unique(&mut targets, target);
                }
            }
            // An attribute first assigned here (`self.cache = …` in `__init__`).
            if targets.is_empty() && occ.role == Role::MemberDefinition {
                for namespace in self.namespaces_of(file, receiver, depth + 1) {
                    if let Namespace::Class { file, scope } = namespace {
                        push_unique(
                            &mut targets,
                            Target::Symbol {
                                file,
                                scope,
                                name: name.clone(),
                            },
                        );
                    }
                }
            }
            return Resolution {
                targets,
                heuristic: false,
            };
        }
        if occ.role == Role::ModulePath && self.is_rust(file) {
            return Resolution {
                targets: self.rust_module_path(file, &names, occurrence, depth),
                heuristic: false,
            };
        }
        if occ.role == Role::ModulePath {
            let start = occ.path_start.unwrap_or(u32::from(occ.range.start()));
            let module = names
                .text_between(start, occ.range.end().into())
                .split_whitespace()
                .collect::<String>();
            let import = ImportSummary {
                module: module.clone(),
                ..ImportSummary::default()
            };
            let targets = match imports::resolve(self.db, self.workspace, file, &import) {
                imports::Target::Resolved { file, .. } => vec![Target::Module(file)],
                imports::Target::External { .. } => vec![Target::External { module, name: None }],
                imports::Target::Unresolved => Vec::new(),
            };
            return Resolution {
                targets,
                heuristic: false,
            };
        }
        if occ.role == Role::Imported {
            let import = self.import_statement(file, occ.range, |import| {
                import.name.as_deref() == Some(&*name)
            });
            let targets = import
                .and_then(|import| self.follow_import(file, &import, depth + 1))
                .unwrap_or_default();
            return Resolution {
                targets,
                heuristic: false,
            };
        }
        if occ.role == Role::SelfReference
            && let Some(targets) = self.rust_self_type(file, &names, occurrence, depth)
        {
            return Resolution {
                targets,
                heuristic: false,
            };
        }
        let targets = self.lexical(
            file,
            &names,
            occ.scope,
            &name,
            u32::from(occ.range.start()),
            depth,
        );
        Resolution {
            targets,
            heuristic: false,
        }
    }

    /// `name` as seen from `scope` of `file`: the nearest scope binding it.
    fn lexical(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        from: ScopeId,
        name: &Arc<str>,
        at: u32,
        depth: u32,
    ) -> Vec<Target> {
        let mut scope = Some(from);
        let mut nonlocal = false;
        while let Some(current) = scope {
            let info = &names.scopes[current as usize];
            // A class's type parameters are seen from its methods; nothing else it binds is.
            let visible = current == from
                || !info.is_class
                || names.bindings(current, name).iter().any(|&b| {
                    names.occurrence(b).role == Role::Definition(BindingKind::TypeParameter)
                });
            let is_function = info.parent.is_some() && !info.is_class;
            if visible && (!nonlocal || is_function) && current != 0 {
                match names.declaration(current, name) {
                    Some(Role::Global) => return self.module_name(file, name, depth),
                    Some(Role::Nonlocal) if current == from || nonlocal => {
                        nonlocal = true;
                        scope = info.parent;
                        continue;
                    }
                    _ => {}
                }
                let bindings = names.bindings(current, name);
                // A class body runs once, top to bottom: `codec = codec` there reads the
                // name from outside. Only bindings made by then count.
                let bound = if info.is_class && current == from {
                    bindings.iter().any(|&b| names.bound_at(b, at))
                } else {
                    !bindings.is_empty()
                };
                if bound {
                    return self.follow_symbol(file, names, current, name, depth);
                }
            }
            if current == 0 {
                break;
            }
            if let Some(found) = self.rust_inline_module_glob(file, names, current, name, depth) {
                return found;
            }
            scope = info.parent;
        }
        self.module_name(file, name, depth)
    }

    /// `name` at the top level of `file` (its own bindings, what its star imports bring,
    /// then builtins).
    fn module_name(&mut self, file: SourceFile, name: &Arc<str>, depth: u32) -> Vec<Target> {
        let key = (file, name.clone());
        if let Some(found) = self.module_names.get(&key) {
            return found.clone();
        }
        // Guards against import cycles: a name being resolved resolves to nothing inside.
        self.module_names.insert(key.clone(), Vec::new());
        let names = self.names(file);
        let mut found = if names.bindings(0, name).is_empty() {
            // `export default f`, `export {a as b}`: what the exported name stands for.
            match names.export(name) {
                Some(local) => self.resolve_at(file, local, depth + 1).targets,
                None => Vec::new(),
            }
        } else {
            self.follow_symbol(file, &names, 0, name, depth)
        };
        if found.is_empty() {
            for import in file_symbols(self.db, file).imports.summaries.iter() {
                if !is_star_import(import) || depth > MAX_DEPTH {
                    continue;
                }
                if let imports::Target::Resolved { file: module, .. } =
                    imports::resolve(self.db, self.workspace, file, import)
                    && module != file
                {
                    let inner = self.names(module);
                    if !inner.bindings(0, name).is_empty() {
                        found = self.module_name(module, name, depth + 1);
                        break;
                    }
                }
            }
        }
        if found.is_empty() {
            // `from _codecs import *`: a name not found may come from there.
            for import in file_symbols(self.db, file).imports.summaries.iter() {
                if is_star_import(import)
                    && let imports::Target::External { .. } =
                        imports::resolve(self.db, self.workspace, file, import)
                    && self.predeclared(file, name).is_none()
                {
                    found.push(Target::External {
                        module: import.module.clone(),
                        name: Some(name.to_string()),
                    });
                    break;
                }
            }
        }
        if found.is_empty()
            && let Some(module) = self.predeclared(file, name)
        {
            found.push(Target::External {
                module: module.into(),
                name: Some(name.to_string()),
            });
        }
        if found.is_empty() && self.is_rust(file) {
            found = self.rust_crate(file, name, depth);
        }
        self.module_names.insert(key, found.clone());
        found
    }

    /// Where `name` comes from when `file`'s language declares it for every module (a
    /// Python builtin, a JavaScript global).
    fn predeclared(&self, file: SourceFile, name: &str) -> Option<&'static str> {
        match file.lang(self.db).info().import_style.as_str() {
            "python-module" => python::is_builtin(name).then_some(python::BUILTINS_MODULE),
            "ecmascript" => ecmascript::is_global(name).then_some(ecmascript::GLOBAL_MODULE),
            "rust-module-path" => rust::is_prelude(name).then_some(rust::PRELUDE_MODULE),
            _ => None,
        }
    }

    /// The symbol `name` of `scope`, with imports among its bindings followed to what
    /// they bring in.
    fn follow_symbol(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        scope: ScopeId,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        let mut targets = Vec::new();
        let mut own = false;
        for &binding in names.bindings(scope, name) {
            if names.occurrence(binding).role != Role::Definition(BindingKind::Import) {
                own = true;
                continue;
            }
            let names_here = self.names(file);
            let local = names_here.name(binding).to_string();
            let range = names_here.occurrence(binding).range;
            let import =
                self.import_statement(file, range, |import| self.bound_name(file, import) == local);
            match import.and_then(|import| self.follow_import(file, &import, depth + 1)) {
                Some(found) if !found.is_empty() => {
                    for target in found {
                        push_unique(&mut targets, target);
                    }
                }
                _ => own = true,
            }
        }
        if own {
            targets.insert(
                0,
                Target::Symbol {
                    file,
                    scope,
                    name: name.clone(),
                },
            );
        }
        targets
    }

    /// Where `import` (one of `file`'s) leads; `None` when it leads nowhere known.
    fn follow_import(
        &mut self,
        file: SourceFile,
        import: &ImportSummary,
        depth: u32,
    ) -> Option<Vec<Target>> {
        if self.is_rust(file) {
            return self.follow_rust_import(file, import, depth);
        }
        let import = import.clone();
        if import.name.is_none() || import.wildcard {
            let module = python::bound_module(&import);
            return Some(
                match imports::resolve(self.db, self.workspace, file, &module) {
                    imports::Target::Resolved { file, .. } => vec![Target::Module(file)],
                    imports::Target::External { .. } => vec![Target::External {
                        module: module.module,
                        name: None,
                    }],
                    imports::Target::Unresolved => return None,
                },
            );
        }
        let name: Arc<str> = import.name.as_deref().unwrap_or_default().into();
        let module = ImportSummary {
            name: None,
            alias: None,
            ..import.clone()
        };
        let container = imports::resolve(self.db, self.workspace, file, &module);
        match (
            imports::resolve(self.db, self.workspace, file, &import),
            container,
        ) {
            (
                imports::Target::Resolved { file: found, .. },
                imports::Target::Resolved {
                    file: container, ..
                },
            ) if found == container => {
                Some(self.member(Namespace::Module(container), &name, depth))
            }
            // `from package import submodule` (the package may have no `__init__.py`).
            (imports::Target::Resolved { file: found, .. }, _) => Some(vec![Target::Module(found)]),
            (imports::Target::External { .. }, _) => Some(vec![Target::External {
                module: import.module.clone(),
                name: Some(name.to_string()),
            }]),
            _ => None,
        }
    }

    /// The import of the statement around `range` that `matches`.
    pub fn import_statement(
        &self,
        file: SourceFile,
        range: crate::syntax::TextRange,
        matches: impl Fn(&ImportSummary) -> bool,
    ) -> Option<ImportSummary> {
        let found = file_symbols(self.db, file);
        let imports = &found.imports;
        imports
            .summaries
            .iter()
            .zip(imports.statements.iter())
            .find(|(import, statement)| statement.contains_range(range) && matches(import))
            .map(|(import, _)| import.clone())
    }

    /// What the name at `occurrence` holds, as a namespace to look members up in.
    fn namespaces_of(
        &mut self,
        file: SourceFile,
        occurrence: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let names = self.names(file);
        let occ = names.occurrence(occurrence);
        if occ.role == Role::SelfReference {
            return names
                .enclosing_class(occ.scope)
                .map(|scope| Namespace::Class { file, scope })
                .into_iter()
                .collect();
        }
        let targets = self.resolve_at(file, occurrence, depth).targets;
        self.namespaces_of_targets(file, targets, depth)
    }

    /// What `targets` (resolved in `file`) hold, as namespaces to look members up in.
    fn namespaces_of_targets(
        &mut self,
        file: SourceFile,
        targets: Vec<Target>,
        depth: u32,
    ) -> Vec<Namespace> {
        let mut found = Vec::new();
        for target in targets {
            match target {
                Target::Module(module) => push_unique(&mut found, Namespace::Module(module)),
                Target::Symbol { file, scope, name } => {
                    let names = self.names(file);
                    for &binding in names.bindings(scope, &name) {
                        for namespace in self.namespace_of_binding(file, &names, binding, depth + 1)
                        {
                            push_unique(&mut found, namespace);
                        }
                    }
                }
                Target::External { module, name: None } => {
                    push_unique(&mut found, Namespace::External(module.as_str().into()))
                }
                // Rust: an outside type or module (`HashMap::new`, `std::mem::swap`).
                Target::External {
                    module,
                    name: Some(name),
                } if self.is_rust(file) => push_unique(
                    &mut found,
                    Namespace::External(format!("{module}::{name}").into()),
                ),
                Target::External { .. } => {}
            }
        }
        found
    }

    /// What one binding holds: a class, an instance of a class, or the instance a method
    /// is called on.
    fn namespace_of_binding(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        binding: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        let occ = names.occurrence(binding);
        match occ.role {
            Role::Definition(BindingKind::Class | BindingKind::Type | BindingKind::Module) => names
                .scope_named_by(binding)
                .map(|scope| Namespace::Class { file, scope })
                .into_iter()
                .collect(),
            Role::Definition(BindingKind::Parameter)
                if python::is_receiver_parameter(names, binding) =>
            {
                let method = &names.scopes[occ.scope as usize];
                method
                    .parent
                    .map(|scope| Namespace::Class { file, scope })
                    .into_iter()
                    .collect()
            }
            // A function with `@constructor` returns an instance of that type (Rust's
            // `fn new() -> Self`).
            Role::Definition(
                BindingKind::Variable | BindingKind::Parameter | BindingKind::Function,
            ) => {
                match occ.constructor {
                    // `x = C(…)`, `x = new C()`, `x: C`: an instance of C when C is a class.
                    Some(callee) => self
                        .namespaces_of(file, callee, depth)
                        .into_iter()
                        .filter_map(|n| match n {
                            Namespace::Class { .. } => Some(n),
                            _ => self.rust_outside_instance(file, &n),
                        })
                        .collect(),
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }

    /// `name` looked up on `namespace`.
    fn member(&mut self, namespace: Namespace, name: &Arc<str>, depth: u32) -> Vec<Target> {
        let key = (namespace.clone(), name.clone());
        if let Some(found) = self.members.get(&key) {
            return found.clone();
        }
        self.members.insert(key.clone(), Vec::new());
        let found = match namespace {
            Namespace::Module(module) => {
                let mut found = self.module_name(module, name, depth);
                found.retain(|t| {
                    !matches!(t, Target::External { module, .. }
                        if module == python::BUILTINS_MODULE || module == ecmascript::GLOBAL_MODULE
                            || module == rust::PRELUDE_MODULE)
                });
                if found.is_empty() {
                    if let Some(sub) = imports::submodule(self.db, self.workspace, module, name) {
                        found.push(Target::Module(sub));
                    }
                }
                found
            }
            Namespace::Class { file, scope } => self.class_member(file, scope, name, depth),
            Namespace::External(module) => vec![Target::External {
                module: module.to_string(),
                name: Some(name.to_string()),
            }],
        };
        self.members.insert(key, found.clone());
        found
    }

    fn class_member(
        &mut self,
        file: SourceFile,
        class: ScopeId,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        let names = self.names(file);
        if !names.bindings(class, name).is_empty() {
            return self.follow_symbol(file, &names, class, name, depth);
        }
        if self.assigned_on_instances(&names, class, name) {
            return vec![Target::Symbol {
                file,
                scope: class,
                name: name.clone(),
            }];
        }
        let associated = self.rust_associated_items(file, class, name, depth);
        if !associated.is_empty() {
            return associated;
        }
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let Some(class_name) = names.scopes[class as usize].named_by else {
            return Vec::new();
        };
        let bases = names.bases.get(&class_name).cloned().unwrap_or_default();
        for base in bases {
            for namespace in self.namespaces_of(file, base, depth + 1) {
                let found = self.member(namespace, name, depth + 1);
                if !found.is_empty() {
                    return found;
                }
            }
        }
        Vec::new()
    }

    /// Whether a method of `class` assigns `self.name`.
    fn assigned_on_instances(&self, names: &FileNames, class: ScopeId, name: &str) -> bool {
        let range = names.scopes[class as usize].range;
        names.occurrences_named(name).any(|id| {
            let occ = names.occurrence(id);
            occ.role == Role::MemberDefinition
                && range.contains_range(occ.range)
                && occ
                    .receiver
                    .is_some_and(|receiver| is_instance_of(names, receiver, class))
        })
    }

    /// The places that define `target`: its bindings (and, for a class member, the
    /// attributes its methods assign on `self`).
    pub fn definitions(&mut self, target: &Target) -> Vec<(SourceFile, OccurrenceId)> {
        let Target::Symbol { file, scope, name } = target else {
            return Vec::new();
        };
        let names = self.names(*file);
        let mut sites: Vec<(SourceFile, OccurrenceId)> = names
            .bindings(*scope, name)
            .iter()
            .map(|&b| (*file, b))
            .collect();
        // Attributes assigned on instances define a member the class body does not declare.
        if names.scopes[*scope as usize].is_class && sites.is_empty() {
            let range = names.scopes[*scope as usize].range;
            for id in names.occurrences_named(name) {
                let occ = names.occurrence(id);
                if occ.role == Role::MemberDefinition && range.contains_range(occ.range) {
                    let resolved = self.resolve(*file, id);
                    if resolved.targets.contains(target) {
                        sites.push((*file, id));
                    }
                }
            }
        }
        sites
    }

    /// For a name an import looks up under another name (`x` in `from m import x as y`):
    /// the name it binds (`y`).
    pub fn bound_as(&mut self, file: SourceFile, occurrence: OccurrenceId) -> Option<String> {
        let names = self.names(file);
        if names.occurrence(occurrence).role != Role::Imported {
            return None;
        }
        let name = names.name(occurrence);
        let import = self.import_statement(file, names.occurrence(occurrence).range, |import| {
            import.name.as_deref() == Some(name)
        })?;
        Some(self.bound_name(file, &import).to_string())
    }

    pub fn workspace(&self) -> Workspace {
        self.workspace
    }
}

/// Whether `receiver` is the instance a method of `class` runs on: `this`, or the method's
/// `self` parameter.
fn is_instance_of(names: &FileNames, receiver: OccurrenceId, class: ScopeId) -> bool {
    let occurrence = names.occurrence(receiver);
    if occurrence.role == Role::SelfReference {
        return names.enclosing_class(occurrence.scope) == Some(class);
    }
    names
        .bindings(occurrence.scope, names.name(receiver))
        .iter()
        .any(|&b| {
            python::is_receiver_parameter(names, b)
                && names.scopes[names.occurrence(b).scope as usize].parent == Some(class)
        })
}

/// `from m import *`, `export * from "m"`: every name of the module is seen here (unlike
/// `import * as ns`, which binds one name).
fn is_star_import(import: &ImportSummary) -> bool {
    import.wildcard && import.alias.is_none()
}

fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}
