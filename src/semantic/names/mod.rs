//! Names: per file, its scopes, the names each scope binds and every use of a name, from
//! `queries/<lang>/locals.scm` (capture conventions in `queries/README.md`). What a name
//! refers to is decided in `resolve/mod.rs`; language rules the query cannot say live in one
//! module per language (`python.rs`, `ecmascript.rs`, `go.rs`, `rust.rs`); `identifiers.rs` is the identifier → files index that
//! limits a reference search to the files that can mention a name.
//!
//! Invariant: [`file_names`] depends on its file's text alone, so an edit re-runs it for
//! that file only; questions across files are answered at query time from each file's own
//! names, which is what keeps indexing file-incremental.

pub mod ecmascript;
pub mod go;
pub mod identifiers;
pub mod python;
pub mod resolve;
pub mod rust;

use std::{collections::HashMap, sync::Arc};

use crate::{
    db::{Db, SourceFile},
    lang::{Language, QueryKind},
    syntax::{self, TextRange, TextSize},
};

pub type ScopeId = u32;
pub type OccurrenceId = u32;

/// A region whose bindings are its own (a module, a function, a comprehension…).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope {
    pub parent: Option<ScopeId>,
    pub range: TextRange,
    /// Its bindings are not seen from scopes nested in it (a Python class body).
    pub is_class: bool,
    /// A block (JavaScript's `{ … }`, `for`): hoisted declarations (`var`, a function's
    /// parameters) pass through it to the function around.
    pub is_block: bool,
    /// The definition that names it (`def f`, `class C`), which is bound in the parent.
    pub named_by: Option<OccurrenceId>,
}

/// What kind of binding a definition makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BindingKind {
    Function,
    Class,
    Parameter,
    Variable,
    Import,
    /// A type (`interface`, `type`, `enum`).
    Type,
    /// A generic's type parameter (`T` in `class Box<T>`): seen from the methods of a class
    /// too.
    TypeParameter,
    /// A module whose items are written in place (Rust's `mod m { … }`): its scope holds
    /// them, looked up as `m::name`.
    Module,
}

/// How a name is used where it occurs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// Binds the name in its scope.
    Definition(BindingKind),
    /// `global x` / `nonlocal x`: the scope's `x` is the module's / an enclosing function's.
    Global,
    Nonlocal,
    /// A use of the name as a variable.
    Read,
    Call,
    Type,
    /// Changes the binding without making one (`del x`).
    Write,
    /// The name an import looks up in its module when it binds another (`x` in
    /// `from m import x as y`).
    Imported,
    /// `super` (as in `super.m()`): the base classes of the class around.
    SuperReference,
    /// A keyword argument's name (`key` in `f(key=1)`): a parameter of the callee, which is
    /// the occurrence's receiver.
    KeywordArgument,
    /// The object a method runs on, written as a keyword (`this`): an instance of the class
    /// around.
    SelfReference,
    /// A part of a module's name in an import (`b` in `import a.b.c` names `a.b`).
    ModulePath,
    /// A name looked up on a receiver (`obj.name`): read, called, or assigned.
    Member,
    MemberCall,
    MemberDefinition,
}

impl Role {
    /// Whether the name reads the value it is bound to (a variable's use, not a member).
    pub fn reads_binding(self) -> bool {
        matches!(self, Role::Read | Role::Call | Role::Type)
    }

    pub fn is_member(self) -> bool {
        matches!(
            self,
            Role::Member | Role::MemberCall | Role::MemberDefinition
        )
    }

