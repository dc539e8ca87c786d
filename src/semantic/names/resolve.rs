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

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt};

use super::{
    BindingKind, FileNames, NameRules, Occurrence, OccurrenceId, Role, ScopeId, ThisSource,
    ecmascript, file_names, file_names_unkept, python,
    spaces::{self, Space},
};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        imports::{self, ImportSummary},
        symbols::file_symbols,
    },
};

/// How deep imports, aliases and base classes are followed.
pub(super) const MAX_DEPTH: u32 = 12;

/// How many files' name tables a resolver keeps before [`Resolver::in_passing`] reads the
/// rest (of compressed texts) without keeping them, unless their bytes reach the
/// database's budget for kept tables first (`Tally::budget`): so a search over a few files
/// is as quick to ask again as before, and one over thousands holds no more than this many
/// tables, nor more bytes than the database keeps.
const TABLES_KEPT_IN_PASSING: usize = 64;

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
        /// Which of the name's meanings, where the scope binds it apart as a value and as a
        /// type (`names/spaces.rs`); else [`Space::All`].
        space: Space,
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
pub(super) enum Namespace {
    Module(SourceFile),
    /// A module outside the workspace, by name.
    External(Arc<str>),
    /// A class, or an instance of it: both see the class's members.
    Class {
        file: SourceFile,
        scope: ScopeId,
    },
    /// A class outside the workspace (a builtin type: `list`, `Map`), or an instance of it.
    ExternalClass {
        module: Arc<str>,
        class: Arc<str>,
    },
    /// A Python namespace package (a directory without `__init__.py`) by its dotted name,
    /// as `importer` imports it: no file stands for it, so no target; its members are its
    /// submodules.
    Package {
        importer: SourceFile,
        module: Arc<str>,
    },
}

impl Namespace {
    /// A class (or what calling it makes): not a module.
    fn is_class(&self) -> bool {
        matches!(
            self,
            Namespace::Class { .. } | Namespace::ExternalClass { .. }
        )
    }
}

/// Resolves names for one request; caches what it has resolved (the database does not
/// change under it).
///
/// Two caches answer a name whose computation is still running (an import cycle) with
/// nothing: `members` and `module_names`. What was computed while reading such an answer
/// may differ from what computing it again later gives, so the memos of whole steps
/// (`resolutions`, `namespaces`, `call_results`, keyed by depth too, as the depth bound
/// cuts them) keep only answers that read none: the clock orders the starts of
/// computations, and an answer is kept when every running answer it read began inside it.
/// A memo hit is then exactly what computing again would give. Without them a chain of
/// rebindings (`s = s.replace(…)` twenty times in one function, each binding's value a
/// call on all of them) is walked again at every depth, exponentially.
pub struct Resolver<'db> {
    pub(super) db: &'db dyn Db,
    pub(super) workspace: Workspace,
    members: HashMap<(Namespace, Arc<str>), Cached>,
    /// Keyed, in Rust files, by whether the name is looked for through another module's
    /// star import too (the crate fallback is asked only when it is not).
    module_names: HashMap<(SourceFile, Arc<str>, bool), Cached>,
    /// How many star imports deep the current `module_name` search is.
    star_depth: u32,
    files: HashMap<SourceFile, Arc<FileNames>>,
    resolutions: HashMap<StepKey, Resolution>,
    namespaces: HashMap<StepKey, Vec<Namespace>>,
    call_results: HashMap<StepKey, Vec<Namespace>>,
    clock: u64,
    /// The earliest start of a running answer read since the innermost memoized step
    /// began (`u64::MAX`: none).
    oldest_running_read: u64,
}

/// An answer of `members` or `module_names`, or, while it is computed, when that began.
#[derive(Clone, Debug)]
enum Cached {
    Done(Vec<Target>),
    Running(u64),
}

/// What a memoized step is asked about: a use in a file, at a depth.
type StepKey = (SourceFile, OccurrenceId, u32);

