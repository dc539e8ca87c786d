//! Values and types kept apart, where a language's
//! [`NameRules::keeps_types_apart`](super::NameRules::keeps_types_apart) says so
//! (TypeScript): `const X` and `type X` in one scope are two symbols, and a use sees the one
//! its position asks for (`X.parse()` the value, `let v: X` the type). A binding that is both
//! (a class, an enum, an import) belongs to each; a use that may mean either (a doc comment's
//! link, an import) refers to both. A member a doc link names (`{@link ns.X}`) is taken as a
//! value, as members in code are.
//!
//! Invariant: a scope that binds a name both as a value only and as a type only is never
//! answered as [`Space::All`] by the resolver; a scope that does not is never answered as
//! anything else, so every other language's symbols are unchanged.

use std::sync::Arc;

use super::{
    BindingKind, FileNames, OccurrenceId, Role, ScopeId,
    resolve::{Resolver, Target},
};
use crate::db::SourceFile;

/// Which of a name's meanings a symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Space {
    /// Every binding of the name in its scope: one symbol, as where nothing is told apart.
    All,
    /// Its bindings as a value (`const X`, `function X`, `namespace X`) and as both.
    Value,
    /// Its bindings as a type (`interface X`, `type X`) and as both (a class, an enum).
    Type,
}

impl Space {
    /// Whether a binding of this space is seen by a use asking for `wanted`.
    pub fn serves(self, wanted: Space) -> bool {
        self == Space::All || wanted == Space::All || self == wanted
    }
}

/// The meaning one binding gives its name.
pub fn binding_space(names: &FileNames, binding: OccurrenceId) -> Space {
    match names.occurrence(binding).role {
        Role::Definition(BindingKind::Type) if names.is_type_only(binding) => Space::Type,
        Role::Definition(BindingKind::TypeParameter) => Space::Type,
        Role::Definition(
            BindingKind::Variable | BindingKind::Function | BindingKind::Parameter,
        ) => Space::Value,
        // `namespace N` names a scope that is not a class's: a value, never a type.
        Role::Definition(BindingKind::Class)
            if names
                .scope_named_by(binding)
                .is_some_and(|scope| !names.scopes[scope as usize].is_class) =>
        {
            Space::Value
        }
        _ => Space::All,
    }
}

/// The meaning a use of a name in `role` asks for.
pub fn use_space(role: Role) -> Space {
    match role {
        Role::Type | Role::MemberType | Role::DocType => Space::Type,
        // A member in code (`ns.X`, `new ns.X()`) is a value: in a type it is `MemberType`.
        Role::Read
        | Role::Member
        | Role::MemberCall
        | Role::MemberDefinition
        | Role::Call
        | Role::Write
        | Role::Global
        | Role::Nonlocal
        | Role::SelfReference
        | Role::SuperReference
        | Role::KeywordArgument => Space::Value,
        Role::Definition(_) | Role::DocReference | Role::Imported | Role::ModulePath => Space::All,
    }
}

/// Whether `scope` binds `name` both as a value only and as a type only.
pub fn is_split(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    let bindings = names.bindings(scope, name);
    let has = |space| bindings.iter().any(|&b| binding_space(names, b) == space);
    has(Space::Value) && has(Space::Type)
}

impl Resolver<'_> {
    /// Whether `file`'s language keeps types and values apart.
    pub(super) fn keeps_types_apart(&self, file: SourceFile) -> bool {
        self.rules(file).keeps_types_apart()
    }

    /// Whether `scope` of `file` binds `name` in a way a use asking for `wanted` sees.
    pub(super) fn binds_for(
        &self,
        file: SourceFile,
        names: &FileNames,
        scope: ScopeId,
        name: &str,
        wanted: Space,
    ) -> bool {
        if wanted == Space::All || !self.keeps_types_apart(file) {
            return !names.bindings(scope, name).is_empty();
        }
        names
            .bindings(scope, name)
            .iter()
            .any(|&b| binding_space(names, b).serves(wanted))
    }

    /// `targets` of the use `occurrence` in `file`, each symbol of a split scope taken in
    /// the meaning the use asks for (a binding in its own), or in both when it may mean
    /// either.
    pub(super) fn in_use_space(
        &mut self,
        file: SourceFile,
        occurrence: OccurrenceId,
        targets: Vec<Target>,
    ) -> Vec<Target> {
        if !targets.iter().any(|t| {
            matches!(
                t,
                Target::Symbol {
                    space: Space::All,
                    ..
                }
            )
        }) {
            return targets;
        }
        let names = self.names(file);
        let role = names.occurrence(occurrence).role;
        let mut refined = Vec::with_capacity(targets.len());
        for target in targets {
            let wanted = match &target {
                Target::Symbol {
                    file: at,
                    scope,
                    name,
                    space: Space::All,
                } if *at == file && names.bindings(*scope, name).contains(&occurrence) => {
                    binding_space(&names, occurrence)
                }
                _ => use_space(role),
            };
            for meaning in self.meanings_in(&target, wanted) {
                super::resolve::push_unique(&mut refined, meaning);
            }
        }
        refined
    }

    /// `target` as the symbols a search for it matches: both meanings of a name its scope
    /// binds apart, else itself.
    pub fn meanings(&mut self, target: &Target) -> Vec<Target> {
        self.meanings_in(target, Space::All)
    }

    /// `target` in the meaning `wanted` (both, for [`Space::All`]) when its scope binds the
    /// name apart; else itself.
    fn meanings_in(&mut self, target: &Target, wanted: Space) -> Vec<Target> {
        let Target::Symbol {
            file,
            scope,
            name,
            space: Space::All,
        } = target
        else {
            return vec![target.clone()];
        };
        if !self.keeps_types_apart(*file) || !is_split(&self.names(*file), *scope, name) {
            return vec![target.clone()];
        }
        let symbol = |space| Target::Symbol {
            file: *file,
            scope: *scope,
            name: Arc::clone(name),
            space,
        };
        match wanted {
            Space::All => vec![symbol(Space::Value), symbol(Space::Type)],
            space => vec![symbol(space)],
        }
    }
}