    fn from_capture(name: &str) -> Option<Option<Role>> {
        Some(Some(match name {
            "definition.function" => Role::Definition(BindingKind::Function),
            "definition.class" => Role::Definition(BindingKind::Class),
            "definition.parameter" => Role::Definition(BindingKind::Parameter),
            "definition.variable" => Role::Definition(BindingKind::Variable),
            "definition.import" => Role::Definition(BindingKind::Import),
            "definition.type" => Role::Definition(BindingKind::Type),
            "definition.type_parameter" => Role::Definition(BindingKind::TypeParameter),
            "definition.module" => Role::Definition(BindingKind::Module),
            "declaration.global" => Role::Global,
            "declaration.nonlocal" => Role::Nonlocal,
            "reference" => Role::Read,
            "reference.call" => Role::Call,
            "reference.type" => Role::Type,
            "reference.write" => Role::Write,
            "reference.imported" => Role::Imported,
            "reference.module" => Role::ModulePath,
            "reference.self" => Role::SelfReference,
            "reference.keyword" => Role::KeywordArgument,
            "reference.super" => Role::SuperReference,
            "member" => Role::Member,
            "member.call" => Role::MemberCall,
            "member.definition" => Role::MemberDefinition,
            "skip" => return Some(None),
            _ => return None,
        }))
    }
}

/// One name where it occurs in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Occurrence {
    pub range: TextRange,
    pub scope: ScopeId,
    pub role: Role,
    /// For a member: the last name of the receiver (`b` in `a.b.name`), when the receiver
    /// ends with a name.
    pub receiver: Option<OccurrenceId>,
    /// The receiver is a call of that name (`C().name`).
    pub receiver_called: bool,
    /// For a variable assigned a call's result (`x = C(…)`): the callee's last name.
    pub constructor: Option<OccurrenceId>,
    /// For a variable assigned a name (`m = pyclbr`, `m = a.b`): that name's last part; the
    /// variable holds what it names.
    pub value: Option<OccurrenceId>,
    /// For a part of a module's name: where the whole name starts.
    pub path_start: Option<u32>,
    /// For a binding: where it takes effect (the end of its assignment; else its own end).
    pub effective: u32,
}

/// The names of one file.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FileNames {
    text: Arc<str>,
    /// Scope 0 is the file's.
    pub scopes: Vec<Scope>,
    /// In document order.
    pub occurrences: Vec<Occurrence>,
    /// A class's bases, by the class's defining occurrence: each base's last name.
    pub bases: HashMap<OccurrenceId, Vec<OccurrenceId>>,
    /// Names the module exports under another name than they are bound by (`export
    /// default f`, `export {a as b}`): the exported name → the occurrence it stands for.
    exports: HashMap<Box<str>, OccurrenceId>,
    /// Bindings that hold an instance of a builtin type (`x = []` → `list`), and members
    /// looked up on a literal (`", ".join` → `str`): by occurrence, the type's name.
    builtin_instances: HashMap<OccurrenceId, Box<str>>,
    /// By name, then by scope (few scopes bind one name): looked up without allocating.
    bindings: HashMap<Box<str>, Vec<(ScopeId, Vec<OccurrenceId>)>>,
    /// Every occurrence of each name, in document order.
    by_name: HashMap<Box<str>, Vec<OccurrenceId>>,
    declarations: HashMap<Box<str>, Vec<(ScopeId, Role)>>,
    /// Scopes whose items are members of a type named elsewhere (Rust's impl blocks).
    pub impls: Vec<Impl>,
    /// Code that runs on some paths only (`@flow.branch`, `@flow.loop`), in document order.
    flow: Vec<FlowRegion>,
}

/// A stretch of code that runs on some paths only: one alternative of a conditional
/// statement (an `if`'s body, an `else`, an `except` clause), or a loop's body.
#[derive(Clone, Debug, PartialEq, Eq)]
struct FlowRegion {
    range: TextRange,
    /// The statement it is one alternative of; `None` for a loop body.
    alternative_of: Option<TextRange>,
}

/// A scope that adds members to a type (`impl Foo`, `impl Trait for Foo`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Impl {
    pub scope: ScopeId,
    /// The type's name where the impl writes it (`Foo` in `impl<T> a::Foo<T>`).
    pub self_type: OccurrenceId,
    /// The trait's name, for a trait impl.
    pub trait_name: Option<OccurrenceId>,
}

impl FileNames {
    pub fn name(&self, occurrence: OccurrenceId) -> &str {
        let range = self.occurrences[occurrence as usize].range;
        self.text
            .get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or_default()
    }

