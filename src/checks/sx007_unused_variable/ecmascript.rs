//! SX007 for JavaScript, TypeScript and TSX: a local variable that nothing reads, as
//! TypeScript's `noUnusedLocals` has it for variables, kept to the plain case. In a function
//! (a declaration, an expression, an arrow function or a method, and the blocks inside
//! it), a `const`, `let` or `var` declarator that binds one name (`const x = …`, `let y;`)
//! whose every other occurrence in its scope is an assignment (`x = …`). Not reported:
//! names starting with `_`, destructuring and loop variables (`const [a, b] = …`, `for
//! (const x of xs)`), `using` declarations (disposed of at the end of the block), and the
//! variables of a function that calls `eval`. `x += 1` and `x++` count as reads.
//!
//! Fixes: the removals of `ecmascript_fixes.rs`, safe for an inert value; else, when it can
//! be done, the rename to `_name` here (`rename_to_unused`), which keeps every evaluation.
//!
//! Invariant: reads the file's own names and tree only; the tree is walked only for the
//! candidates the names leave.

use std::collections::HashSet;

use crate::checks::{
    CheckContext, Diagnostic,
    fix::{Applicability, Fix},
    node_range,
    registry::ids,
    sx005_undefined_name::ecmascript::visible_binding_scope,
};
use crate::semantic::names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId};

/// The variables declared in functions that no occurrence reads, before the tree has its
/// say (which declarations are plain, which writes read).
pub(super) fn check(ctx: &CheckContext) -> Vec<Diagnostic> {
    let names = ctx.names();
    let candidates = unused_candidates(names);
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = ctx.root() else {
        return Vec::new();
    };
    unused_variables(names, root, &text, candidates)
}

fn unused_candidates(names: &FileNames) -> Vec<OccurrenceId> {
    let mut candidates = Vec::new();
    let mut evaluating: HashSet<ScopeId> = HashSet::new();
    for id in names.occurrences_named("eval") {
        let occurrence = names.occurrence(id);
        if occurrence.role == Role::Call {
            evaluating.extend(function_around(names, occurrence.scope));
        }
    }
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let id = id as OccurrenceId;
        if occurrence.role != Role::Definition(BindingKind::Variable) {
            continue;
        }
        let name = names.name(id);
        if name.starts_with('_') {
            continue;
        }
        let Some(function) = function_around(names, occurrence.scope) else {
            continue;
        };
        if evaluating.contains(&function) {
            continue;
        }
        // A read that sees a binding of this scope or of one inside it: the names also bind
        // what a destructuring assignment writes (`[a, b] = f()`), in the block it is in,
        // so a read there may be this variable's; an inner declaration shadowing it may hide
        // an unused one, which is then not reported.
        let range = names.scopes[occurrence.scope as usize].range;
        let read = names.occurrences_named(name).any(|other| {
            let use_ = names.occurrence(other);
            other != id
                && !matches!(use_.role, Role::Definition(_) | Role::Write)
                && !use_.role.is_member()
                && visible_binding_scope(names, use_.scope, name)
                    .is_some_and(|seen| range.contains_range(names.scopes[seen as usize].range))
        });
        if !read {
            candidates.push(id);
        }
    }
    candidates
}

/// The function whose body `scope` is or is in, through blocks; `None` at module level, in
/// a class body, a namespace or anything else that is not a function's.
fn function_around(names: &FileNames, scope: ScopeId) -> Option<ScopeId> {
    let mut current = scope;
    loop {
        let info = &names.scopes[current as usize];
        if !info.is_block {
            let is_function = current != 0
                && !info.is_class
                && info.named_by.is_none_or(|n| {
                    names.occurrence(n).role == Role::Definition(BindingKind::Function)
                });
            return is_function.then_some(current);
        }
        current = info.parent?;
    }
}

