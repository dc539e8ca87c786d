//! Names: per file, its scopes, the names each scope binds and every use of a name, from
//! `queries/<lang>/locals.scm` (capture conventions in `queries/README.md`), built by
//! `extract.rs`. What a name refers to is decided in `resolve/mod.rs`; language rules the
//! query cannot say live in one module per language (`python.rs`, `ecmascript.rs`, `go.rs`,
//! `rust.rs`); `identifiers.rs` is the identifier → files index that limits a reference
//! search to the files that can mention a name.
//!
//! Invariant: [`file_names`] depends on its file's text alone, so an edit re-runs it for
//! that file only; questions across files are answered at query time from each file's own
//! names, which is what keeps indexing file-incremental.

pub mod ecmascript;
mod extract;
pub mod family;
pub mod go;
pub mod hierarchy;
pub mod identifiers;
pub mod python;
pub mod resolve;
pub mod rust;
pub mod spaces;

use std::sync::Arc;

use foldhash::{HashMap, HashSet};
use serde::{Deserialize, Serialize};

use crate::{
    db::{Db, RecordKind, SourceFile},
    lang::Family,
    semantic::imports::ImportSummary,
    syntax::{TextRange, TextSize},
};

/// What a language family's names need beyond its `locals.scm`: one implementation per
/// family (`python.rs`, `ecmascript.rs`, `go.rs`, `rust.rs`), found by [`rules`]. No method
/// has a default, so a new family answers every question.
pub trait NameRules: Sync {
    /// Where the names every module sees without binding them are said to come from
    /// (Python's `builtins`, JavaScript's `globalThis`).
    fn predeclared_module(&self) -> &'static str;

    /// Whether every module sees `name` without binding it.
    fn is_predeclared(&self, name: &str) -> bool;

    /// Whether `name` is an attribute each module has of its own (Python's `__name__`): a
    /// use of it names the module itself.
    fn is_module_attribute(&self, name: &str) -> bool;

    /// The name an import binds where it is written.
    fn local_name<'i>(&self, import: &'i ImportSummary) -> &'i str;

    /// Whether a method's first parameter is the instance it runs on (Python's `self`),
    /// rather than a keyword (`this`).
    fn first_parameter_is_receiver(&self) -> bool;

    /// Whether a name of a function or a block is seen only after its declaration (Go);
    /// otherwise anywhere in its scope. Top-level names are seen everywhere.
    fn declared_in_order(&self) -> bool;

    /// Whether a name bound as a type only (`@type.only`) and as a value only in one scope
    /// is two symbols (TypeScript's `type X` and `const X`), each use seeing the one its
    /// position asks for; otherwise a scope's bindings of a name are one symbol.
    fn keeps_types_apart(&self) -> bool;

    /// Whether a reference search for a class's member also finds the members of its
    /// family: those of the same name it overrides, up to the first declaration, and those
    /// overriding these in every subclass (`names/family.rs`).
    fn counts_member_families(&self) -> bool;

    /// Whether assigning to a member on a value (`this.m = f`) is a use of the member it
    /// replaces, for the call graph (TypeScript's language service lists it among `m`'s
    /// call sites); otherwise it defines an attribute, or declares a method (Go).
    fn counts_member_assignments(&self) -> bool;

    /// The method a call of a class runs with the call's arguments (Python's `__init__`,
    /// JavaScript's `constructor`); `None` where calling a type is no call of a method.
    fn initializer(&self) -> Option<&'static str>;
}

/// The name rules of `family`.
pub fn rules(family: Family) -> &'static dyn NameRules {
    match family {
        Family::Python => &python::PythonNames,
        Family::Ecma { .. } => &ecmascript::EcmaNames,
        Family::Go => &go::GoNames,
        Family::Rust => &rust::RustNames,
    }
}

pub type ScopeId = u32;
pub type OccurrenceId = u32;

/// An optional [`OccurrenceId`] in four bytes, where `Option<u32>` takes eight: a name table
/// holds an [`Occurrence`] for every name in its file, about one per seven bytes of text,
/// and four of their fields are optional ids (the name tables were five times their
/// files' text, measured on Rust crates).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OptionalId(Option<std::num::NonZeroU32>);

impl OptionalId {
    pub const NONE: OptionalId = OptionalId(None);