    pub fn occurrence(&self, id: OccurrenceId) -> &Occurrence {
        &self.occurrences[id as usize]
    }

    /// The definitions binding `name` in `scope`, in document order.
    pub fn bindings(&self, scope: ScopeId, name: &str) -> &[OccurrenceId] {
        self.bindings
            .get(name)
            .and_then(|scopes| scopes.iter().find(|(s, _)| *s == scope))
            .map_or(&[], |(_, sites)| sites.as_slice())
    }

    /// `global` or `nonlocal`, when `scope` declares `name` so.
    pub fn declaration(&self, scope: ScopeId, name: &str) -> Option<Role> {
        self.declarations
            .get(name)?
            .iter()
            .find(|(s, _)| *s == scope)
            .map(|&(_, role)| role)
    }

    /// The occurrence whose range contains `offset` (or ends at it: a cursor just after a
    /// name is on it).
    pub fn at_offset(&self, offset: usize) -> Option<OccurrenceId> {
        let after = self
            .occurrences
            .partition_point(|o| usize::from(o.range.start()) <= offset);
        let candidate = after.checked_sub(1)?;
        let range = self.occurrences[candidate].range;
        (offset <= usize::from(range.end())).then_some(candidate as OccurrenceId)
    }

    /// The text between two offsets (a module's name up to one of its parts).
    pub fn text_between(&self, start: u32, end: u32) -> &str {
        self.text
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// Whether `binding` is in effect at `offset`: it has run by then (an assignment
    /// binds once its value is computed), or it is the name at `offset` itself.
    pub fn bound_at(&self, binding: OccurrenceId, offset: u32) -> bool {
        let occurrence = self.occurrence(binding);
        u32::from(occurrence.range.start()) == offset || occurrence.effective <= offset
    }

    /// Of one scope's `bindings` of a name (in document order), those that may hold when
    /// `used`, in the same scope, runs: nearest first, back to the first that runs on every
    /// path to it. A binding in another alternative of the same `if` (`try`, `match`) never
    /// reaches it, unless a loop inside `scope_range` around both carries it over. Empty
    /// when none has run by then.
    pub fn reaching(
        &self,
        bindings: &[OccurrenceId],
        used: OccurrenceId,
        scope_range: TextRange,
    ) -> Vec<OccurrenceId> {
        if bindings.contains(&used) {
            return vec![used];
        }
        let at = self.occurrence(used).range.start();
        let mut found = Vec::new();
        for &binding in bindings.iter().rev() {
            if !self.bound_at(binding, u32::from(at)) {
                continue;
            }
            let start = self.occurrence(binding).range.start();
            if self.in_other_alternative(start, at, scope_range) {
                continue;
            }
            found.push(binding);
            if !self
                .flow
                .iter()
                .any(|r| r.range.contains(start) && !r.range.contains(at))
            {
                break;
            }
        }
        found
    }

    /// Whether `a` and `b` are in different alternatives of one statement that no loop
    /// (inside `scope_range`) repeats.
    fn in_other_alternative(&self, a: TextSize, b: TextSize, scope_range: TextRange) -> bool {
        let only_around = |inside: TextSize, outside: TextSize| {
            self.flow.iter().filter(move |r| {
                r.alternative_of.is_some() && r.range.contains(inside) && !r.range.contains(outside)
            })
        };
        only_around(a, b).any(|ra| {
            let statement = ra.alternative_of;
            only_around(b, a).any(|rb| rb.alternative_of == statement)
                && !self.flow.iter().any(|loop_body| {
                    loop_body.alternative_of.is_none()
                        && scope_range.contains_range(loop_body.range)
                        && statement.is_some_and(|s| loop_body.range.contains_range(s))
                })
        })
    }

    /// The class whose method `scope` is (or is in), for `this`.
    pub fn enclosing_class(&self, scope: ScopeId) -> Option<ScopeId> {
        let mut current = Some(scope);
        while let Some(id) = current {
            let info = &self.scopes[id as usize];
            if info.is_class {
                return Some(id);
            }
            current = info.parent;
        }
        None
    }

    /// The scope a definition names (`def f` → f's scope).
    pub fn scope_named_by(&self, occurrence: OccurrenceId) -> Option<ScopeId> {
        self.scopes
            .iter()
            .position(|s| s.named_by == Some(occurrence))
            .map(|i| i as ScopeId)
    }

    /// The occurrence a module exports as `name` when it is not the module's own binding
    /// of that name (`default`, or `b` in `export {a as b}`).
    pub fn export(&self, name: &str) -> Option<OccurrenceId> {
        self.exports.get(name).copied()
    }

    /// The builtin type `occurrence` holds (a binding) or is looked up on (a member).
    pub fn builtin_instance(&self, occurrence: OccurrenceId) -> Option<&str> {
        self.builtin_instances.get(&occurrence).map(|t| &**t)
    }

    /// The impl block `scope` is, if it is one.
    pub fn impl_of(&self, scope: ScopeId) -> Option<&Impl> {
        self.impls.iter().find(|i| i.scope == scope)
    }

    /// The name of the type or module a scope holds the members of: the definition naming
    /// it (`class C`, `struct S`, `mod m`), or the type an impl block is for.
    pub fn scope_name(&self, scope: ScopeId) -> Option<&str> {
        match self.scopes[scope as usize].named_by {
            Some(named_by) => Some(self.name(named_by)),
            None => self.impl_of(scope).map(|i| self.name(i.self_type)),
        }
    }

    /// Whether `scope` holds names looked up from outside it (`C.x`, `m::f`): a class, an
    /// impl block or an inline module.
    pub fn is_namespace(&self, scope: ScopeId) -> bool {
        self.scopes[scope as usize].is_class
            || self.scopes[scope as usize]
                .named_by
                .is_some_and(|n| self.occurrence(n).role == Role::Definition(BindingKind::Module))
    }

    /// Occurrences called `name`, in document order.
    pub fn occurrences_named(&self, name: &str) -> impl Iterator<Item = OccurrenceId> + '_ {
        self.by_name
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
    }
}

