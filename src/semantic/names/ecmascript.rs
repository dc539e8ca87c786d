//! JavaScript and TypeScript name rules the locals query cannot say: the globals every
//! module sees (`grammars/ecmascript-globals.txt`), and those test runners add
//! (`grammars/ecmascript-test-globals.txt`); and the resolver's steps for TypeScript's
//! generic bases (a member written as a type parameter of its class is, on a subclass,
//! what the subclass's `extends` clause gives that parameter) and typed arrays' elements.

use std::{collections::HashSet, sync::LazyLock};

use super::{
    BindingKind, NameRules, Occurrence, OccurrenceId, Role, ScopeId,
    resolve::{MAX_DEPTH, Namespace, Resolver, Target, push_unique},
};
use crate::{db::SourceFile, semantic::imports::ImportSummary};

/// JavaScript's and TypeScript's [`NameRules`].
pub struct EcmaNames;

impl NameRules for EcmaNames {
    fn predeclared_module(&self) -> &'static str {
        GLOBAL_MODULE
    }

    fn is_predeclared(&self, name: &str) -> bool {
        is_global(name)
    }

    fn is_module_attribute(&self, _name: &str) -> bool {
        false
    }

    /// The alias, else the imported name, else the module's first part, as in Python.
    fn local_name<'i>(&self, import: &'i ImportSummary) -> &'i str {
        super::python::local_name(import)
    }

    /// The instance is `this`.
    fn first_parameter_is_receiver(&self) -> bool {
        false
    }

    fn declared_in_order(&self) -> bool {
        false
    }

    /// TypeScript's types and values are apart: `type X` and `const X` are two symbols.
    fn keeps_types_apart(&self) -> bool {
        true
    }

    /// As TypeScript's language service counts them: a method's references are its family's.
    fn counts_member_families(&self) -> bool {
        true
    }

    /// As TypeScript's language service counts them: `this.m = f` is a use of `m`.
    fn counts_member_assignments(&self) -> bool {
        true
    }

    fn initializer(&self) -> Option<&'static str> {
        Some("constructor")
    }
}

static GLOBALS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    crate::lang::word_list(include_str!("../../../grammars/ecmascript-globals.txt"))
});

static TEST_GLOBALS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    crate::lang::word_list(include_str!(
        "../../../grammars/ecmascript-test-globals.txt"
    ))
});

/// Modules a test runner's names are imported from (then they are not globals).
pub const TEST_RUNNER_MODULES: &[&str] =
    &["vitest", "@jest/globals", "node:test", "bun:test", "mocha"];

/// Names a test runner puts in scope (`describe`, `it`, `expect`).
pub(crate) fn is_test_global(name: &str) -> bool {
    TEST_GLOBALS.contains(name)
}

/// Where a global is said to come from: the global object.
pub const GLOBAL_MODULE: &str = "globalThis";

/// Names a module sees without declaring or importing them.
pub(crate) fn is_global(name: &str) -> bool {
    GLOBALS.contains(name)
}

/// The methods of an array whose result is one of its elements.
const ELEMENT_METHODS: &[&str] = &["shift", "pop", "at", "find", "findLast"];