    /// `id`, which must be below `u32::MAX` (a file's occurrences and offsets are: texts are
    /// limited far below 4 GiB).
    pub fn some(id: u32) -> OptionalId {
        OptionalId(std::num::NonZeroU32::new(id.wrapping_add(1)))
    }

    pub fn get(self) -> Option<u32> {
        self.0.map(|stored| stored.get() - 1)
    }

    pub fn is_some(self) -> bool {
        self.0.is_some()
    }

    pub fn is_none(self) -> bool {
        self.0.is_none()
    }
}

impl std::fmt::Debug for OptionalId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// A region whose bindings are its own (a module, a function, a comprehension…).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// Binds the name in its scope.
    Definition(BindingKind),
    /// `global x` / `nonlocal x`: the scope's `x` is the module's / an enclosing function's.
    Global,
    Nonlocal,
    /// A use of the name as a variable.
    Read,
    /// A name a doc comment links to (`{@link X}`, `@see X`): whatever the name means where
    /// the comment is, a value or a type. It reads nothing, so no check counts it as a use.
    DocReference,
    /// A type a doc comment names (`X` in `@param {X} x`, `@throws {Array<X>}`): the name
    /// as a type. Like a link, it reads nothing.
    DocType,
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
    /// In a type (`ns.T` in `let x: ns.T`): a type, where types and values are apart.
    MemberType,
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
            Role::Member | Role::MemberCall | Role::MemberType | Role::MemberDefinition
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
            "member.type" => Role::MemberType,
            "member.definition" => Role::MemberDefinition,
            "skip" => return Some(None),
            _ => return None,
        }))
    }
}

/// One name where it occurs in the file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Occurrence {
    pub range: TextRange,
    pub scope: ScopeId,
    pub role: Role,
    /// For a member: the last name of the receiver (`b` in `a.b.name`), when the receiver
    /// ends with a name.
    pub receiver: OptionalId,
    /// The receiver is a call of that name (`C().name`).
    pub receiver_called: bool,
    /// For a variable assigned a call's result (`x = C(…)`): the callee's last name.
    pub constructor: OptionalId,
    /// For a variable assigned a name (`m = pyclbr`, `m = a.b`): that name's last part; the
    /// variable holds what it names.
    pub value: OptionalId,
    /// For a part of a module's name: where the whole name starts (an offset).
    pub path_start: OptionalId,
    /// For a binding: where it takes effect (the end of its assignment; else its own end).
    pub effective: u32,
}

/// The names of one file.
#[derive(Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileNames {
    /// The file's text, which names are read from; not recorded (see [`file_names`]).
    #[serde(skip)]
    text: Arc<str>,
    /// Scope 0 is the file's.
    pub scopes: Vec<Scope>,
    /// In document order.
    pub occurrences: Vec<Occurrence>,
    /// A class's bases, by the class's defining occurrence: each base's last name.
    pub bases: HashMap<OccurrenceId, Vec<OccurrenceId>>,
    /// The type arguments a base is given (`Schema<T, OptionalDef<T>>`), by the base's last
    /// name: each argument's type's last name, where it is a named type.
    base_arguments: HashMap<OccurrenceId, Vec<Option<OccurrenceId>>>,
    /// Bindings with a written generic type (a variable's `: Box<A>`, a function's return
    /// type): its name's last name, and each type argument's last name where it is a named
    /// type (`@written.generic`, `@written.argument`).
    written_generics: HashMap<OccurrenceId, (OccurrenceId, Vec<Option<OccurrenceId>>)>,
    /// Bindings whose written type is an array (`Observer<T>[]`): the elements' type's
    /// last name (`@elements`).
    element_types: HashMap<OccurrenceId, OccurrenceId>,
    /// Variables that hold an element of a value (`for (const x of xs)`): the value's last
    /// name (`@element.of`).
    iterated: HashMap<OccurrenceId, OccurrenceId>,
    /// Members looked up on an element of their receiver (`xs[i].m`, `@receiver.element`).
    element_receivers: HashSet<OccurrenceId>,
    /// Names the module exports under another name than they are bound by (`export
    /// default f`, `export {a as b}`): the exported name → the occurrence it stands for.
    exports: HashMap<Box<str>, OccurrenceId>,
    /// Bindings that hold an instance of a builtin type (`x = []` → `list`), and members
    /// looked up on a literal (`", ".join` → `str`): by occurrence, the type's name.
    builtin_instances: HashMap<OccurrenceId, Box<str>>,
    /// Bindings of a name as a type and nothing else (a TypeScript interface or type
    /// alias, `@type.only`).
    type_only: HashSet<OccurrenceId>,
    /// By name, then by scope (few scopes bind one name): looked up without allocating.
    bindings: HashMap<Box<str>, Vec<(ScopeId, Vec<OccurrenceId>)>>,
    /// Every occurrence of each name, in document order. Not recorded: built from the
    /// occurrences and the text once the table has its text (see [`file_names`]).
    #[serde(skip)]
    by_name: NameGroups,
    declarations: HashMap<Box<str>, Vec<(ScopeId, Role)>>,
    /// Scopes whose items are members of a type named elsewhere (Rust's impl blocks).
    pub impls: Vec<Impl>,
    /// Parameters whose written type is a function's (`@signature`): that type's scope,
    /// whose parameters type those of a function passed for it.
    signatures: HashMap<OccurrenceId, ScopeId>,
    /// Functions passed as an argument (`@callback`), by their scope.
    callbacks: HashMap<ScopeId, Callback>,
    /// Functions that write `this`'s type as a parameter (`this: Action<T>`), by their
    /// scope: the type's last name.
    this_types: HashMap<ScopeId, OccurrenceId>,
    /// Code that runs on some paths only (`@flow.branch`, `@flow.loop`), in document order.
    flow: Vec<FlowRegion>,
    /// This table's share of the database's [`Db::name_tables`] while it lives.
    #[serde(skip)]
    counted: crate::db::Counted,
}

