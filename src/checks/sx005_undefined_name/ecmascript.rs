//! JavaScript, TypeScript and TSX checks: undefined names (SX005), unused imports (SX006),
//! relative or `paths`-mapped imports that lead to no workspace file (SX003), and names
//! imported from a workspace module that does not export them (SX004; only modules whose
//! exports can be told: no `export =` or CommonJS exports, and `export * from` only of
//! workspace modules whose exports can be told, followed transitively: [`module_exports`](crate::semantic::facts::ecmascript::module_exports)).
//!
//! Names are looked up in the file's own scopes (`file_names`) by JavaScript's rules: every
//! binding of an enclosing scope is seen (declarations are hoisted; the temporal dead zone
//! is not an undefined name), except a class body's members, which are reached through
//! `this` (its type parameters are seen); an interface's or enum's names are seen inside it.
//! Then the globals every module sees (`grammars/ecmascript-globals.txt`: JavaScript, the
//! browser, web workers, Node and TypeScript's libraries), and the globals the workspace
//! declares itself ([`workspace_globals`]): the top-level names of its scripts (files with
//! no `import` or `export`, `.d.ts` ones included) and what any file declares in `declare
//! global { … }` or `export as namespace N`. A `.d.ts` file is not checked (its names are
//! ambient declarations); a JavaScript script (no `import` or `export`) and a file with a
//! `/// <reference types=… />` or `path=…` directive get no undefined-name reports, since what
//! they see comes from the page or from declarations sextant may not see. Inside a namespace, a
//! name any namespace body of the file binds is taken as seen (namespaces merge). Names a test
//! runner puts in scope (`grammars/ecmascript-test-globals.txt`) are globals of files that
//! import nothing from a test runner's module; in JavaScript, a name the file tests with
//! `typeof name` is an optional global (`typeof Deno !== "undefined"`), and so is one it
//! assigns as a member of anything (`root.Prism = …`, the global object under an alias).
//!
//! An undefined name that one workspace module exports carries the fix importing it
//! (`missing_import.rs`).
//!
//! Invariant: reads the file's own queries and, of other files, only position-free facts:
//! each file's [`module_facts`] (its global names and its exports, which backdate when an
//! edit leaves them alone), [`module_exports`](crate::semantic::facts::ecmascript::module_exports) built from those, an undefined name's
//! providers (`definers`, built from those), and the path-built module map behind
//! `imports::resolve`.

use std::collections::HashSet;

use super::missing_import;
use crate::{
    checks::{CheckContext, Diagnostic, registry::ids, walk},
    lang::Family,
    semantic::{
        facts::ecmascript::{module_facts, workspace_globals},
        names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId, ecmascript},
    },
};

pub(super) fn check(ctx: &CheckContext) -> Vec<Diagnostic> {
    let (db, file) = (ctx.db, ctx.file);
    let names = ctx.names();
    let own = module_facts(db, file);
    let javascript = ctx.lang == Family::JAVASCRIPT;
    let undefined = own.module || !javascript;
    if !undefined || own.triple_slash {
        return Vec::new();
    }
    let globals = workspace_globals(db, ctx.workspace);
    let test_runner_imported = ctx
        .symbols()
        .imports
        .summaries
        .iter()
        .any(|i| ecmascript::TEST_RUNNER_MODULES.contains(&i.module.as_str()));
    let candidates = undefined_candidates(names, &globals, !test_runner_imported);
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = ctx.root() else {
        return Vec::new();
    };
    let found = undefined_names(names, root, &text, candidates, javascript);
    // A TypeScript script's names are global: an import would make it a module.
    if !own.module {
        return found;
    }
    found
        .into_iter()
        .map(|d| {
            let name = &text[usize::from(d.range.start())..usize::from(d.range.end())];
            let fix = missing_import::ecmascript(ctx, names, root, &text, name);
            d.with_fix(fix)
        })
        .collect()
}