fn unused_variables(
    names: &FileNames,
    root: tree_sitter::Node,
    text: &str,
    candidates: Vec<OccurrenceId>,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for id in candidates {
        let occurrence = names.occurrence(id);
        let (start, end) = (
            usize::from(occurrence.range.start()),
            usize::from(occurrence.range.end()),
        );
        let Some(node) = root.descendant_for_byte_range(start, end) else {
            continue;
        };
        if !is_plain_declarator(node, text) {
            continue;
        }
        let name = names.name(id);
        // A compound assignment or an increment reads the variable it writes.
        let updated = names.occurrences_named(name).any(|other| {
            let write = names.occurrence(other);
            write.role == Role::Write
                && visible_binding_scope(names, write.scope, name).is_some_and(|seen| {
                    names.scopes[occurrence.scope as usize]
                        .range
                        .contains_range(names.scopes[seen as usize].range)
                })
                && root
                    .descendant_for_byte_range(
                        usize::from(write.range.start()),
                        usize::from(write.range.end()),
                    )
                    .and_then(|n| n.parent())
                    .is_some_and(|p| {
                        matches!(
                            p.kind(),
                            "augmented_assignment_expression" | "update_expression"
                        )
                    })
        });
        if updated {
            continue;
        }
        let fix = match rebound_in_function(names, id) {
            true => None,
            false => super::ecmascript_fixes::fix(node, text),
        };
        // One fix per diagnostic: a safe removal is the better edit; where removing would
        // be unsafe (or cannot be done) the rename keeps every evaluation exactly and is
        // applied by `--fix`.
        let fix = match fix {
            Some(removal) if removal.applicability == Applicability::Safe => Some(removal),
            removal => rename_to_unused(names, id, node).or(removal),
        };
        found.push(
            Diagnostic::new(
                ids::UNUSED_VARIABLE,
                occurrence.range,
                format!("local variable '{name}' is assigned to but never used"),
            )
            .with_fix(fix),
        );
    }
    found
}

/// Whether the function around the variable `id` declares or assigns its name anywhere
/// else: without this declaration an assignment could write another variable, and another
/// `var` of the name may be the one a reader sees.
fn rebound_in_function(names: &FileNames, id: OccurrenceId) -> bool {
    let occurrence = names.occurrence(id);
    let Some(function) = function_around(names, occurrence.scope) else {
        return true;
    };
    let range = names.scopes[function as usize].range;
    names.occurrences_named(names.name(id)).any(|other| {
        let other_occurrence = names.occurrence(other);
        other != id
            && matches!(other_occurrence.role, Role::Definition(_) | Role::Write)
            && range.contains_range(other_occurrence.range)
    })
}

/// The fix naming the unused variable `id` (at `name`) `_name`, which the rule does not
/// report. Safe: only the declarator's name changes, and no occurrence of the new name is
/// anywhere in the file, so it shadows nothing a read could see and joins no binding; the
/// functions that call `eval` (which could read either name) are never reported. Not
/// offered when the name is declared or assigned elsewhere in the function (each would
/// need renaming, and another `var` may be the one a reader sees), nor for an exported
/// declaration (its name is the module's interface).
fn rename_to_unused(names: &FileNames, id: OccurrenceId, name: tree_sitter::Node) -> Option<Fix> {
    let declaration = name.parent()?.parent()?;
    if rebound_in_function(names, id)
        || declaration
            .parent()
            .is_none_or(|p| p.kind() == "export_statement")
    {
        return None;
    }
    let bound = names.name(id);
    let renamed = format!("_{bound}");
    if names.occurrences_named(&renamed).next().is_some() {
        return None;
    }
    let title = format!("Rename unused variable '{bound}' to '{renamed}'");
    Some(Fix::safe(title, vec![(node_range(name), renamed)]))
}

/// Whether `name` is the whole name of a `const`/`let`/`var` declarator in a declaration
/// statement (not a loop's, not `using`).
fn is_plain_declarator(name: tree_sitter::Node, text: &str) -> bool {
    let Some(declarator) = name.parent() else {
        return false;
    };
    if declarator.kind() != "variable_declarator"
        || declarator
            .child_by_field_name("name")
            .is_none_or(|n| n.id() != name.id())
    {
        return false;
    }
    let Some(declaration) = declarator.parent() else {
        return false;
    };
    let statement = match declaration.kind() {
        "lexical_declaration" | "variable_declaration" => declaration,
        _ => return false,
    };
    let keyword = text[statement.byte_range()].trim_start();
    let in_loop_head = statement.parent().is_some_and(|p| {
        matches!(p.kind(), "for_statement" | "for_in_statement")
            && p.child_by_field_name("body")
                .is_none_or(|body| body.id() != statement.id())
    });
    !in_loop_head && !keyword.starts_with("using") && !keyword.starts_with("await")
}