/// What the allocator gives for a request of `bytes`: its size class, in steps of 16 bytes
/// up to 128 and of a quarter of the power of two below above that (jemalloc's classes).
/// A name table is mostly small allocations (a list of ids per name and scope), where the
/// rounding is a third of what they hold.
fn allocation(bytes: usize) -> usize {
    match bytes {
        0 => 0,
        1..=128 => bytes.next_multiple_of(16),
        _ => {
            let power_below = 1usize << (usize::BITS - 1 - (bytes - 1).leading_zeros());
            bytes.next_multiple_of(power_below / 4)
        }
    }
}

/// The allocation of a hash table that can hold `capacity` entries of `entry` bytes: its
/// buckets, a power of two of which seven eighths are used (all but one below eight), and
/// a control byte for each and for a group's width more.
fn hash_table(capacity: usize, entry: usize) -> usize {
    let buckets = match capacity {
        0 => return 0,
        1..=3 => 4,
        4..=7 => 8,
        _ => (capacity * 8 / 7).next_power_of_two(),
    };
    allocation(buckets * entry + buckets + 16)
}

/// A stretch of code that runs on some paths only: one alternative of a conditional
/// statement (an `if`'s body, an `else`, an `except` clause), or a loop's body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct FlowRegion {
    range: TextRange,
    /// The statement it is one alternative of; `None` for a loop body.
    alternative_of: Option<TextRange>,
}

/// Where `this` gets its type when no class gives it ([`FileNames::this_source`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThisSource {
    /// A `this:` parameter's written type (its last name).
    Written(OccurrenceId),
    /// The callee of the `function` callback with this scope.
    Callback(ScopeId),
}

/// A function passed as an argument (`@callback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Callback {
    /// The callee's last name.
    pub callee: OccurrenceId,
    /// The argument's position among the call's.
    pub argument: u32,
    /// Its `this` is the callee's to give (a `function`, not an arrow function).
    pub binds_this: bool,
}