/// Whether a use of a name needs a binding: a read, or an assignment (modules are strict
/// code, where assigning an undeclared name throws).
fn needs_binding(role: Role) -> bool {
    role.reads_binding() || role == Role::Write
}

/// Whether a binding of `name` in `scope` or a scope around it is seen from `scope`.
pub(crate) fn is_bound(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    visible_binding_scope(names, scope, name).is_some()
}

/// The innermost scope around `scope` (itself included) whose binding of `name` a use in
/// `scope` sees: a class body's own bindings are its members (reached through `this`), except
/// its type parameters.
pub(crate) fn visible_binding_scope(
    names: &FileNames,
    scope: ScopeId,
    name: &str,
) -> Option<ScopeId> {
    let mut current = Some(scope);
    while let Some(id) = current {
        let info = &names.scopes[id as usize];
        let bindings = names.bindings(id, name);
        let seen = if info.is_class && is_class_body(names, id) {
            bindings
                .iter()
                .any(|&b| names.occurrence(b).role == Role::Definition(BindingKind::TypeParameter))
        } else {
            !bindings.is_empty()
        };
        if seen {
            return Some(id);
        }
        current = info.parent;
    }
    None
}

/// A class's scope (not an interface's or enum's, whose names are seen inside them).
fn is_class_body(names: &FileNames, scope: ScopeId) -> bool {
    names.scopes[scope as usize]
        .named_by
        .is_none_or(|n| names.occurrence(n).role != Role::Definition(BindingKind::Type))
}

/// Types the grammar reads as names (`bigint`), and `intrinsic` (the compiler's own).
const TYPE_KEYWORDS: &[&str] = &[
    "bigint",
    "object",
    "symbol",
    "unknown",
    "never",
    "any",
    "undefined",
    "intrinsic",
    "string",
    "number",
    "boolean",
    "void",
    "null",
];

/// Uses of names bound nowhere in the file, not global, and not declared global by the
/// workspace: judged against the tree afterwards.
fn undefined_candidates(
    names: &FileNames,
    globals: &HashSet<Box<str>>,
    test_globals: bool,
) -> Vec<OccurrenceId> {
    (0..names.occurrences.len() as OccurrenceId)
        .filter(|&id| {
            let occurrence = names.occurrence(id);
            let name = names.name(id);
            let is_type = occurrence.role == Role::Type;
            let predeclared = matches!(name, "arguments" | "await" | "yield")
                || (is_type && TYPE_KEYWORDS.contains(&name))
                || ecmascript::is_global(name)
                || (test_globals && ecmascript::is_test_global(name))
                || globals.contains(name);
            let seen = predeclared
                || is_bound(names, occurrence.scope, name)
                || (is_type && inferred_around(names, id));
            needs_binding(occurrence.role) && !seen
        })
        .collect()
}

/// Whether the type use `id` may see an `infer` of its name: a type parameter of that name
/// bound anywhere in the outermost scope around it (`infer P` in a conditional type's
/// function type is seen in its true branch, outside that function type's scope).
fn inferred_around(names: &FileNames, id: OccurrenceId) -> bool {
    let mut outermost = names.occurrence(id).scope;
    while let Some(parent) = names.scopes[outermost as usize].parent.filter(|&p| p != 0) {
        outermost = parent;
    }
    let range = names.scopes[outermost as usize].range;
    names.occurrences_named(names.name(id)).any(|o| {
        let occurrence = names.occurrence(o);
        occurrence.role == Role::Definition(BindingKind::TypeParameter)
            && range.contains_range(occurrence.range)
    })
}

