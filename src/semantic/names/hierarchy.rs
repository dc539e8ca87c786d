//! A file's type declarations and what each names as its bases (`class C(B)`, `extends`,
//! `implements`, a trait's supertraits, an interface's embedded interfaces) and Rust's trait
//! impls, by name: what an implementations search reads of a file before it resolves
//! anything there, so a file that merely mentions a type's name costs no name table.
//!
//! Invariant (incremental): [`file_hierarchy`] depends on its file's [`file_names`] alone
//! and holds no position, so an edit that changes no declaration's bases backdates it.

use std::sync::Arc;

use super::{BindingKind, FileNames, Role, file_names};
use crate::db::{Db, SourceFile};

/// One type declared in a file, and the last names of the bases it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeBases {
    pub name: Box<str>,
    pub bases: Vec<Box<str>>,
}

/// A trait impl (`impl Trait for Type`), by the last names it writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraitImpl {
    pub trait_name: Box<str>,
    pub self_type: Box<str>,
}

/// The declarations of one file that take part in type hierarchies, in document order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileHierarchy {
    /// Types that name at least one base.
    pub derived: Vec<TypeBases>,
    pub trait_impls: Vec<TraitImpl>,
}

impl FileHierarchy {
    /// Whether some declaration here names `name` as a base or implements it.
    pub fn derives_from(&self, name: &str) -> bool {
        self.derived
            .iter()
            .any(|t| t.bases.iter().any(|b| &**b == name))
            || self.trait_impls.iter().any(|i| &*i.trait_name == name)
    }

    /// Whether some trait impl here is for a type called `name`.
    pub fn implements_for(&self, name: &str) -> bool {
        self.trait_impls.iter().any(|i| &*i.self_type == name)
    }
}

/// Whether files of `lang` can hold trait impls at all: its names query marks impl blocks
/// (`@impl.type`). A file of any other language has none, so an impl search need not build
/// its name table.
pub fn may_have_impls(lang: &crate::lang::Language) -> bool {
    lang.query(crate::lang::QueryKind::Locals)
        .is_some_and(|query| query.capture_names().contains(&"impl.type"))
}

/// Whether a defining occurrence declares a type (a class, interface, trait, struct, enum,
/// Go type).
pub fn is_type_definition(names: &FileNames, occurrence: super::OccurrenceId) -> bool {
    matches!(
        names.occurrence(occurrence).role,
        Role::Definition(BindingKind::Class | BindingKind::Type)
    )
}

/// The type declarations of `file` with bases, and its trait impls, without positions.
#[salsa::tracked(returns(clone))]
pub fn file_hierarchy(db: &dyn Db, file: SourceFile) -> Arc<FileHierarchy> {
    let names = file_names(db, file);
    let mut derived: Vec<(u32, TypeBases)> = names
        .bases
        .iter()
        .filter(|(class, _)| is_type_definition(&names, **class))
        .map(|(&class, bases)| {
            let type_bases = TypeBases {
                name: names.name(class).into(),
                bases: bases.iter().map(|&b| names.name(b).into()).collect(),
            };
            (class, type_bases)
        })
        .collect();
    // The map's order is arbitrary; a stable order keeps the value equal across runs.
    derived.sort_by_key(|(class, _)| *class);
    let trait_impls = names
        .impls
        .iter()
        .filter_map(|i| {
            Some(TraitImpl {
                trait_name: names.name(i.trait_name?).into(),
                self_type: names.name(i.self_type).into(),
            })
        })
        .collect();
    Arc::new(FileHierarchy {
        derived: derived.into_iter().map(|(_, t)| t).collect(),
        trait_impls,
    })
}