/// A scope that adds members to a type (`impl Foo`, `impl Trait for Foo`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

    /// Gives back the spare capacity its tables grew with: a table is kept (up to the
    /// LRU's bound), and growth by doubling left a quarter of it unused on average.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.scopes.shrink_to_fit();
        self.occurrences.shrink_to_fit();
        self.flow.shrink_to_fit();
        self.impls.shrink_to_fit();
        for scopes in self.bindings.values_mut() {
            for (_, sites) in scopes.iter_mut() {
                sites.shrink_to_fit();
            }
            scopes.shrink_to_fit();
        }
        self.bindings.shrink_to_fit();
        self.bases.shrink_to_fit();
        self.type_only.shrink_to_fit();
        self.builtin_instances.shrink_to_fit();
    }

    pub fn occurrence(&self, id: OccurrenceId) -> &Occurrence {
        &self.occurrences[id as usize]
    }

    /// What this table holds on the heap, as counted in its database's tally: each
    /// collection's allocation (a hash table's buckets and control bytes) and what its
    /// elements hold, each rounded up to the allocator's size class, the table itself, and
    /// the text where the table has its own copy (`own_text`: a decompressed one). Checked
    /// against the growth of resident memory by `benches/tree_memory.rs`.
    pub fn heap_bytes(&self, own_text: bool) -> usize {
        fn vec<T>(items: &Vec<T>) -> usize {
            allocation(items.capacity() * size_of::<T>())
        }
        fn text(text: &str) -> usize {
            allocation(text.len())
        }
        fn map<K, V>(map: &HashMap<K, V>) -> usize {
            hash_table(map.capacity(), size_of::<(K, V)>())
        }
        fn set<K>(set: &HashSet<K>) -> usize {
            hash_table(set.capacity(), size_of::<K>())
        }
        let own = if own_text {
            allocation(self.text.len())
        } else {
            0
        };
        let lists = vec(&self.scopes)
            + vec(&self.occurrences)
            + vec(&self.impls)
            + vec(&self.flow)
            + allocation(size_of_val(&*self.by_name.ids))
            + allocation(size_of_val(&*self.by_name.groups));
        let maps = map(&self.bases)
            + map(&self.base_arguments)
            + map(&self.written_generics)
            + map(&self.element_types)
            + map(&self.iterated)
            + set(&self.element_receivers)
            + map(&self.exports)
            + map(&self.builtin_instances)
            + set(&self.type_only)
            + map(&self.bindings)
            + map(&self.declarations)
            + map(&self.signatures)
            + map(&self.callbacks)
            + map(&self.this_types);
        let in_maps = self.bases.values().map(vec).sum::<usize>()
            + self.base_arguments.values().map(vec).sum::<usize>()
            + (self.written_generics.values())
                .map(|(_, v)| vec(v))
                .sum::<usize>()
            + self.exports.keys().map(|name| text(name)).sum::<usize>()
            + (self.builtin_instances.values())
                .map(|name| text(name))
                .sum::<usize>()
            + (self.bindings.iter())
                .map(|(name, scopes)| {
                    text(name) + vec(scopes) + scopes.iter().map(|(_, ids)| vec(ids)).sum::<usize>()
                })
                .sum::<usize>()
            + (self.declarations.iter())
                .map(|(name, scopes)| text(name) + vec(scopes))
                .sum::<usize>();
        allocation(size_of::<Self>()) + own + lists + maps + in_maps
    }

    /// The bytes this table is counted at in its database's tally (0 for one never
    /// counted).
    pub fn counted_bytes(&self) -> usize {
        self.counted.bytes()
    }

    /// The definitions binding `name` in `scope`, in document order.
    pub fn bindings(&self, scope: ScopeId, name: &str) -> &[OccurrenceId] {
        self.bindings
            .get(name)
            .and_then(|scopes| scopes.iter().find(|(s, _)| *s == scope))
            .map_or(&[], |(_, sites)| sites.as_slice())
    }

    /// Whether `binding` binds its name as a type and nothing else (`interface I`).
    pub fn is_type_only(&self, binding: OccurrenceId) -> bool {
        self.type_only.contains(&binding)
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

    /// The file's whole text, as its names were read from it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The text between two offsets (a module's name up to one of its parts).
    pub fn text_between(&self, start: u32, end: u32) -> &str {
        self.text
            .get(start as usize..end as usize)
            .unwrap_or_default()
    }

    /// The module path `occurrence` ends, as written from its first part (`a.b.c` in
    /// `a.b.c`, `super::m` in `super::m`), whitespace dropped.
    pub fn path_as_written(&self, occurrence: &Occurrence) -> String {
        let start = occurrence
            .path_start
            .get()
            .unwrap_or(u32::from(occurrence.range.start()));
        self.text_between(start, occurrence.range.end().into())
            .split_whitespace()
            .collect()
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

    /// The names the module exports `name` under besides its own (`b` of `export {a as b}`
    /// for `a`), in no particular order.
    pub fn exported_as<'n>(&'n self, name: &'n str) -> impl Iterator<Item = &'n str> + 'n {
        self.exports
            .iter()
            .filter(move |&(_, &local)| self.name(local) == name)
            .map(|(exported, _)| &**exported)
    }

    /// The builtin type `occurrence` holds (a binding) or is looked up on (a member).
    pub fn builtin_instance(&self, occurrence: OccurrenceId) -> Option<&str> {
        self.builtin_instances.get(&occurrence).map(|t| &**t)
    }

    /// The function type written for `parameter` (`init: (s: Subscriber) => void`), as the
    /// scope holding its parameters.
    pub fn signature(&self, parameter: OccurrenceId) -> Option<ScopeId> {
        self.signatures.get(&parameter).copied()
    }

    /// For a function passed as an argument (its scope): the callee and the argument's
    /// position among the call's.
    pub fn callback(&self, scope: ScopeId) -> Option<Callback> {
        self.callbacks.get(&scope).copied()
    }

    /// The type a function (or function type) writes for `this` as a parameter.
    pub fn written_this(&self, scope: ScopeId) -> Option<OccurrenceId> {
        self.this_types.get(&scope).copied()
    }

    /// Where `this` in `scope` gets its type: the nearest function around (or `scope`
    /// itself) that writes it as a parameter (`function (this: Action<T>)`, the type's
    /// last name) or is passed to a callee that gives it (a `function` callback's scope);
    /// an arrow function's `this` is its surroundings'. Nothing past the nearest class.
    pub fn this_source(&self, scope: ScopeId) -> Option<ThisSource> {
        let mut current = Some(scope);
        while let Some(id) = current {
            if let Some(&written) = self.this_types.get(&id) {
                return Some(ThisSource::Written(written));
            }
            if self.callbacks.get(&id).is_some_and(|c| c.binds_this) {
                return Some(ThisSource::Callback(id));
            }
            if self.scopes[id as usize].is_class {
                return None;
            }
            current = self.scopes[id as usize].parent;
        }
        None
    }

    /// The type argument at `position` that the base `base` (its last name) is given, when
    /// it is a named type (its last name).
    pub fn base_argument(&self, base: OccurrenceId, position: usize) -> Option<OccurrenceId> {
        self.base_arguments
            .get(&base)?
            .get(position)
            .copied()
            .flatten()
    }

    /// `binding`'s written generic type: its name's last name and its type arguments'.
    pub fn written_generic(
        &self,
        binding: OccurrenceId,
    ) -> Option<(OccurrenceId, &[Option<OccurrenceId>])> {
        self.written_generics
            .get(&binding)
            .map(|(name, arguments)| (*name, arguments.as_slice()))
    }

    /// The variables whose value is a call of `callee` (`const x = f()`).
    pub fn assigned_calls_of(
        &self,
        callee: OccurrenceId,
    ) -> impl Iterator<Item = OccurrenceId> + '_ {
        self.occurrences
            .iter()
            .enumerate()
            .filter(move |(_, o)| {
                o.constructor.get() == Some(callee)
                    && o.role == Role::Definition(BindingKind::Variable)
            })
            .map(|(i, _)| i as OccurrenceId)
    }

    /// The type of the elements of `binding`'s written array type, as its last name.
    pub fn element_type(&self, binding: OccurrenceId) -> Option<OccurrenceId> {
        self.element_types.get(&binding).copied()
    }

    /// The value whose element `variable` holds (`xs` of `for (const x of xs)`).
    pub fn iterated(&self, variable: OccurrenceId) -> Option<OccurrenceId> {
        self.iterated.get(&variable).copied()
    }

    /// Whether the member `member` is looked up on an element of its receiver (`xs[i].m`).
    pub fn receives_element(&self, member: OccurrenceId) -> bool {
        self.element_receivers.contains(&member)
    }

    /// The type parameters `scope` (a class, interface or alias) declares, in order.
    pub fn type_parameters(&self, scope: ScopeId) -> impl Iterator<Item = OccurrenceId> + '_ {
        self.bound_in(scope, BindingKind::TypeParameter)
    }

    /// The parameters `scope` binds, in order.
    pub fn parameters(&self, scope: ScopeId) -> impl Iterator<Item = OccurrenceId> + '_ {
        self.bound_in(scope, BindingKind::Parameter)
    }

    /// The definitions of `kind` `scope` makes itself, in order: a binary search to the
    /// scope's start, then its occurrences only.
    fn bound_in(
        &self,
        scope: ScopeId,
        kind: BindingKind,
    ) -> impl Iterator<Item = OccurrenceId> + '_ {
        let range = self.scopes[scope as usize].range;
        let first = self
            .occurrences
            .partition_point(|o| o.range.start() < range.start());
        self.occurrences[first..]
            .iter()
            .take_while(move |o| o.range.start() < range.end())
            .enumerate()
            .filter(move |(_, o)| o.scope == scope && o.role == Role::Definition(kind))
            .map(move |(i, _)| (first + i) as OccurrenceId)
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
        self.by_name.get(name, |id| self.name(id)).iter().copied()
    }
}