impl<'db> Resolver<'db> {
    pub fn new(db: &'db dyn Db, workspace: Workspace) -> Resolver<'db> {
        Resolver {
            db,
            workspace,
            members: HashMap::new(),
            module_names: HashMap::new(),
            star_depth: 0,
            files: HashMap::new(),
            resolutions: HashMap::new(),
            namespaces: HashMap::new(),
            call_results: HashMap::new(),
            clock: 0,
            oldest_running_read: u64::MAX,
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

    /// Runs `pass` over `file`'s names: kept like [`Resolver::names`], unless the database
    /// keeps its texts compressed (`Db::keeps_texts_compressed`: a workspace over
    /// `COMPRESS_TEXTS_OVER`, or a memory limit, where memory comes first, as for the
    /// identifier index's word sets) and this resolver already holds
    /// [`TABLES_KEPT_IN_PASSING`] tables or their budget's bytes; then read for this pass
    /// alone and let go after it.
    /// A reference search reads the table of every file that spells the name, once:
    /// hundreds of files for a common one (`posixpath.join`), held together, here and in
    /// the database's memo, until the request ended and the LRU bound was next applied.
    /// Kept, the same search asked again before then is a tenth as long (on the standard
    /// library, whose texts are kept whole). Resolving may read the file's names meanwhile:
    /// it gets the same table.
    pub fn in_passing<T>(
        &mut self,
        file: SourceFile,
        pass: impl FnOnce(&mut Self, &Arc<FileNames>) -> T,
    ) -> T {
        let keeps_more = || {
            self.files.len() < TABLES_KEPT_IN_PASSING
                && self
                    .files
                    .values()
                    .map(|names| names.counted_bytes())
                    .sum::<usize>()
                    < self.db.name_tables().budget()
        };
        if self.files.contains_key(&file) || !self.db.keeps_texts_compressed() || keeps_more() {
            let names = self.names(file);
            return pass(self, &names);
        }
        let names = Arc::new(file_names_unkept(self.db, file));
        self.files.insert(file, names.clone());
        let found = pass(self, &names);
        self.files.remove(&file);
        found
    }

    /// What the name at `occurrence` of `file` refers to, imports followed.
    pub fn resolve(&mut self, file: SourceFile, occurrence: OccurrenceId) -> Resolution {
        self.resolve_at(file, occurrence, 0)
    }

    pub(super) fn resolve_at(
        &mut self,
        file: SourceFile,
        occurrence: OccurrenceId,
        depth: u32,
    ) -> Resolution {
        self.memoized(
            |r| &mut r.resolutions,
            (file, occurrence, depth),
            |r| {
                let resolution = r.resolve_any_space(file, occurrence, depth);
                Resolution {
                    targets: r.in_use_space(file, occurrence, resolution.targets),
                    ..resolution
                }
            },
        )
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// A step's answer from `memo` (one of the step memos, see [`Resolver`]), else
    /// `compute`'s, kept in `memo` when it read no answer that was running before the step
    /// began.
    fn memoized<T: Clone>(
        &mut self,
        memo: fn(&mut Self) -> &mut HashMap<StepKey, T>,
        key: StepKey,
        compute: impl FnOnce(&mut Self) -> T,
    ) -> T {
        if let Some(found) = memo(self).get(&key) {
            return found.clone();
        }
        let start = self.tick();
        let outer_oldest = std::mem::replace(&mut self.oldest_running_read, u64::MAX);
        let found = compute(self);
        if self.oldest_running_read > start {
            memo(self).insert(key, found.clone());
        }
        self.oldest_running_read = self.oldest_running_read.min(outer_oldest);
        found
    }

    /// A cycle read the answer begun at `started`, still running, as nothing.
    fn read_running(&mut self, started: u64) -> Vec<Target> {
        self.oldest_running_read = self.oldest_running_read.min(started);
        Vec::new()
    }

    /// [`Resolver::resolve_at`] before symbols are taken in the meaning the use asks for.
    fn resolve_any_space(
        &mut self,
        file: SourceFile,
        occurrence: OccurrenceId,
        depth: u32,
    ) -> Resolution {
        let names = self.names(file);
        let occ = names.occurrence(occurrence).clone();
        let name: Arc<str> = names.name(occurrence).into();
        if depth > MAX_DEPTH {
            return Resolution::default();
        }
        if occ.role.is_member() {
            return self.resolve_member(file, &names, occurrence, &occ, &name, depth);
        }
        if occ.role == Role::KeywordArgument {
            let targets = match occ.receiver.get() {
                Some(callee) => self.parameter_of(file, callee, &name, depth + 1),
                None => Vec::new(),
            };
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
            return Resolution {
                targets: self.module_path(file, &names, &occ),
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
        let wanted = if self.keeps_types_apart(file) {
            spaces::use_space(occ.role)
        } else {
            Space::All
        };
        let targets = self.lexical(
            file,
            &names,
            (occ.scope, wanted),
            &name,
            u32::from(occ.range.start()),
            depth,
        );
        Resolution {
            targets,
            heuristic: false,
        }
    }

    /// A member (`x.name`): looked up in what the receiver may be, a literal's type, or,
    /// for an attribute first assigned here, the receiver's classes.
    fn resolve_member(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        occurrence: OccurrenceId,
        occ: &Occurrence,
        name: &Arc<str>,
        depth: u32,
    ) -> Resolution {
        let literal = names
            .builtin_instance(occurrence)
            .map(|class| (class, self.predeclared_module(file)));
        let mut namespaces = match (occ.receiver.get(), literal) {
            (Some(receiver), _) if names.receives_element(occurrence) => {
                self.element_namespaces(file, receiver, depth + 1)
            }
            (Some(receiver), _) if occ.receiver_called => {
                self.call_results(file, receiver, depth + 1)
            }
            (Some(receiver), _) => self.namespaces_of(file, receiver, depth + 1),
            // `", ".join`: a member of the literal's type.
            (None, Some((class, module))) => vec![Namespace::ExternalClass {
                module: module.into(),
                class: class.into(),
            }],
            (None, None) => Vec::new(),
        };
        if occ.receiver_called && !self.call_results_declared(file) {
            // Calling a class makes an instance; what calling anything else gives is
            // not known.
            namespaces.retain(Namespace::is_class);
        }
        if namespaces.is_empty() {
            return Resolution {
                targets: Vec::new(),
                heuristic: true,
            };
        }
        let mut targets = Vec::new();
        for namespace in namespaces {
            let found = match self.rust_member(&namespace, name, occ.role, depth + 1) {
                Some(found) => found,
                None => self.member(namespace, name, depth + 1),
            };
            for target in found {
                push_unique(&mut targets, target);
            }
        }
        // An attribute first assigned here (`self.cache = …` in `__init__`).
        if let (true, Role::MemberDefinition, Some(receiver)) =
            (targets.is_empty(), occ.role, occ.receiver.get())
        {
            for namespace in self.namespaces_of(file, receiver, depth + 1) {
                if let Namespace::Class { file, scope } = namespace {
                    push_unique(
                        &mut targets,
                        Target::Symbol {
                            file,
                            scope,
                            name: name.clone(),
                            space: Space::All,
                        },
                    );
                }
            }
        }
        Resolution {
            targets,
            heuristic: false,
        }
    }

    /// A module path as the code spells it (other than Rust's, which `rust_module_path`
    /// follows), resolved as an import of that module.
    fn module_path(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        occ: &Occurrence,
    ) -> Vec<Target> {
        let module = names.path_as_written(occ);
        let import = ImportSummary {
            module: module.as_str().into(),
            ..ImportSummary::default()
        };
        match imports::resolve(self.db, self.workspace, file, &import) {
            imports::Target::Resolved { file, .. } => vec![Target::Module(file)],
            imports::Target::External { .. } => vec![Target::External { module, name: None }],
            imports::Target::Unresolved => Vec::new(),
        }
    }

    /// `name` as seen from `scope` of `file` by a use asking for the meaning `wanted`: the
    /// nearest scope binding it so.
    fn lexical(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        (from, wanted): (ScopeId, Space),
        name: &Arc<str>,
        at: u32,
        depth: u32,
    ) -> Vec<Target> {
        let mut scope = Some(from);
        let mut nonlocal = false;
        while let Some(current) = scope {
            let info = &names.scopes[current as usize];
            // A class's type parameters are seen from its methods; nothing else it binds is.
            // Where types are kept apart (TypeScript), a class's or interface's members are
            // not even seen from its body (`version: typeof version` reads the module's);
            // an enum's are.
            let own_members_seen = wanted == Space::All
                || !info.is_class
                || info.named_by.is_some_and(|n| {
                    names.occurrence(n).role == Role::Definition(BindingKind::Type)
                        && !names.is_type_only(n)
                });
            let visible = current == from && own_members_seen
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
                let bound =
                    if info.is_class && current == from || self.declared_in_order(file, current) {
                        bindings.iter().any(|&b| names.bound_at(b, at))
                    } else {
                        !bindings.is_empty()
                    };
                let bound = bound && self.binds_for(file, names, current, name, wanted);
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
    pub(super) fn module_name(
        &mut self,
        file: SourceFile,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        let key = (
            file,
            name.clone(),
            self.star_depth > 0 && self.is_rust(file),
        );
        match self.module_names.get(&key) {
            Some(Cached::Done(found)) => return found.clone(),
            Some(&Cached::Running(started)) => return self.read_running(started),
            None => {}
        }
        // Guards against import cycles: a name being resolved resolves to nothing inside.
        let started = self.tick();
        self.module_names
            .insert(key.clone(), Cached::Running(started));
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
            found = self.package_scope(file, name, depth);
        }
        if found.is_empty() {
            found = self.submodule_imported_by_package(file, name);
        }
        if found.is_empty() && depth <= MAX_DEPTH {
            self.star_depth += 1;
            found = if self.is_rust(file) {
                self.rust_star_name(file, name, depth)
            } else {
                self.star_name(file, name, depth)
            };
            self.star_depth -= 1;
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
                        module: import.module.to_string(),
                        name: Some(name.to_string()),
                    });
                    break;
                }
            }
        }
        if found.is_empty() && self.rules(file).is_module_attribute(name) {
            found.push(Target::Module(file));
        }
        if found.is_empty()
            && let Some(module) = self.predeclared(file, name)
        {
            found.push(Target::External {
                module: module.into(),
                name: Some(name.to_string()),
            });
        }
        // A crate is a name of the module the search started in, not one a star import
        // brings: asked at every module a search passes, it resolved each name not found
        // as a path again, through every star import, once per module (minutes on `libc`).
        if found.is_empty() && self.star_depth == 0 && self.is_rust(file) {
            found = self.rust_crate(file, name, depth);
        }
        self.module_names.insert(key, Cached::Done(found.clone()));
        found
    }

    /// `name` as `file`'s star imports bring it: from the first module one leads to that
    /// binds it, else from what that module's own star imports bring.
    fn star_name(&mut self, file: SourceFile, name: &Arc<str>, depth: u32) -> Vec<Target> {
        for import in file_symbols(self.db, file).imports.summaries.iter() {
            if !is_star_import(import) {
                continue;
            }
            if let imports::Target::Resolved { file: module, .. } =
                imports::resolve(self.db, self.workspace, file, import)
                && module != file
            {
                if !self.names(module).bindings(0, name).is_empty() {
                    return self.module_name(module, name, depth + 1);
                }
                // A name the module has from its own star imports or re-exports
                // (`export * from "./schemas.js"` in a module `export *`-ed here); not
                // what every module sees, which would hide the other star imports.
                let mut through = self.module_name(module, name, depth + 1);
                through.retain(|t| matches!(t, Target::Symbol { .. } | Target::Module(_)));
                if !through.is_empty() {
                    return through;
                }
            }
        }
        Vec::new()
    }

    /// In a Python package's `__init__.py`, a submodule that one of its relative imports
    /// loads (`from .sub import *` makes `sub` an attribute of the package), before what
    /// star imports bring.
    fn submodule_imported_by_package(&mut self, file: SourceFile, name: &str) -> Vec<Target> {
        let package = match self.family(file) {
            Family::Python => file.path(self.db).rsplit('/').next() == Some("__init__.py"),
            Family::Ecma { .. } | Family::Go | Family::Rust => false,
        };
        if !package {
            return Vec::new();
        }
        let written = format!(".{name}");
        let loads = file_symbols(self.db, file)
            .imports
            .summaries
            .iter()
            .any(|import| {
                import.module == written
                    || import
                        .module
                        .strip_prefix(&written)
                        .is_some_and(|rest| rest.starts_with('.'))
            });
        if !loads {
            return Vec::new();
        }
        let submodule = ImportSummary {
            module: written.into(),
            ..ImportSummary::default()
        };
        match imports::resolve(self.db, self.workspace, file, &submodule) {
            imports::Target::Resolved { file: module, .. } if module != file => {
                vec![Target::Module(module)]
            }
            _ => Vec::new(),
        }
    }

    /// The family of `file`'s language.
    fn family(&self, file: SourceFile) -> Family {
        file.lang(self.db).info().family
    }

    /// The name rules of `file`'s language.
    pub(super) fn rules(&self, file: SourceFile) -> &'static dyn NameRules {
        super::rules(self.family(file))
    }

    /// Whether what calling a function or method in `file` gives is known, from the result
    /// types it declares (Go's methods; see `go_method_results`).
    fn call_results_declared(&self, file: SourceFile) -> bool {
        match self.family(file) {
            Family::Go => true,
            Family::Python | Family::Ecma { .. } | Family::Rust => false,
        }
    }

    /// Where `name` comes from when `file`'s language declares it for every module (a
    /// Python builtin, a JavaScript global).
    fn predeclared(&self, file: SourceFile, name: &str) -> Option<&'static str> {
        let rules = self.rules(file);
        rules
            .is_predeclared(name)
            .then(|| rules.predeclared_module())
    }

    /// The module `file`'s language's predeclared names come from.
    fn predeclared_module(&self, file: SourceFile) -> &'static str {
        self.rules(file).predeclared_module()
    }