impl Resolver<'_> {
    /// What the elements of the array the name at `occurrence` holds are: instances of
    /// the element type its written type gives (`observers: Observer<T>[]`), followed
    /// through a variable assigned it (`const xs = this.observers`) or destructured from
    /// what has it (`const { observers } = this`).
    pub(super) fn element_namespaces(
        &mut self,
        file: SourceFile,
        occurrence: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let targets = self.resolve_at(file, occurrence, depth + 1).targets;
        self.elements_of_targets(targets, depth + 1)
    }

    fn elements_of_targets(&mut self, targets: Vec<Target>, depth: u32) -> Vec<Namespace> {
        let mut found = Vec::new();
        if depth > MAX_DEPTH {
            return found;
        }
        for target in targets {
            for (site_file, binding) in self.definitions_at(&target, depth + 1) {
                let names = self.names(site_file);
                let occ = names.occurrence(binding).clone();
                let namespaces = if let Some(element) = names.element_type(binding) {
                    self.call_results(site_file, element, depth + 1)
                } else if let Some(value) = occ.value.get() {
                    self.element_namespaces(site_file, value, depth + 1)
                } else if occ.role == Role::Definition(BindingKind::Variable)
                    && occ.receiver.is_some()
                {
                    let members = self.destructured_from_at(site_file, binding, depth + 1);
                    self.elements_of_targets(members, depth + 1)
                } else {
                    Vec::new()
                };
                for namespace in namespaces {
                    push_unique(&mut found, namespace);
                }
            }
        }
        found
    }

    /// For a parameter `typed` of a function type written for a callback, when its type
    /// is a type parameter of the called function (`initializer: (inst: T) => void` of
    /// `function $constructor<T>(…): $constructor<T>`): what the type given to the call's
    /// result says that parameter is (`const ZodString: $constructor<ZodString> =
    /// $constructor(…)`: `ZodString`). `call` is the callee's last name at the call.
    pub(super) fn inferred_from_result(
        &mut self,
        file: SourceFile,
        call: OccurrenceId,
        callee_file: SourceFile,
        typed: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        let callee_names = self.names(callee_file);
        let Some(written) = callee_names.occurrence(typed).constructor.get() else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for parameter in self.resolve_at(callee_file, written, depth + 1).targets {
            let Target::Symbol { scope, .. } = &parameter else {
                continue;
            };
            let Some(function) = callee_names.scopes[*scope as usize].named_by else {
                continue;
            };
            let is_type_parameter =
                self.definitions_at(&parameter, depth + 1)
                    .iter()
                    .any(|&(f, b)| {
                        self.names(f).occurrence(b).role
                            == Role::Definition(BindingKind::TypeParameter)
                    });
            if !is_type_parameter
                || callee_names.occurrence(function).role != Role::Definition(BindingKind::Function)
            {
                continue;
            }
            let Some((returned, arguments)) = callee_names.written_generic(function) else {
                continue;
            };
            let arguments = arguments.to_vec();
            let Some(position) = arguments.iter().position(|argument| {
                argument.is_some_and(|argument| {
                    self.resolve_at(callee_file, argument, depth + 1)
                        .targets
                        .contains(&parameter)
                })
            }) else {
                continue;
            };
            let returned = self.resolve_at(callee_file, returned, depth + 1).targets;
            let names = self.names(file);
            for variable in names.assigned_calls_of(call).collect::<Vec<_>>() {
                let Some((given, given_arguments)) = names.written_generic(variable) else {
                    continue;
                };
                let Some(&Some(argument)) = given_arguments.get(position) else {
                    continue;
                };
                let given = self.resolve_at(file, given, depth + 1).targets;
                if !given.iter().any(|target| returned.contains(target)) {
                    continue;
                }
                for namespace in self.call_results(file, argument, depth + 1) {
                    push_unique(&mut found, namespace);
                }
            }
        }
        found
    }

    /// What calling `callee` gives when it is an array's method returning an element
    /// (`observers.shift()`) and the array's elements are known.
    pub(super) fn element_method_results(
        &mut self,
        file: SourceFile,
        callee: OccurrenceId,
        depth: u32,
    ) -> Vec<Namespace> {
        let names = self.names(file);
        let occ = names.occurrence(callee);
        match occ.receiver.get() {
            Some(receiver)
                if occ.role.is_member() && ELEMENT_METHODS.contains(&names.name(callee)) =>
            {
                self.element_namespaces(file, receiver, depth + 1)
            }
            _ => Vec::new(),
        }
    }

    /// For a member whose written type is a type parameter of the class declaring it
    /// (`_def: Def` in `Schema<Out, Def>`), the type the receiver's class gives that
    /// parameter where it derives from that class (`extends Schema<T, OptionalDef<T>>`:
    /// an `OptionalDef`). Empty when no receiver's class gives it a named type: the
    /// parameter's constraint is all that is known then.
    pub(super) fn member_type_given_by_base(
        &mut self,
        file: SourceFile,
        member: &Occurrence,
        targets: &[Target],
        depth: u32,
    ) -> Vec<Namespace> {
        let Some(receiver) = member.receiver.get() else {
            return Vec::new();
        };
        if depth > MAX_DEPTH {
            return Vec::new();
        }
        // (the class declaring the parameter, the parameter's position).
        let mut parameters: Vec<((SourceFile, ScopeId), usize)> = Vec::new();
        for target in targets {
            for (site_file, binding) in self.definitions_at(target, depth + 1) {
                let site_names = self.names(site_file);
                let Some(written) = site_names.occurrence(binding).constructor.get() else {
                    continue;
                };
                for written_target in self.resolve_at(site_file, written, depth + 1).targets {
                    let Target::Symbol { scope, .. } = written_target else {
                        continue;
                    };
                    for (parameter_file, parameter) in
                        self.definitions_at(&written_target, depth + 1)
                    {
                        let parameter_names = self.names(parameter_file);
                        if parameter_names.occurrence(parameter).role
                            != Role::Definition(BindingKind::TypeParameter)
                            || !parameter_names.scopes[scope as usize].is_class
                        {
                            continue;
                        }
                        if let Some(position) = parameter_names
                            .type_parameters(scope)
                            .position(|p| p == parameter)
                        {
                            push_unique(&mut parameters, ((parameter_file, scope), position));
                        }
                    }
                }
            }
        }
        if parameters.is_empty() {
            return Vec::new();
        }
        let receivers = if member.receiver_called {
            self.call_results(file, receiver, depth + 1)
        } else {
            self.namespaces_of(file, receiver, depth + 1)
        };
        let mut found = Vec::new();
        for namespace in receivers {
            let Namespace::Class {
                file: class_file,
                scope: class,
            } = namespace
            else {
                continue;
            };
            for &(declaring, position) in &parameters {
                let Some((argument_file, argument)) =
                    self.base_type_argument(class_file, class, declaring, position, depth + 1)
                else {
                    continue;
                };
                for given in self.call_results(argument_file, argument, depth + 1) {
                    push_unique(&mut found, given);
                }
            }
        }
        found
    }

    /// The type argument (its type's last name) that `class` gives the type parameter at
    /// `position` of `declaring`, where it derives from `declaring` directly or through
    /// its bases (then the nearest base deriving from it writes the argument).
    fn base_type_argument(
        &mut self,
        file: SourceFile,
        class: ScopeId,
        declaring: (SourceFile, ScopeId),
        position: usize,
        depth: u32,
    ) -> Option<(SourceFile, OccurrenceId)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let names = self.names(file);
        let bases = names.scopes[class as usize]
            .named_by
            .and_then(|class_name| names.bases.get(&class_name).cloned())
            .unwrap_or_default();
        for base in bases {
            for namespace in self.namespaces_of(file, base, depth + 1) {
                let Namespace::Class {
                    file: base_file,
                    scope: base_class,
                } = namespace
                else {
                    continue;
                };
                let found = if (base_file, base_class) == declaring {
                    names.base_argument(base, position).map(|a| (file, a))
                } else {
                    self.base_type_argument(base_file, base_class, declaring, position, depth + 1)
                };
                if found.is_some() {
                    return found;
                }
            }
        }
        None
    }
}