fn undefined_names(
    names: &FileNames,
    root: tree_sitter::Node,
    text: &str,
    candidates: Vec<OccurrenceId>,
    javascript: bool,
) -> Vec<Diagnostic> {
    // JavaScript tests for optional globals with `typeof Deno !== "undefined"`.
    let detected = if javascript {
        typeof_operands(root, text)
    } else {
        HashSet::new()
    };
    let mut found = Vec::new();
    for id in candidates {
        let name = names.name(id);
        // JavaScript also sets globals through an alias of the global object
        // (`root.Prism = …`): a name the file assigns as a member may be one.
        let assigned_as_member = javascript
            && names
                .occurrences_named(name)
                .any(|o| names.occurrence(o).role == Role::MemberDefinition);
        if detected.contains(name) || assigned_as_member {
            continue;
        }
        let occurrence = names.occurrence(id);
        let name = names.name(id);
        let range = occurrence.range;
        let Some(node) = root.descendant_for_byte_range(range.start().into(), range.end().into())
        else {
            continue;
        };
        if !is_name_use(node, text) {
            continue;
        }
        // Namespaces merge: another `namespace N { export const x }` is seen as `x` here.
        let in_a_namespace = names.occurrences_named(name).any(|o| {
            let occurrence = names.occurrence(o);
            matches!(occurrence.role, Role::Definition(_))
                && is_namespace_body(names, occurrence.scope)
        });
        if in_a_namespace && in_namespace(node) {
            continue;
        }
        found.push(Diagnostic::new(
            ids::UNDEFINED_NAME,
            range,
            format!("undefined name '{name}'"),
        ));
    }
    found
}

/// Whether an identifier the locals query takes for a use is one: not a JSX element's tag
/// (`<div>`, `</Foo>`), an index signature's or tuple member's label, an ambient module's
/// name (`declare module M`), or a name exported (`export * as ns`, `export {a as b}`,
/// `export as namespace N`).
fn is_name_use(node: tree_sitter::Node, text: &str) -> bool {
    let Some(parent) = node.parent() else {
        return true;
    };
    let name = &text[node.byte_range()];
    match parent.kind() {
        "jsx_opening_element" | "jsx_self_closing_element" => {
            !(name.starts_with(|c: char| c.is_ascii_lowercase()) || name.contains('-'))
        }
        "jsx_closing_element" | "jsx_namespace_name" | "index_signature" | "namespace_export" => {
            false
        }
        // `export {a as b}`: `b` is the name exported.
        "export_specifier" => parent
            .child_by_field_name("alias")
            .is_none_or(|n| n.id() != node.id()),
        "module" => parent
            .child_by_field_name("name")
            .is_none_or(|n| n.id() != node.id()),
        // `[first: string, rest?: number]`: labels of a tuple's members.
        "required_parameter" | "optional_parameter" | "rest_pattern" => {
            parent.parent().is_none_or(|p| p.kind() != "tuple_type")
        }
        // `export as namespace N` declares N.
        "export_statement" => node.prev_sibling().is_none_or(|p| p.kind() != "namespace"),
        _ => true,
    }
}

/// A `namespace N { … }` body: a scope that is not a class's, named by a class-like
/// definition.
fn is_namespace_body(names: &FileNames, scope: ScopeId) -> bool {
    let info = &names.scopes[scope as usize];
    !info.is_class
        && info
            .named_by
            .is_some_and(|n| names.occurrence(n).role == Role::Definition(BindingKind::Class))
}

/// Names written as `typeof name` in an expression.
fn typeof_operands<'t>(root: tree_sitter::Node, text: &'t str) -> HashSet<&'t str> {
    let mut found = HashSet::new();
    walk(root, &mut |node| {
        if node.kind() == "unary_expression"
            && node
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "typeof")
            && let Some(argument) = node
                .child_by_field_name("argument")
                .filter(|a| a.kind() == "identifier")
        {
            found.insert(&text[argument.byte_range()]);
        }
        true
    });
    found
}

/// Whether `node` is inside a `namespace N { … }` or `declare module … { … }`.
fn in_namespace(node: tree_sitter::Node) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if matches!(n.kind(), "internal_module" | "module") {
            return true;
        }
        current = n.parent();
    }
    false
}