/// The occurrences of a file grouped by name, with no string or list allocated per name (a
/// map of names to lists took three allocations per distinct name): a name's ids lie
/// together in one array, and its group is found by a binary search on the name's hash,
/// then checked by its text, since two names may share a hash.
#[derive(Debug, Default, PartialEq, Eq)]
struct NameGroups {
    /// Every occurrence id, each name's together and in document order.
    ids: Box<[OccurrenceId]>,
    /// Each name's hash, and where its ids start in `ids` and how many there are; sorted.
    groups: Box<[(u64, u32, u32)]>,
}

impl NameGroups {
    fn hash(name: &str) -> u64 {
        use std::hash::BuildHasher;
        foldhash::fast::FixedState::with_seed(0).hash_one(name)
    }

    fn new<'n>(occurrences: usize, name: impl Fn(OccurrenceId) -> &'n str) -> NameGroups {
        let mut keyed: Vec<(u64, OccurrenceId)> = (0..occurrences as OccurrenceId)
            .map(|id| (Self::hash(name(id)), id))
            .collect();
        keyed.sort_unstable_by(|a, b| {
            (a.0.cmp(&b.0))
                .then_with(|| name(a.1).cmp(name(b.1)))
                .then(a.1.cmp(&b.1))
        });
        let mut groups: Vec<(u64, u32, u32)> = Vec::new();
        for (i, &(hash, id)) in keyed.iter().enumerate() {
            match groups.last_mut() {
                Some(group) if group.0 == hash && name(keyed[group.1 as usize].1) == name(id) => {
                    group.2 += 1;
                }
                _ => groups.push((hash, i as u32, 1)),
            }
        }
        NameGroups {
            ids: keyed.into_iter().map(|(_, id)| id).collect(),
            groups: groups.into(),
        }
    }

    /// The ids of the occurrences called `wanted`, `name` giving each occurrence's name.
    fn get<'n>(&self, wanted: &str, name: impl Fn(OccurrenceId) -> &'n str) -> &[OccurrenceId] {
        let hash = Self::hash(wanted);
        let first = self.groups.partition_point(|group| group.0 < hash);
        self.groups[first..]
            .iter()
            .take_while(|group| group.0 == hash)
            .map(|&(_, start, len)| &self.ids[start as usize..(start + len) as usize])
            .find(|ids| name(ids[0]) == wanted)
            .unwrap_or_default()
    }
}