/// The scopes, bindings and name uses of one file. Files of a language without a locals
/// query have none.
///
/// Bounded by an LRU: a table costs about 130 bytes per name occurrence (190 MB for the
/// 1.45 million occurrences of the Python standard library), and one references search or
/// the background check computes it for hundreds or all files. What depends on a table
/// (checks, rename plans) keeps its own small memo, so an evicted table is recomputed only
/// when a question needs that file's names again.
#[salsa::tracked(returns(clone), no_eq, lru = 512)]
pub fn file_names(db: &dyn Db, file: SourceFile) -> Arc<FileNames> {
    let interrupt = || super::is_cancelled(db);
    let tree = super::file_tree(db, file);
    match extract(
        file.lang(db).info(),
        file.text(db).clone(),
        tree.as_ref(),
        &interrupt,
    ) {
        Some(names) => Arc::new(names),
        None => super::cancelled(db),
    }
}

/// A scope as the query found it.
struct RawScope {
    range: TextRange,
    is_class: bool,
    is_block: bool,
    /// Its `name` child: a definition there is bound in the parent scope.
    name: Option<TextRange>,
    /// A pattern's scope (`@scope.let`): the node whose definitions it holds, though they
    /// are written before it starts.
    binds: Option<TextRange>,
}

fn range_of(node: tree_sitter::Node) -> TextRange {
    TextRange::new(
        (node.start_byte() as u32).into(),
        (node.end_byte() as u32).into(),
    )
}