    /// The name an import binds where it is written, by the file's language.
    fn bound_name<'i>(&self, file: SourceFile, import: &'i ImportSummary) -> &'i str {
        self.rules(file).local_name(import)
    }

    /// Whether a name of `scope` is seen only after its declaration (a Go function's or
    /// block's; top-level names are seen everywhere).
    fn declared_in_order(&self, file: SourceFile, scope: ScopeId) -> bool {
        scope != 0 && self.rules(file).declared_in_order()
    }

    /// The symbol `name` of `scope`, with imports among its bindings followed to what
    /// they bring in.
    pub(super) fn follow_symbol(
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
            match self.imported_at(file, binding, depth + 1) {
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
                    space: Space::All,
                },
            );
        }
        targets
    }

    /// What `module`'s attribute `name` is, as `module.name` written in code finds it:
    /// its own binding (an import followed to what it brings in: `os.path` is `posixpath`),
    /// a name a star import brings, or a submodule.
    pub fn module_member(&mut self, module: SourceFile, name: &str) -> Vec<Target> {
        self.member(Namespace::Module(module), &Arc::from(name), 0)
    }

    /// What the import binding `binding` brings in; `None` when it leads nowhere known.
    pub fn imported_by(&mut self, file: SourceFile, binding: OccurrenceId) -> Option<Vec<Target>> {
        self.imported_at(file, binding, 0)
    }

    fn imported_at(
        &mut self,
        file: SourceFile,
        binding: OccurrenceId,
        depth: u32,
    ) -> Option<Vec<Target>> {
        let names = self.names(file);
        let local = names.name(binding).to_string();
        let range = names.occurrence(binding).range;
        let import =
            self.import_statement(file, range, |import| self.bound_name(file, import) == local)?;
        self.follow_import(file, &import, depth)
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
                        module: module.module.to_string(),
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
            // `from unittest import main` where the package's `__init__.py` binds `main`
            // (`from .main import main`): the attribute wins over the submodule of that name,
            // as in Python's import system. Not in the package's own `__init__.py` (`try:
            // import _c as x` / `except ImportError: from . import x`): its binding there is
            // this import, which loads the submodule.
            (
                imports::Target::Resolved { .. },
                imports::Target::Resolved {
                    file: container, ..
                },
            ) if container != file && !self.names(container).bindings(0, &name).is_empty() => {
                Some(self.member(Namespace::Module(container), &name, depth))
            }
            // `from package import submodule` (the package may have no `__init__.py`).
            (imports::Target::Resolved { file: found, .. }, _) => Some(vec![Target::Module(found)]),
            _ => {
                // `from os.path import join`: `path` is a name bound in the workspace's
                // `os.py`, not a file.
                let through_members = self.module_through_members(file, &import.module, depth);
                if !through_members.is_empty() {
                    let mut found = Vec::new();
                    for namespace in through_members {
                        for target in self.member(namespace, &name, depth + 1) {
                            push_unique(&mut found, target);
                        }
                    }
                    if !found.is_empty() {
                        return Some(found);
                    }
                }
                match imports::resolve(self.db, self.workspace, file, &import) {
                    imports::Target::External { .. } => Some(vec![Target::External {
                        module: import.module.to_string(),
                        name: Some(name.to_string()),
                    }]),
                    _ => None,
                }
            }
        }
    }

    /// A dotted module name whose first part is a workspace module and whose other parts
    /// are names bound in it (`os.path`), as the namespaces it leads to.
    fn module_through_members(
        &mut self,
        file: SourceFile,
        dotted: &str,
        depth: u32,
    ) -> Vec<Namespace> {
        let mut parts = dotted.split('.');
        let (Some(first), Some(_)) = (parts.next(), dotted.find('.')) else {
            return Vec::new();
        };
        if first.is_empty() {
            return Vec::new();
        }
        let root = ImportSummary {
            module: first.into(),
            ..ImportSummary::default()
        };
        let imports::Target::Resolved { file: module, .. } =
            imports::resolve(self.db, self.workspace, file, &root)
        else {
            return Vec::new();
        };
        let mut namespaces = vec![Namespace::Module(module)];
        for part in parts {
            let part: Arc<str> = part.into();
            let mut next = Vec::new();
            for namespace in namespaces {
                for target in self.member(namespace, &part, depth + 1) {
                    if let Target::Module(module) = target {
                        push_unique(&mut next, Namespace::Module(module));
                    }
                }
            }
            namespaces = next;
        }
        namespaces
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
    pub(super) fn namespaces_of(
        &mut self,
        file: SourceFile,
        occurrence: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        self.memoized(
            |r| &mut r.namespaces,
            (file, occurrence, depth),
            |r| r.namespaces_of_uncached(file, occurrence, depth),
        )
    }

    fn namespaces_of_uncached(
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
            match names.this_source(occ.scope) {
                Some(ThisSource::Written(written)) => {
                    return self.call_results(file, written, depth + 1);
                }
                Some(ThisSource::Callback(function)) => {
                    return self.contextual_this_namespaces(file, &names, function, depth + 1);
                }
                None => {}
            }
            return names
                .enclosing_class(occ.scope)
                .map(|scope| Namespace::Class { file, scope })
                .into_iter()
                .collect();
        }
        if occ.role == Role::SuperReference {
            return match names.enclosing_class(occ.scope) {
                Some(class) => self.base_namespaces(file, class, depth + 1),
                None => Vec::new(),
            };
        }
        let targets = self.resolve_at(file, occurrence, depth).targets;
        if occ.role.is_member() && matches!(self.family(file), Family::Ecma { .. }) {
            let occ = occ.clone();
            let given = self.member_type_given_by_base(file, &occ, &targets, depth + 1);
            if !given.is_empty() {
                return given;
            }
        }
        if targets.is_empty()
            && occ.role.is_member()
            && !occ.receiver_called
            && self.family(file) == Family::Python
            && let Some(receiver) = occ.receiver.get()
        {
            let subpackages = self.subpackages(file, receiver, names.name(occurrence), depth);
            if !subpackages.is_empty() {
                return subpackages;
            }
        }
        let called = matches!(occ.role, Role::Call | Role::MemberCall);
        self.namespaces_of_targets(file, targets, called, depth)
    }

    /// `receiver.name` where the receiver is a package and its submodule `name` a namespace
    /// package (`a.b` after `import a.b.c`, `a/b` holding no `__init__.py`, whether `a` does
    /// or not).
    fn subpackages(
        &mut self,
        file: SourceFile,
        receiver: OccurrenceId,
        name: &str,
        depth: u32,
    ) -> Vec<Namespace> {
        let mut found = Vec::new();
        for namespace in self.namespaces_of(file, receiver, depth + 1) {
            let (importer, submodule) = match namespace {
                Namespace::Package { importer, module } => {
                    let submodule = format!("{module}.{name}");
                    let namespace = imports::python_namespace_package(
                        self.db,
                        self.workspace,
                        importer,
                        &submodule,
                    );
                    (importer, namespace.then_some(submodule))
                }
                Namespace::Module(package) => (
                    file,
                    imports::python_namespace_subpackage(
                        self.db,
                        self.workspace,
                        file,
                        imports::PythonPackage::File(package),
                        name,
                    ),
                ),
                _ => continue,
            };
            if let Some(submodule) = submodule {
                let module = submodule.into();
                push_unique(&mut found, Namespace::Package { importer, module });
            }
        }
        found
    }

    /// The namespace package a Python import binding holds (`a` bound by `import a.b`,
    /// `c` by `import a.b as c`, `from a import c` or `from . import c`): an import that
    /// leads to no file.
    fn imported_namespace_package(
        &mut self,
        file: SourceFile,
        binding: OccurrenceId,
    ) -> Option<Namespace> {
        if self.family(file) != Family::Python {
            return None;
        }
        let names = self.names(file);
        let local = names.name(binding);
        let range = names.occurrence(binding).range;
        let import =
            self.import_statement(file, range, |import| self.bound_name(file, import) == local)?;
        let module = match &import.name {
            _ if import.wildcard => return None,
            Some(name) if import.module.starts_with('.') => {
                let package = imports::PythonPackage::Relative(&import.module);
                return imports::python_namespace_subpackage(
                    self.db,
                    self.workspace,
                    file,
                    package,
                    name,
                )
                .map(|module| Namespace::Package {
                    importer: file,
                    module: module.into(),
                });
            }
            Some(name) => format!("{}.{name}", import.module),
            None => python::bound_module(&import).module.to_string(),
        };
        imports::python_namespace_package(self.db, self.workspace, file, &module).then(|| {
            Namespace::Package {
                importer: file,
                module: module.into(),
            }
        })
    }

    /// What `targets` (resolved in `file`) hold, as namespaces to look members up in;
    /// `called`: they were resolved from a name being called.
    pub(super) fn namespaces_of_targets(
        &mut self,
        file: SourceFile,
        targets: Vec<Target>,
        called: bool,
        depth: u32,
    ) -> Vec<Namespace> {
        let mut found = Vec::new();
        for target in targets {
            match target {
                Target::Module(module) => push_unique(&mut found, Namespace::Module(module)),
                Target::Symbol {
                    file: target_file,
                    scope,
                    name,
                    space,
                } => {
                    let target = Target::Symbol {
                        file: target_file,
                        scope,
                        name: name.clone(),
                        space,
                    };
                    for (file, binding) in self.definitions_at(&target, depth + 1) {
                        let names = self.names(file);
                        for namespace in self.namespace_of_binding(file, &names, binding, depth + 1)
                        {
                            push_unique(&mut found, namespace);
                        }
                    }
                    for namespace in self.go_method_results(target_file, scope, &name, depth + 1) {
                        push_unique(&mut found, namespace);
                    }
                }
                Target::External { module, name: None } => {
                    push_unique(&mut found, Namespace::External(module.as_str().into()))
                }
                // `list`, `Map`: a predeclared class.
                Target::External {
                    module,
                    name: Some(name),
                } if is_predeclared_class(&module, &name) => push_unique(
                    &mut found,
                    Namespace::ExternalClass {
                        module: module.as_str().into(),
                        class: name.as_str().into(),
                    },
                ),
                Target::External { module, name } => match (self.family(file), name) {
                    // Go: a value of a type from outside the workspace (`f *pflag.Flag`):
                    // its members are that package's. (What an outside function returns is
                    // not known.)
                    (Family::Go, _) if !called => {
                        push_unique(&mut found, Namespace::External(module.as_str().into()))
                    }
                    // Rust: an outside type or module (`HashMap::new`, `std::mem::swap`).
                    (Family::Rust, Some(name)) => push_unique(
                        &mut found,
                        Namespace::External(format!("{module}::{name}").into()),
                    ),
                    (Family::Go, _)
                    | (Family::Rust, None)
                    | (Family::Python | Family::Ecma { .. }, _) => {}
                },
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
            // `type A = B<…>`, `T extends B`: an instance of the type written.
            Role::Definition(BindingKind::Type | BindingKind::TypeParameter)
                if occ.constructor.is_some() =>
            {
                match occ.constructor.get() {
                    Some(written) => self.call_results(file, written, depth),
                    None => Vec::new(),
                }
            }
            Role::Definition(BindingKind::Class | BindingKind::Type | BindingKind::Module) => names
                .scope_named_by(binding)
                .map(|scope| Namespace::Class { file, scope })
                .into_iter()
                .collect(),
            Role::Definition(BindingKind::Parameter)
                if self.rules(file).first_parameter_is_receiver()
                    && python::is_receiver_parameter(names, binding) =>
            {
                let method = &names.scopes[occ.scope as usize];
                method
                    .parent
                    .map(|scope| Namespace::Class { file, scope })
                    .into_iter()
                    .collect()
            }
            Role::Definition(BindingKind::Function) => {
                match (self.family(file), occ.constructor.get()) {
                    // Go: a function returning `*C` makes instances of C.
                    (Family::Go, Some(result)) => self.go_instances(file, result, depth),
                    // Rust: a function with a written return type holds what calling it gives
                    // (`fn new() -> Self`).
                    (Family::Rust, Some(result)) => self.rust_instances(file, result, depth),
                    (Family::Go | Family::Rust, None)
                    | (Family::Python | Family::Ecma { .. }, _) => Vec::new(),
                }
            }
            Role::Definition(BindingKind::Variable | BindingKind::Parameter)
            | Role::MemberDefinition => {
                if let Some((class, module)) = names
                    .builtin_instance(binding)
                    .map(|class| (class, self.predeclared_module(file)))
                {
                    // `x = []`: a list.
                    return vec![Namespace::ExternalClass {
                        module: module.into(),
                        class: class.into(),
                    }];
                }
                match (occ.constructor.get(), self.family(file)) {
                    (Some(callee), Family::Go) => self.go_instances(file, callee, depth),
                    (Some(callee), Family::Rust) => self.rust_instances(file, callee, depth),
                    // `x = C(…)`, `x = new C()`, `x: C`: an instance of C when C is a class,
                    // else what C says it returns.
                    (Some(callee), Family::Python | Family::Ecma { .. }) => {
                        self.call_results(file, callee, depth)
                    }
                    // `m = pyclbr`: what the name holds.
                    (None, _) => match occ.value.get() {
                        Some(value) => self.namespaces_of(file, value, depth + 1),
                        None => self.namespaces_from_context(file, names, binding, depth + 1),
                    },
                }
            }
            Role::Definition(BindingKind::Import) => self
                .imported_namespace_package(file, binding)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        }
    }

    /// What a binding with neither a written type nor a value holds, by where it is: a
    /// name destructured from a value (`const { x } = obj`) holds that value's member; a
    /// parameter of a function passed as an argument (`operate((source, subscriber) =>
    /// …)`) has the type the callee's parameter in that position writes for it.
    fn namespaces_from_context(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        binding: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        let occ = names.occurrence(binding);
        if let Some(iterated) = names.iterated(binding) {
            return self.element_namespaces(file, iterated, depth);
        }
        match occ.role {
            Role::Definition(BindingKind::Variable) if occ.receiver.is_some() => {
                let members = self.destructured_from_at(file, binding, depth);
                self.namespaces_of_targets(file, members, false, depth)
            }
            Role::Definition(BindingKind::Parameter) => {
                self.contextual_parameter_namespaces(file, names, binding, depth)
            }
            _ => Vec::new(),
        }
    }

    /// The type a callee gives a parameter of a function passed to it: the function type
    /// written for it (see [`Resolver::callback_signatures`]) has a parameter at this one's
    /// position with a written type.
    fn contextual_parameter_namespaces(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        parameter: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        let function = names.occurrence(parameter).scope;
        let Some(position) = names.parameters(function).position(|p| p == parameter) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for (callee_file, signature) in self.callback_signatures(file, names, function, depth) {
            let callee_names = self.names(callee_file);
            if let Some(typed) = callee_names.parameters(signature).nth(position) {
                let call = names.callback(function).map(|c| c.callee);
                let mut namespaces = match call {
                    Some(call) => {
                        self.inferred_from_result(file, call, callee_file, typed, depth + 1)
                    }
                    None => Vec::new(),
                };
                if namespaces.is_empty() {
                    namespaces =
                        self.namespace_of_binding(callee_file, &callee_names, typed, depth + 1);
                }
                for namespace in namespaces {
                    push_unique(&mut found, namespace);
                }
            }
        }
        found
    }

    /// The type a callee gives `this` in a `function` passed to it: the function type
    /// written for it has a `this:` parameter.
    fn contextual_this_namespaces(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        function: ScopeId,
        depth: u32,
    ) -> Vec<Namespace> {
        let mut found = Vec::new();
        for (callee_file, signature) in self.callback_signatures(file, names, function, depth) {
            if let Some(written) = self.names(callee_file).written_this(signature) {
                for namespace in self.call_results(callee_file, written, depth + 1) {
                    push_unique(&mut found, namespace);
                }
            }
        }
        found
    }

    /// The scope whose parameters a call of `definition` binds: a function's own, a
    /// class's initializer's (`__init__`, `constructor`).
    fn called_scope(
        &self,
        file: SourceFile,
        names: &FileNames,
        definition: OccurrenceId,
    ) -> Option<ScopeId> {
        let scope = names.scope_named_by(definition)?;
        if !names.scopes[scope as usize].is_class {
            return Some(scope);
        }
        let initializer = names
            .bindings(scope, self.rules(file).initializer()?)
            .last()?;
        names.scope_named_by(*initializer)
    }

    /// For a function passed as an argument (its scope), the function types its callee
    /// writes for it: the callee's parameter at the argument's position (a class's: its
    /// constructor's), where that parameter's type is a function type, as that type's scope.
    fn callback_signatures(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        function: ScopeId,
        depth: u32,
    ) -> Vec<(SourceFile, ScopeId)> {
        let Some(callback) = names.callback(function) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for target in self.resolve_at(file, callback.callee, depth).targets {
            for (callee_file, definition) in self.definitions_at(&target, depth + 1) {
                let callee_names = self.names(callee_file);
                let Some(scope) = self.called_scope(callee_file, &callee_names, definition) else {
                    continue;
                };
                let signature = callee_names
                    .parameters(scope)
                    .nth(callback.argument as usize)
                    .and_then(|p| callee_names.signature(p));
                if let Some(signature) = signature {
                    push_unique(&mut found, (callee_file, signature));
                }
            }
        }
        found
    }

    /// `name` looked up on `namespace`.
    pub(super) fn member(
        &mut self,
        namespace: Namespace,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        let key = (namespace.clone(), name.clone());
        match self.members.get(&key) {
            Some(Cached::Done(found)) => return found.clone(),
            Some(&Cached::Running(started)) => return self.read_running(started),
            None => {}
        }
        let started = self.tick();
        self.members.insert(key.clone(), Cached::Running(started));
        let found = match namespace {
            Namespace::Module(module) => {
                // A module's own names, not what every module sees.
                let predeclared = self.predeclared_module(module);
                let mut found = self.module_name(module, name, depth);
                found.retain(|t| {
                    !matches!(t, Target::External { module, .. }
                        if module.as_str() == predeclared)
                });
                if found.is_empty()
                    && let Some(sub) = imports::submodule(self.db, self.workspace, module, name)
                {
                    found.push(Target::Module(sub));
                }
                found
            }
            Namespace::Class { file, scope } => self.class_member(file, scope, name, depth),
            Namespace::External(module) => vec![Target::External {
                module: module.to_string(),
                name: Some(name.to_string()),
            }],
            Namespace::ExternalClass { module, class } => vec![Target::External {
                module: module.to_string(),
                name: Some(format!("{class}.{name}")),
            }],
            Namespace::Package { importer, module } => {
                let submodule = format!("{module}.{name}");
                imports::python_absolute_module(self.db, self.workspace, importer, &submodule)
                    .map(Target::Module)
                    .into_iter()
                    .collect()
            }
        };
        self.members.insert(key, Cached::Done(found.clone()));
        found
    }

    fn class_member(
        &mut self,
        file: SourceFile,
        class: ScopeId,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        let found = self.workspace_class_member(file, class, name, depth);
        if !found.is_empty() {
            return found;
        }
        // Only then what an outside base class has (`dict.get`; `object`'s members).
        for namespace in self.outside_bases(file, class, depth + 1) {
            let found = self.member(namespace, name, depth + 1);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// `name` in `class` or its workspace bases: declared, or assigned on instances.
    fn workspace_class_member(
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
        // A method declared on the type (Go: in any file of its package).
        if !self.go_methods(file, class, name).is_empty() {
            return vec![Target::Symbol {
                file,
                scope: class,
                name: name.clone(),
                space: Space::All,
            }];
        }
        let associated = self.rust_associated_items(file, class, name, depth);
        if !associated.is_empty() {
            return associated;
        }
        // An attribute a base class declares or assigns is that one, even where this
        // class's methods assign it too.
        if depth <= MAX_DEPTH {
            for namespace in self.base_namespaces(file, class, depth + 1) {
                if let Namespace::Class { file, scope } = namespace {
                    let found = self.workspace_class_member(file, scope, name, depth + 1);
                    if !found.is_empty() {
                        return found;
                    }
                }
            }
        }
        if self.assigned_on_instances(file, &names, class, name) {
            return vec![Target::Symbol {
                file,
                scope: class,
                name: name.clone(),
                space: Space::All,
            }];
        }
        Vec::new()
    }

    /// The bases of `class`, and of its workspace bases, that are outside the workspace.
    fn outside_bases(&mut self, file: SourceFile, class: ScopeId, depth: u32) -> Vec<Namespace> {
        let mut found = Vec::new();
        if depth > MAX_DEPTH {
            return found;
        }
        for namespace in self.base_namespaces(file, class, depth) {
            match namespace {
                Namespace::Class { file, scope } => {
                    for outside in self.outside_bases(file, scope, depth + 1) {
                        push_unique(&mut found, outside);
                    }
                }
                outside => push_unique(&mut found, outside),
            }
        }
        found
    }

    /// What calling the name at `callee` gives: an instance when it is a class, what its
    /// written return type says when it is a function (`def f() -> C`, `f(): C`); for
    /// `super()` in a method, the class's bases.
    pub(super) fn call_results(
        &mut self,
        file: SourceFile,
        callee: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        self.memoized(
            |r| &mut r.call_results,
            (file, callee, depth),
            |r| r.call_results_uncached(file, callee, depth),
        )
    }

    fn call_results_uncached(
        &mut self,
        file: SourceFile,
        callee: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let names = self.names(file);
        if matches!(self.family(file), Family::Ecma { .. }) {
            let elements = self.element_method_results(file, callee, depth);
            if !elements.is_empty() {
                return elements;
            }
        }
        let called = matches!(names.occurrence(callee).role, Role::Call | Role::MemberCall);
        let targets = self.resolve_at(file, callee, depth).targets;
        let mut found: Vec<Namespace> = Vec::new();
        for target in &targets {
            match target {
                Target::External {
                    module,
                    name: Some(name),
                } if module == python::BUILTINS_MODULE && name == "super" => {
                    let scope = names.occurrence(callee).scope;
                    if let Some(class) = names.enclosing_class(scope) {
                        for namespace in self.base_namespaces(file, class, depth + 1) {
                            push_unique(&mut found, namespace);
                        }
                    }
                }
                Target::Symbol { .. } => {
                    for (site_file, binding) in self.definitions(target) {
                        let site_names = self.names(site_file);
                        let occ = site_names.occurrence(binding);
                        if let (Role::Definition(BindingKind::Function), Some(returned)) =
                            (occ.role, occ.constructor.get())
                        {
                            for namespace in self.namespaces_of(site_file, returned, depth + 1) {
                                if namespace.is_class() {
                                    push_unique(&mut found, namespace);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
        // A class called: an instance of it.
        for namespace in self.namespaces_of_targets(file, targets, called, depth) {
            if namespace.is_class() {
                push_unique(&mut found, namespace);
            }
        }
        found
    }

    /// The classes `class` derives from, as namespaces.
    pub(super) fn base_namespaces(
        &mut self,
        file: SourceFile,
        class: ScopeId,
        depth: u32,
    ) -> Vec<Namespace> {
        let names = self.names(file);
        let bases = names.scopes[class as usize]
            .named_by
            .and_then(|class_name| names.bases.get(&class_name).cloned())
            .unwrap_or_default();
        let mut found = Vec::new();
        for base in bases {
            for namespace in self.namespaces_of(file, base, depth) {
                push_unique(&mut found, namespace);
            }
        }
        found
    }

    /// The parameter `name` of what the name at `callee` calls (a function, or a class's
    /// `__init__`), for a keyword argument.
    fn parameter_of(
        &mut self,
        file: SourceFile,
        callee: OccurrenceId,
        name: &Arc<str>,
        depth: u32,
    ) -> Vec<Target> {
        let mut found = Vec::new();
        for target in self.resolve_at(file, callee, depth).targets {
            // `ImportError(msg, name=n)`: a parameter of something outside the workspace.
            if let Target::External {
                module,
                name: Some(callable),
            } = &target
            {
                push_unique(
                    &mut found,
                    Target::External {
                        module: module.clone(),
                        name: Some(format!("{callable}.{name}")),
                    },
                );
                continue;
            }
            for (file, binding) in self.definitions_at(&target, depth + 1) {
                let names = self.names(file);
                let Some(scope) = self.called_scope(file, &names, binding) else {
                    continue;
                };
                let is_parameter = names
                    .bindings(scope, name)
                    .iter()
                    .any(|&b| names.occurrence(b).role == Role::Definition(BindingKind::Parameter));
                if is_parameter {
                    push_unique(
                        &mut found,
                        Target::Symbol {
                            file,
                            scope,
                            name: name.clone(),
                            space: Space::All,
                        },
                    );
                }
            }
        }
        found
    }

    /// For a name bound by destructuring (`const { x } = obj`), the member `x` of what
    /// `obj` is.
    pub fn destructured_from(&mut self, file: SourceFile, binding: OccurrenceId) -> Vec<Target> {
        self.destructured_from_at(file, binding, 1)
    }

    pub(super) fn destructured_from_at(
        &mut self,
        file: SourceFile,
        binding: OccurrenceId,
        depth: u32,
    ) -> Vec<Target> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let names = self.names(file);
        let occurrence = names.occurrence(binding);
        let (Role::Definition(BindingKind::Variable), Some(source)) =
            (occurrence.role, occurrence.receiver.get())
        else {
            return Vec::new();
        };
        let name: Arc<str> = names.name(binding).into();
        let mut found = Vec::new();
        for namespace in self.namespaces_of(file, source, depth + 1) {
            for target in self.member(namespace, &name, depth + 1) {
                push_unique(&mut found, target);
            }
        }
        found
    }

    /// What the member `name` of `class` overrides: the same name on its bases, nearest
    /// first (for a Python class without a workspace base that defines it, `object`'s).
    pub fn overridden(&mut self, file: SourceFile, class: ScopeId, name: &str) -> Vec<Target> {
        let name: Arc<str> = name.into();
        for namespace in self.base_namespaces(file, class, 1) {
            let found = self.member(namespace, &name, 1);
            if !found.is_empty() {
                return found;
            }
        }
        // Every Python class derives from `object`.
        let object_member = match self.family(file) {
            Family::Python => python::is_object_member(&name),
            Family::Ecma { .. } | Family::Go | Family::Rust => false,
        };
        if object_member {
            return vec![Target::External {
                module: python::BUILTINS_MODULE.into(),
                name: Some(format!("object.{name}")),
            }];
        }
        Vec::new()
    }

    /// Whether a method of `class` assigns `self.name`.
    fn assigned_on_instances(
        &self,
        file: SourceFile,
        names: &FileNames,
        class: ScopeId,
        name: &str,
    ) -> bool {
        let first_parameter = self.rules(file).first_parameter_is_receiver();
        let range = names.scopes[class as usize].range;
        names.occurrences_named(name).any(|id| {
            let occ = names.occurrence(id);
            occ.role == Role::MemberDefinition
                && range.contains_range(occ.range)
                && occ
                    .receiver
                    .get()
                    .is_some_and(|receiver| is_instance_of(names, receiver, class, first_parameter))
        })
    }

    /// The places that define `target`: its bindings (and, for a class member, the
    /// attributes its methods assign on `self`).
    pub fn definitions(&mut self, target: &Target) -> Vec<(SourceFile, OccurrenceId)> {
        self.definitions_at(target, 0)
    }

    /// [`Resolver::definitions`] from inside a resolution `depth` deep: an attribute
    /// assigned on instances is resolved to tell whose it is, and that resolution may come
    /// back here (`self.history.history` in a class whose `history` holds a `History`), so
    /// it must count toward the same bound.
    pub(super) fn definitions_at(
        &mut self,
        target: &Target,
        depth: u32,
    ) -> Vec<(SourceFile, OccurrenceId)> {
        let Target::Symbol {
            file,
            scope,
            name,
            space,
        } = target
        else {
            return Vec::new();
        };
        let names = self.names(*file);
        let mut sites: Vec<(SourceFile, OccurrenceId)> = names
            .bindings(*scope, name)
            .iter()
            .filter(|&&b| spaces::binding_space(&names, b).serves(*space))
            .map(|&b| (*file, b))
            .collect();
        // Attributes assigned on instances define a member the class body does not declare.
        if names.scopes[*scope as usize].is_class && sites.is_empty() {
            let range = names.scopes[*scope as usize].range;
            for id in names.occurrences_named(name) {
                let occ = names.occurrence(id);
                if occ.role == Role::MemberDefinition && range.contains_range(occ.range) {
                    let resolved = self.resolve_at(*file, id, depth + 1);
                    if resolved.targets.contains(target) {
                        sites.push((*file, id));
                    }
                }
            }
            // Go methods, declared outside their type and maybe in another file.
            sites.extend(self.go_methods(*file, *scope, name));
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

    /// The scope whose binding of its name `occurrence` uses, by the lexical rules alone
    /// (imports not followed): what a rename of a local name, such as an import's alias,
    /// edits together. `None` when no scope of the file binds it.
    pub fn binding_scope(&mut self, file: SourceFile, occurrence: OccurrenceId) -> Option<ScopeId> {
        let names = self.names(file);
        let occ = names.occurrence(occurrence);
        let name = names.name(occurrence);
        let mut scope = Some(occ.scope);
        let mut nonlocal = false;
        while let Some(current) = scope {
            let info = &names.scopes[current as usize];
            let visible = current == occ.scope || !info.is_class;
            let is_function = info.parent.is_some() && !info.is_class;
            if visible && (!nonlocal || is_function) {
                match names.declaration(current, name) {
                    Some(Role::Global) if current != 0 => {
                        return (!names.bindings(0, name).is_empty()).then_some(0);
                    }
                    Some(Role::Nonlocal) if current != 0 => {
                        nonlocal = true;
                        scope = info.parent;
                        continue;
                    }
                    _ => {}
                }
                if !names.bindings(current, name).is_empty() {
                    return Some(current);
                }
            }
            scope = info.parent;
        }
        None
    }

    pub fn workspace(&self) -> Workspace {
        self.workspace
    }
}

/// Whether the predeclared `module.name` is a class: a Python builtin type or exception, a
/// JavaScript constructor (`Map`, `Promise`).
fn is_predeclared_class(module: &str, name: &str) -> bool {
    let capitalised = name.starts_with(|c: char| c.is_ascii_uppercase());
    match module {
        python::BUILTINS_MODULE => capitalised || python::is_builtin_type(name),
        ecmascript::GLOBAL_MODULE => capitalised,
        _ => false,
    }
}

/// Whether `receiver` is the instance a method of `class` runs on: `this`, or the method's
/// `self` parameter.
fn is_instance_of(
    names: &FileNames,
    receiver: OccurrenceId,
    class: ScopeId,
    first_parameter: bool,
) -> bool {
    let occurrence = names.occurrence(receiver);
    if occurrence.role == Role::SelfReference {
        return names.enclosing_class(occurrence.scope) == Some(class);
    }
    names
        .bindings(occurrence.scope, names.name(receiver))
        .iter()
        .any(|&b| {
            first_parameter
                && python::is_receiver_parameter(names, b)
                && names.scopes[names.occurrence(b).scope as usize].parent == Some(class)
        })
}

/// `from m import *`, `export * from "m"`: every name of the module is seen here (unlike
/// `import * as ns`, which binds one name).
pub(super) fn is_star_import(import: &ImportSummary) -> bool {
    import.wildcard && import.alias.is_none()
}

/// Appends `item` unless `list` has it: the lists here are a few targets long.
pub fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}