/// What the name tables kept between questions may hold: 512 of the Python standard
/// library's held about 50 MB, and a reference search over more files than are kept
/// computes the others again anyway.
const NAME_TABLE_BYTES_KEPT: usize = 32 << 20;
/// Under a memory limit, the tables kept hold at most this share of it (6.25 MiB of 400M),
/// and no more than without one: a reference search over more files computes the rest
/// again.
const NAME_TABLE_SHARE_OF_LIMIT: u64 = 64;
/// However small the tables, no more are kept: each is an entry of salsa's memo to keep
/// track of, and a search over more files reads them again from the persistent cache.
const NAME_TABLES_MOST: usize = 256;
/// However large the tables, this many are kept: the files an agent is editing and asking
/// about, whose names every question reads.
const NAME_TABLES_FEWEST: usize = 4;

/// Sets what the name tables kept between questions may hold, with `memory_limit` or
/// without (applied by [`fit_name_tables`]).
pub fn budget_name_tables(db: &dyn Db, memory_limit: Option<u64>) {
    let budget = match memory_limit {
        Some(limit) => usize::try_from(limit / NAME_TABLE_SHARE_OF_LIMIT)
            .map_or(NAME_TABLE_BYTES_KEPT, |share| {
                share.min(NAME_TABLE_BYTES_KEPT)
            }),
        None => NAME_TABLE_BYTES_KEPT,
    };
    db.name_tables().set_budget(budget);
}