/// The names of `text`, from `tree`, its parse (`None` when the parser gave up: no
/// names). `None` when interrupted.
pub(crate) fn extract(
    lang: &Language,
    text: Arc<str>,
    tree: Option<&tree_sitter::Tree>,
    interrupt: syntax::Interrupt,
) -> Option<FileNames> {
    let whole = TextRange::up_to((text.len() as u32).into());
    let mut names = FileNames {
        scopes: vec![Scope {
            parent: None,
            range: whole,
            is_class: false,
            is_block: false,
            named_by: None,
        }],
        ..FileNames::default()
    };
    let Some(query) = lang.query(QueryKind::Locals) else {
        names.text = text;
        return Some(names);
    };
    let Some(tree) = tree else {
        names.text = text;
        return Some(names);
    };
    let capture_names = query.capture_names();
    let mut scopes: Vec<RawScope> = Vec::new();
    // By range: the role from the earliest pattern that captured the node.
    let mut roles: HashMap<TextRange, (usize, Option<Role>)> = HashMap::new();
    // (member, receiver), (variable, callee), (class, base): by the nodes' ranges.
    let mut receivers: Vec<(TextRange, TextRange, bool)> = Vec::new();
    let mut constructors: Vec<(TextRange, TextRange)> = Vec::new();
    let mut values: Vec<(TextRange, TextRange)> = Vec::new();
    let mut bases: Vec<(TextRange, TextRange)> = Vec::new();
    let mut module_paths: Vec<(TextRange, TextRange)> = Vec::new();
    let mut effective: Vec<(TextRange, TextRange)> = Vec::new();
    let mut exported: Vec<(TextRange, TextRange)> = Vec::new();
    let mut hoisted: std::collections::HashSet<TextRange> = Default::default();
    let mut class_members: std::collections::HashSet<TextRange> = Default::default();
    let mut transparent: std::collections::HashSet<TextRange> = Default::default();
    let mut instances: Vec<(TextRange, &str)> = Vec::new();
    // (impl block, its type's name, its trait's name): by the nodes' ranges.
    let mut impl_types: Vec<(TextRange, TextRange, Option<TextRange>)> = Vec::new();
    let mut flow: Vec<FlowRegion> = Vec::new();
    // `@string.code` minus `@string.value`: the insides of strings to parse as code.
    let code_strings: std::cell::RefCell<Vec<tree_sitter::Range>> = Default::default();
    let value_strings: std::cell::RefCell<std::collections::HashSet<TextRange>> =
        Default::default();
    // A match of the file's tree, or (`in_string`) of a string's content parsed as code,
    // from which only uses are taken: a string binds nothing and opens no scope.
    let mut on_match = |m: &tree_sitter::QueryMatch<'_, '_>, in_string: bool| {
        let (mut named, mut receiver, mut constructor, mut superclass) = (None, None, None, None);
        let mut value = None;
        let (mut module_path, mut after, mut export) = (None, None, None);
        let (mut hoist, mut class_member, mut instance) = (false, false, None);
        // `@scope.let` and the nodes bounding its scope; `@impl.type`, `@impl.trait`.
        let (mut binder, mut scope_from, mut scope_to) = (None, None, None);
        let (mut impl_type, mut impl_trait, mut class_scope) = (None, None, None);
        for capture in m.captures() {
            let node = capture.node;
            let range = range_of(node);
            let capture_name = capture_names[capture.index as usize];
            if in_string {
                match capture_name {
                    "receiver" => receiver = Some((range, false)),
                    "receiver.called" => receiver = Some((range, true)),
                    other => {
                        if let Some(Some(role)) = Role::from_capture(other)
                            && (role.reads_binding()
                                || matches!(role, Role::Member | Role::MemberCall))
                        {
                            roles.entry(range).or_insert((m.pattern_index, Some(role)));
                            named = Some(range);
                        }
                    }
                }
                continue;
            }
            match capture_name {
                // An escape makes the text differ from what the language reads.
                "string.code" if node.child_count() == 0 => {
                    code_strings.borrow_mut().push(node.range())
                }
                "string.code" => {}
                "string.value" => {
                    value_strings.borrow_mut().insert(range);
                }
                kind @ ("scope" | "scope.class" | "scope.block") => {
                    if kind == "scope.class" {
                        class_scope = Some(range);
                    }
                    scopes.push(RawScope {
                        range,
                        is_class: kind == "scope.class",
                        is_block: kind == "scope.block",
                        name: node.child_by_field_name("name").map(range_of),
                        binds: None,
                    })
                }
                "scope.let" => binder = Some((range, node.parent().map(range_of))),
                "scope.from" => scope_from = Some(range),
                "scope.to" => scope_to = Some(range),
                "impl.type" => impl_type = Some(range),
                "impl.trait" => impl_trait = Some(range),
                "scope.transparent" => {
                    transparent.insert(range);
                }
                "flow.branch" => flow.push(FlowRegion {
                    range,
                    alternative_of: node.parent().map(range_of),
                }),
                "flow.loop" => flow.push(FlowRegion {
                    range,
                    alternative_of: None,
                }),
                "receiver" => receiver = Some((range, false)),
                "receiver.called" => receiver = Some((range, true)),
                "constructor" => constructor = Some(range),
                "value" => value = Some(range),
                "superclass" => superclass = Some(range),
                "module.path" => module_path = Some(range),
                "effective.after" => after = Some(range),
                "export.name" => export = Some(range),
                "hoisted" => hoist = true,
                "class.member" => class_member = true,
                other if other.starts_with("instance.") => {
                    instance = other.strip_prefix("instance.");
                }
                other => {
                    if let Some(role) = Role::from_capture(other) {
                        let entry = roles.entry(range).or_insert((m.pattern_index, role));
                        if m.pattern_index < entry.0 {
                            *entry = (m.pattern_index, role);
                        }
                        named = Some(range);
                    }
                }
            }
        }
        // A pattern's scope: from the end of the pattern (or of `@scope.from`) to the end of
        // `@scope.to` (or of the pattern's parent: a `let`'s block).
        if let Some((pattern, parent)) = binder
            && let Some(end) = scope_to.or(parent).map(|r| r.end())
        {
            let start = scope_from.unwrap_or(pattern).end();
            if start < end {
                scopes.push(RawScope {
                    range: TextRange::new(start, end),
                    is_class: false,
                    is_block: false,
                    name: None,
                    binds: Some(pattern),
                });
            }
        }
        if let (Some(scope), Some(ty)) = (class_scope, impl_type) {
            impl_types.push((scope, ty, impl_trait));
        }
        if let Some(named) = named {
            if let Some((r, called)) = receiver {
                receivers.push((named, r, called));
            }
            if in_string {
                return;
            }
            if let Some(v) = value {
                values.push((named, v));
            }
            if let Some(c) = constructor {
                constructors.push((named, c));
            }
            if let Some(b) = superclass {
                bases.push((named, b));
            }
            if let Some(p) = module_path {
                module_paths.push((named, p));
            }
            if let Some(a) = after {
                effective.push((named, a));
            }
            if let Some(e) = export {
                exported.push((named, e));
            }
            if hoist {
                hoisted.insert(named);
            }
            if class_member {
                class_members.insert(named);
            }
            if let Some(type_name) = instance {
                instances.push((named, type_name));
            }
        }
    };
    if !syntax::run_query(lang, QueryKind::Locals, tree, &text, interrupt, |m| {
        on_match(m, false)
    }) {
        return None;
    }
    let value_strings = value_strings.take();
    for string in code_strings.take() {
        let whole = TextRange::new(
            (string.start_byte as u32).into(),
            (string.end_byte as u32).into(),
        );
        if value_strings.contains(&whole) {
            continue;
        }
        let parsed = syntax::parse_range(
            lang,
            &text,
            string.start_byte..string.end_byte,
            string.start_point,
            string.end_point,
            interrupt,
        );
        let finished = match parsed {
            Some(inside) if !inside.root_node().has_error() => {
                syntax::run_query(lang, QueryKind::Locals, &inside, &text, interrupt, |m| {
                    on_match(m, true)
                })
            }
            None => !interrupt(),
            Some(_) => true,
        };
        if !finished {
            return None;
        }
    }
    flow.sort_by_key(|region| (region.range.start(), std::cmp::Reverse(region.range.end())));
    flow.dedup();
    names.flow = flow;

    // Scopes, outermost first, each with its parent; the file's scope stays 0.
    scopes.retain(|s| !transparent.contains(&s.range));
    scopes.sort_by_key(|s| (s.range.start(), std::cmp::Reverse(s.range.end())));
    scopes.dedup_by(|later, kept| {
        if later.range != kept.range {
            return false;
        }
        kept.binds = kept.binds.or(later.binds);
        kept.name = kept.name.or(later.name);
        true
    });
    let mut scope_names: HashMap<TextRange, ScopeId> = HashMap::new();
    // Pattern scopes by the pattern they hold the names of, in document order (patterns
    // nest or are apart, as syntax nodes do).
    let mut binders: Vec<(TextRange, ScopeId)> = Vec::new();
    let mut scope_ids: HashMap<TextRange, ScopeId> = HashMap::new();
    let mut stack: Vec<ScopeId> = vec![0];
    // The root node starts after leading whitespace (a byte-order mark, a blank line), so
    // its range may be less than the file's; either way it is the file's scope.
    let root = range_of(tree.root_node());
    for raw in scopes {
        if raw.range == whole || raw.range == root {
            continue;
        }
        while let Some(&top) = stack.last() {
            if top == 0 || names.scopes[top as usize].range.contains_range(raw.range) {
                break;
            }
            stack.pop();
        }
        let id = names.scopes.len() as ScopeId;
        names.scopes.push(Scope {
            parent: stack.last().copied(),
            range: raw.range,
            is_class: raw.is_class,
            is_block: raw.is_block,
            named_by: None,
        });
        if let Some(name) = raw.name {
            scope_names.insert(name, id);
        }
        if let Some(pattern) = raw.binds {
            binders.push((pattern, id));
        }
        scope_ids.insert(raw.range, id);
        stack.push(id);
    }
    binders.sort_by_key(|(pattern, _)| (pattern.start(), std::cmp::Reverse(pattern.end())));

    // Occurrences in document order, each in the innermost scope around it; a scope's own
    // name belongs to the scope around it.
    let mut found: Vec<(TextRange, Role)> = roles
        .into_iter()
        .filter_map(|(range, (_, role))| Some((range, role?)))
        .collect();
    found.sort_by_key(|(range, _)| range.start());
    let mut by_end: HashMap<u32, OccurrenceId> = HashMap::new();
    let mut stack: Vec<ScopeId> = vec![0];
    let mut next_scope = 1usize;
    let mut binder_stack: Vec<(TextRange, ScopeId)> = Vec::new();
    let mut next_binder = 0usize;
    for (range, role) in found {
        while next_scope < names.scopes.len()
            && names.scopes[next_scope].range.start() <= range.start()
        {
            stack.push(next_scope as ScopeId);
            next_scope += 1;
        }
        while let Some(&top) = stack.last() {
            if top == 0 || names.scopes[top as usize].range.contains_range(range) {
                break;
            }
            stack.pop();
        }
        // The stack may hold a scope that starts later and was pushed early; keep only
        // scopes around this occurrence.
        let mut scope = *stack
            .iter()
            .rev()
            .find(|&&s| names.scopes[s as usize].range.contains_range(range))
            .unwrap_or(&0);
        let id = names.occurrences.len() as OccurrenceId;
        if let Some(&named) = scope_names.get(&range) {
            names.scopes[named as usize].named_by = Some(id);
            scope = names.scopes[named as usize].parent.unwrap_or(0);
        }
        if hoisted.contains(&range) {
            while names.scopes[scope as usize].is_block {
                scope = names.scopes[scope as usize].parent.unwrap_or(0);
            }
        }
        // A name a pattern binds belongs to the pattern's scope, unless a scope inside the
        // pattern's node holds it (a closure's parameter in a `let`'s value).
        while next_binder < binders.len() && binders[next_binder].0.start() <= range.start() {
            binder_stack.push(binders[next_binder]);
            next_binder += 1;
        }
        while binder_stack
            .last()
            .is_some_and(|(pattern, _)| !pattern.contains_range(range))
        {
            binder_stack.pop();
        }
        if let (Role::Definition(_), Some(&(pattern, bound_in))) = (role, binder_stack.last())
            && !pattern.contains_range(names.scopes[scope as usize].range)
        {
            scope = bound_in;
        }
        by_end.insert(range.end().into(), id);
        names.occurrences.push(Occurrence {
            range,
            scope,
            role,
            receiver: None,
            receiver_called: false,
            constructor: None,
            value: None,
            path_start: None,
            effective: range.end().into(),
        });
    }
    let by_range: HashMap<TextRange, OccurrenceId> = names
        .occurrences
        .iter()
        .enumerate()
        .map(|(i, o)| (o.range, i as OccurrenceId))
        .collect();
    // A receiver, callee or base is known by its last name: the occurrence ending with it.
    let last_name = |range: TextRange| by_end.get(&u32::from(range.end())).copied();
    for (member, receiver, called) in receivers {
        if let (Some(&m), Some(r)) = (by_range.get(&member), last_name(receiver)) {
            let occurrence = &mut names.occurrences[m as usize];
            if occurrence.receiver.is_none() {
                occurrence.receiver = Some(r);
                occurrence.receiver_called = called;
            }
        }
    }
    for (variable, value) in values {
        if let (Some(&v), Some(n)) = (by_range.get(&variable), last_name(value)) {
            names.occurrences[v as usize].value = Some(n);
        }
    }
    for (variable, callee) in constructors {
        if let (Some(&v), Some(c)) = (by_range.get(&variable), last_name(callee)) {
            names.occurrences[v as usize].constructor = Some(c);
        }
    }
    for (binding, statement) in effective {
        if let Some(&b) = by_range.get(&binding) {
            names.occurrences[b as usize].effective = statement.end().into();
        }
    }
    for (occurrence, type_name) in instances {
        if let Some(&o) = by_range.get(&occurrence) {
            names.builtin_instances.insert(o, type_name.into());
        }
    }
    for (local, name) in exported {
        if let (Some(&l), Some(exported)) = (
            by_range.get(&local),
            text.get(usize::from(name.start())..usize::from(name.end())),
        ) {
            names.exports.entry(exported.into()).or_insert(l);
        }
    }
    for (part, path) in module_paths {
        if let Some(&p) = by_range.get(&part) {
            names.occurrences[p as usize].path_start = Some(path.start().into());
        }
    }
    for (scope, ty, tr) in impl_types {
        if let (Some(&scope), Some(&self_type)) = (scope_ids.get(&scope), by_range.get(&ty)) {
            names.impls.push(Impl {
                scope,
                self_type,
                trait_name: tr.and_then(|t| by_range.get(&t).copied()),
            });
        }
    }
    for (class, base) in bases {
        if let (Some(&c), Some(b)) = (by_range.get(&class), last_name(base)) {
            let list = names.bases.entry(c).or_default();
            if !list.contains(&b) {
                list.push(b);
            }
        }
    }
    names.text = text;
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = &names.occurrences[id as usize];
        let range = occurrence.range;
        let name = names
            .text
            .get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or_default();
        match names.by_name.get_mut(name) {
            Some(list) => list.push(id),
            None => {
                names.by_name.insert(name.into(), vec![id]);
            }
        }
        if let role @ (Role::Global | Role::Nonlocal) = occurrence.role {
            let scope = occurrence.scope;
            let list = names
                .declarations
                .entry(Box::from(names.name(id)))
                .or_default();
            if !list.iter().any(|(s, _)| *s == scope) {
                list.push((scope, role));
            }
        }
    }
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = &names.occurrences[id as usize];
        if let Role::Definition(_) = occurrence.role {
            let name = Box::<str>::from(names.name(id));
            // `global x` then `x = …` in a function binds the module's x.
            let scope = match names.declaration(occurrence.scope, &name) {
                Some(Role::Global) => 0,
                _ => occurrence.scope,
            };
            // A constructor's `private x: T` is a member of the class too.
            let class = class_members
                .contains(&occurrence.range)
                .then(|| names.enclosing_class(scope))
                .flatten();
            let scopes = names.bindings.entry(name).or_default();
            for scope in std::iter::once(scope).chain(class) {
                match scopes.iter_mut().find(|(s, _)| *s == scope) {
                    Some((_, sites)) => sites.push(id),
                    None => scopes.push((scope, vec![id])),
                }
            }
        }
    }
    Some(names)
}