/// Bounds how many name tables salsa keeps by what the live ones hold: as many as fit the
/// budget at their mean size (the tally's, see [`crate::db::Tally`]). Salsa's bound is a
/// count, and a generated file's table can be a hundred times a hand-written module's.
/// Called before each eviction, where salsa applies the bound.
pub fn fit_name_tables(db: &mut dyn Db) {
    if let Some(kept) = db
        .name_tables()
        .entries_within(NAME_TABLES_FEWEST, NAME_TABLES_MOST)
    {
        file_names::set_lru_capacity(db, kept);
    }
}

/// The scopes, bindings and name uses of one file. Files of a language without a locals
/// query have none.
///
/// Bounded by an LRU: a table costs about three times its file's text (100 MB for the 31.6
/// MB of the Python standard library's 1,793 files, measured at a whole check's peak), and
/// one references search or the background check computes it for hundreds or all files.
/// What depends on a table (checks, rename plans) keeps its own small memo, so an evicted
/// table is recomputed only when a question needs that file's names again. The bound is
/// in bytes, [`NAME_TABLE_BYTES_KEPT`] or a share of `--max-memory` ([`fit_name_tables`]
/// turns it into salsa's count; the attribute's number is only its start).
#[salsa::tracked(returns(clone), no_eq, lru = 256)]
pub fn file_names(db: &dyn Db, file: SourceFile) -> Arc<FileNames> {
    Arc::new(file_names_unkept(db, file))
}

/// [`file_names`] computed for a query that reads every file's table once and keeps only
/// a little of it (`python_definitions`): memoized, the tables of a whole workspace would
/// be held together until the LRU bound is next applied. The reading query depends on what
/// this reads, as it would on `file_names`. With a persistent cache, the next `file_names`
/// of the file reads back the record this one wrote.
pub fn file_names_unkept(db: &dyn Db, file: SourceFile) -> FileNames {
    let lang = file.lang(db).info();
    let text = file.text(db);
    let parts = || super::persisted::language_and_text(db, file);
    let mut names = super::persisted::recorded(db, RecordKind::FileNames, parts, || {
        let interrupt = || super::is_cancelled(db);
        let tree = super::file_tree(db, file);
        match extract::extract(lang, text.clone(), tree.as_ref(), &interrupt) {
            Some(names) => names,
            None => super::cancelled(db),
        }
    });
    names.text = text.clone();
    names.by_name = NameGroups::new(names.occurrences.len(), |id| names.name(id));
    // Where texts are kept compressed, each read decompresses one: the table's is its own.
    let bytes = names.heap_bytes(db.keeps_texts_compressed());
    names.counted = db.name_tables().count(bytes);
    names
}

#[cfg(test)]
mod tests {
    use super::{Occurrence, OptionalId};

    #[test]
    fn allocations_are_counted_at_the_allocators_size_classes() {
        use super::{allocation, hash_table};
        let classes = [0, 1, 16, 17, 128, 129, 200, 256, 257, 1000, 1025].map(allocation);
        assert_eq!(
            classes,
            [0, 16, 16, 32, 128, 160, 224, 256, 320, 1024, 1280]
        );
        // 3 entries: 4 buckets; 14: 16; 15: 32 (seven eighths of 16 is 14).
        let tables = [0, 3, 14, 15].map(|capacity| hash_table(capacity, 8));
        assert_eq!(tables, [0, 64, 160, 320]);
    }

    #[test]
    fn an_optional_id_keeps_every_id_and_none_in_four_bytes() {
        for id in [0, 1, 7, u32::MAX - 1] {
            assert_eq!(OptionalId::some(id).get(), Some(id));
        }
        assert_eq!(OptionalId::NONE.get(), None);
        assert_eq!(OptionalId::default(), OptionalId::NONE);
        assert_eq!(size_of::<OptionalId>(), 4);
        // Four optional ids, a range, a scope, where it takes effect, its role and a flag.
        assert_eq!(size_of::<Occurrence>(), 36);
    }
}
