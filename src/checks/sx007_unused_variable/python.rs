//! SX007: local variables assigned but never used, by pyflakes's rule (F841). In a
//! function (not a lambda, a class body or the module), a name whose last binding is an
//! assignment (`x = …`, `x: T = …`, `with … as x`, `x := …`, unpacking of a literal tuple)
//! and that nothing reads: not `_`, not a name declared `global` or `nonlocal` there or in
//! a function nested in it, not in a function that calls `locals()`. A rebinding by `x +=`
//! reads it. Unpacking targets and loop targets are never reported. `except … as e` is
//! reported when the handler does not use `e`.
//!
//! Invariant: reads the file's own names and tree only; the tree is parsed only when a
//! candidate remains after the names alone have been judged.

use std::collections::{HashMap, HashSet};

use crate::checks::{
    CheckContext, Diagnostic,
    fix::{Applicability, Fix, range, remove_statement},
    python_forms::{self as forms, Form},
    python_helpers::{
        PYTHON_STATEMENTS, binding_scope, enclosing_block, is_comprehension,
        names_in_strings_and_comments, scopes_using, sole_statement_of_block, used_in_a_header,
    },
    registry::ids,
};
use crate::semantic::names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId};

/// Names pyflakes treats as used in every function (debugger and traceback hooks).
fn always_used(name: &str) -> bool {
    matches!(
        name,
        "_" | "__tracebackhide__"
            | "__traceback_info__"
            | "__traceback_supplement__"
            | "__debuggerskip__"
    )
}

/// Whether `scope` is a `def`'s body (not a lambda, a comprehension or a class).
pub(super) fn is_function(names: &FileNames, scope: ScopeId) -> bool {
    let info = &names.scopes[scope as usize];
    !info.is_class
        && info
            .named_by
            .is_some_and(|n| names.occurrence(n).role == Role::Definition(BindingKind::Function))
}

/// Whether a `global`/`nonlocal` declaration of `name` in `scope` or a scope nested in it
/// rebinds it from elsewhere (pyflakes then counts it used).
fn declared_within(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    let range = names.scopes[scope as usize].range;
    names.occurrences_named(name).any(|id| {
        let occurrence = names.occurrence(id);
        matches!(occurrence.role, Role::Global | Role::Nonlocal)
            && range.contains_range(occurrence.range)
    })
}

/// Whether a comprehension inside `scope` binds `name` with `:=`: that binds the function's
/// name (the names record it in the comprehension), so its uses there are the function's.
fn bound_in_a_comprehension(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    let range = names.scopes[scope as usize].range;
    names.occurrences_named(name).any(|id| {
        let occurrence = names.occurrence(id);
        matches!(occurrence.role, Role::Definition(_))
            && occurrence.scope != scope
            && is_comprehension(names, occurrence.scope)
            && range.contains_range(occurrence.range)
            && names
                .text_between(
                    u32::from(occurrence.range.end()),
                    u32::from(occurrence.range.end()) + 3,
                )
                .trim_start()
                .starts_with(":=")
    })
}

pub(super) fn unused_variables(names: &FileNames, tree: &CheckContext) -> Vec<Diagnostic> {
    let candidates = candidates(names);
    if candidates.is_empty() {
        return Vec::new();
    }
    let text = tree.text();
    let text = &*text;
    let Some(parsed) = tree.tree() else {
        return Vec::new();
    };
    let root = parsed.root_node();
    let mut mentioned: Option<HashSet<&str>> = None;
    let mut found = Vec::new();
    for (scope, name) in candidates {
        judge(names, root, text, &mut mentioned, scope, name, &mut found);
    }
    found
}

/// The (function, name) pairs whose variable may be unused, judged from the names alone,
/// in document order.
fn candidates(names: &FileNames) -> Vec<(ScopeId, &str)> {
    // By (function, name): its variable bindings, in document order.
    let mut bound: HashMap<(ScopeId, &str), Vec<OccurrenceId>> = HashMap::new();
    let mut order: Vec<(ScopeId, &str)> = Vec::new();
    let mut uses_locals: HashSet<ScopeId> = HashSet::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let id = id as OccurrenceId;
        let name = names.name(id);
        if occurrence.role == Role::Call && name == "locals" {
            uses_locals.insert(occurrence.scope);
        }
        if occurrence.role != Role::Definition(BindingKind::Variable)
            || !is_function(names, occurrence.scope)
            || always_used(name)
        {
            continue;
        }
        let key = (occurrence.scope, name);
        bound
            .entry(key)
            .or_insert_with(|| {
                order.push(key);
                Vec::new()
            })
            .push(id);
    }
    // By name: the scopes whose binding some use (or `del`) sees, wherever it is.
    let mut used: HashMap<&str, HashSet<ScopeId>> = HashMap::new();
    let mut candidates: Vec<(ScopeId, &str)> = Vec::new();
    for key @ (scope, name) in order {
        if uses_locals.contains(&scope)
            || names.declaration(scope, name).is_some()
            || declared_within(names, scope, name)
            || bound_in_a_comprehension(names, scope, name)
        {
            continue;
        }
        let seen = used
            .entry(name)
            .or_insert_with(|| scopes_using(names, name));
        // `except … as e` is judged by its handler alone, so a use elsewhere is no answer.
        if (!seen.contains(&scope) && last_may_be_an_assignment(names, scope, name))
            || an_except_unused(names, scope, &bound[&key])
        {
            candidates.push(key);
        }
    }
    candidates
}

/// Judges a candidate with the tree: an `except … as` name unused in its handler, and the
/// last plain assignment when nothing uses it. `mentioned` (the words in strings and
/// comments) is computed the first time it is needed.
fn judge<'t>(
    names: &FileNames,
    root: tree_sitter::Node,
    text: &'t str,
    mentioned: &mut Option<HashSet<&'t str>>,
    scope: ScopeId,
    name: &str,
    found: &mut Vec<Diagnostic>,
) {
    let mut last_assignment: Option<OccurrenceId> = None;
    let mut last_form = Form::Other;
    let mut rebound_by_augment = false;
    // Every binding of the name counts for which is the last (an import, a `def`).
    for &binding in names.bindings(scope, name) {
        let range = names.occurrence(binding).range;
        let Some(node) = root.descendant_for_byte_range(range.start().into(), range.end().into())
        else {
            continue;
        };
        match forms::form(node) {
            Form::Except => {
                if !used_in_handler(names, node, name)
                    && !mentioned
                        .get_or_insert_with(|| names_in_strings_and_comments(root, text))
                        .contains(name)
                {
                    // A nested function reading the name outside the handler reads this
                    // binding (`def show(): print(e)`): without it the name is unbound.
                    let fix = match used_by_a_use_outside_handlers(names, root, scope, name) {
                        true => None,
                        false => drop_alias(node, name),
                    };
                    found.push(unused(range, name).with_fix(fix));
                }
            }
            // An annotation alone binds nothing (pyflakes's F842 is another rule).
            Form::Annotation => {}
            Form::Augmented => rebound_by_augment = true,
            // `except … as e: e = wrap(e)`: the handler's name, gone after it.
            _ if in_handler_binding(names, node, name) => {}
            form => {
                last_form = form;
                last_assignment = Some(binding);
            }
        }
    }
    let Some(binding) = last_assignment else {
        return;
    };
    if last_form != Form::Assignment
        || rebound_by_augment
        || used_by_a_use_outside_handlers(names, root, scope, name)
        || used_in_a_header(names, root, binding)
        || mentioned
            .get_or_insert_with(|| names_in_strings_and_comments(root, text))
            .contains(name)
    {
        return;
    }
    let range = names.occurrence(binding).range;
    let fix = root
        .descendant_for_byte_range(range.start().into(), range.end().into())
        .and_then(|node| {
            let only_binding = names.bindings(scope, name).len() == 1;
            let removal = assignment_removal(node, text, name, only_binding);
            // One fix per diagnostic: a safe removal is the better edit; where removing
            // would be unsafe (or cannot be done) the rename keeps what the program does.
            match removal {
                Some(fix) if fix.applicability == Applicability::Safe => Some(fix),
                removal => rename_to_underscore(names, scope, binding, node).or(removal),
            }
        });
    found.push(unused(range, name).with_fix(fix));
}

fn unused(range: crate::syntax::TextRange, name: &str) -> Diagnostic {
    Diagnostic::new(
        ids::UNUSED_VARIABLE,
        range,
        format!("local variable '{name}' is assigned to but never used"),
    )
}

/// Whether, judged from the text, the name's last binding in `scope` (an `except` name
/// aside) may be an assignment, and no `x += …` reads it: else no report can follow.
fn last_may_be_an_assignment(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    let mut last = None;
    for &binding in names.bindings(scope, name) {
        if names.occurrence(binding).role != Role::Definition(BindingKind::Variable) {
            last = Some(Some(Form::Definition));
            continue;
        }
        if is_except_name(names, binding) {
            continue;
        }
        match forms::form_from_text(names, binding) {
            Some(Form::Augmented) => return false,
            form => last = Some(form),
        }
    }
    matches!(last, Some(None | Some(Form::Assignment)))
}

fn is_except_name(names: &FileNames, binding: OccurrenceId) -> bool {
    let start = u32::from(names.occurrence(binding).range.start());
    let line_start = names
        .text_between(0, start)
        .rfind('\n')
        .map_or(0, |i| i + 1) as u32;
    names
        .text_between(line_start, start)
        .trim_start()
        .starts_with("except")
}

/// Whether one of `bindings` (of one name in `scope`, in document order) is the name of an
/// `except … as` clause (judged from the text: the line starts with `except`) that no use
/// follows before the name's next binding: its handler may not use it (the tree decides).
fn an_except_unused(names: &FileNames, scope: ScopeId, bindings: &[OccurrenceId]) -> bool {
    bindings.iter().enumerate().any(|(i, &b)| {
        if !is_except_name(names, b) {
            return false;
        }
        let start = u32::from(names.occurrence(b).range.start());
        let until = bindings.get(i + 1).map_or(u32::MAX, |&next| {
            u32::from(names.occurrence(next).range.start())
        });
        let name = names.name(b);
        !names.occurrences_named(name).any(|u| {
            let use_ = names.occurrence(u);
            let at = u32::from(use_.range.start());
            (use_.role.reads_binding() || use_.role == Role::Write)
                && start < at
                && at < until
                && binding_scope(names, use_.scope, name, at) == Some(scope)
        })
    })
}

/// Whether the handler whose name is `alias` uses it (reads it or deletes it) in its body.
fn used_in_handler(names: &FileNames, alias: tree_sitter::Node, name: &str) -> bool {
    let Some(handler) = forms::ancestor(alias, &["except_clause", "except_group_clause"]) else {
        return true;
    };
    let (start, end) = (handler.start_byte() as u32, handler.end_byte() as u32);
    names.occurrences_named(name).any(|u| {
        let occurrence = names.occurrence(u);
        let at = u32::from(occurrence.range.start());
        (occurrence.role.reads_binding() || occurrence.role == Role::Write)
            && start <= at
            && at < end
    })
}

/// Whether a use of `name` that sees `scope`'s binding is anywhere but inside an `except …
/// as name` handler (there it sees the handler's name).
fn used_by_a_use_outside_handlers(
    names: &FileNames,
    root: tree_sitter::Node,
    scope: ScopeId,
    name: &str,
) -> bool {
    names.occurrences_named(name).any(|u| {
        let occurrence = names.occurrence(u);
        let at = u32::from(occurrence.range.start());
        if !(occurrence.role.reads_binding() || occurrence.role == Role::Write)
            || binding_scope(names, occurrence.scope, name, at) != Some(scope)
        {
            return false;
        }
        let Some(node) = root.descendant_for_byte_range(
            occurrence.range.start().into(),
            occurrence.range.end().into(),
        ) else {
            return true;
        };
        // Inside a handler that binds the same name, the use is the handler's.
        !in_handler_binding(names, node, name)
    })
}

/// Whether `node` is inside an `except … as name` handler.
fn in_handler_binding(names: &FileNames, node: tree_sitter::Node, name: &str) -> bool {
    let mut current = forms::ancestor(node, &["except_clause", "except_group_clause"]);
    while let Some(handler) = current {
        if handler_binds(handler, names, name) {
            return true;
        }
        current = forms::ancestor(handler, &["except_clause", "except_group_clause"]);
    }
    false
}

fn handler_binds(handler: tree_sitter::Node, names: &FileNames, name: &str) -> bool {
    let mut cursor = handler.walk();
    let pattern = handler
        .named_children(&mut cursor)
        .find(|c| c.kind() == "as_pattern");
    let target = pattern.and_then(|p| {
        let mut cursor = p.walk();
        p.named_children(&mut cursor)
            .find(|c| c.kind() == "as_pattern_target")
    });
    target
        .and_then(|t| t.named_child(0))
        .is_some_and(|n| names.text_between(n.start_byte() as u32, n.end_byte() as u32) == name)
}

/// The fix of an unused `except … as name` (Python unbinds it at the handler's end
/// anyway) or `with … as name`: ` as name` removed, the exception still caught, the
/// context still entered.
fn drop_alias(name: tree_sitter::Node, bound: &str) -> Option<Fix> {
    let target = name.parent().filter(|p| p.kind() == "as_pattern_target")?;
    let pattern = target.parent().filter(|p| p.kind() == "as_pattern")?;
    let value = pattern.named_child(0)?;
    let edit = (range(value.end_byte(), pattern.end_byte()), String::new());
    Some(Fix::safe(
        format!("Remove unused name '{bound}'"),
        vec![edit],
    ))
}

/// The fix of an unused variable's last assignment: the whole statement when its value
/// is a constant (nothing is evaluated that could matter), else the value kept as an
/// expression statement. Safe only for a constant that is the name's only binding: else
/// the object the name held (an earlier value, or the value kept) is released sooner,
/// which a finalizer or a weak reference can see (`f = None` to drop a file). A walrus
/// keeps its value and `with … as name` loses the alias, both unsafe for the same reason.
fn assignment_removal(
    name: tree_sitter::Node,
    text: &str,
    bound: &str,
    only_binding: bool,
) -> Option<Fix> {
    let parent = name.parent()?;
    match parent.kind() {
        "as_pattern_target" => drop_alias(name, bound).map(Fix::made_unsafe),
        "named_expression" => {
            let value = parent.child_by_field_name("value")?;
            let edit = (
                range(parent.start_byte(), value.start_byte()),
                String::new(),
            );
            let title = format!("Remove assignment to unused variable '{bound}'");
            Some(Fix::unsafe_(title, vec![edit]))
        }
        "assignment" => {
            let value = parent.child_by_field_name("right")?;
            let statement = parent
                .parent()
                .filter(|s| s.kind() == "expression_statement")?;
            // `a = b = f()`, `x = 1, y` in one statement: left alone.
            if value.kind() == "assignment" || statement.named_child_count() != 1 {
                return None;
            }
            let title = format!("Remove assignment to unused variable '{bound}'");
            if is_constant(value) {
                let sole = sole_statement_of_block(statement);
                let edit = remove_statement(text, statement, sole, &PYTHON_STATEMENTS)?;
                let fix = match only_binding {
                    true => Fix::safe(title, vec![edit]),
                    false => Fix::unsafe_(title, vec![edit]),
                };
                Some(fix.isolated_in(enclosing_block(statement)))
            } else {
                let edit = (
                    range(statement.start_byte(), value.start_byte()),
                    String::new(),
                );
                Some(Fix::unsafe_(title, vec![edit]))
            }
        }
        _ => None,
    }
}

/// The fix naming the unused variable `_`: `x = f()` → `_ = f()`, `with open(p) as _:`.
/// Pyflakes reports every unused name but `_` (ruff's dummy names, `_x`, would still be
/// reported by pyflakes), so `_` is the one name that silences both. Safe: the value is
/// evaluated and held until the function returns, as before. Offered only when the
/// variable's binding is its name's only one in the function (an earlier value would
/// otherwise be released where the renamed assignment no longer replaces it), when no
/// other occurrence of the name is in the function (`del x`), when nothing in the function
/// names `_` (a local `_` whose object it would release, or gettext's `_` it would shadow),
/// and when the function calls nothing that reads its locals by name (`eval`, `exec`,
/// `vars`, `dir`). Two renames in one function would share `_` and release the first
/// value early: the function is the fix's isolation range, and the next round sees `_`.
fn rename_to_underscore(
    names: &FileNames,
    scope: ScopeId,
    binding: OccurrenceId,
    name: tree_sitter::Node,
) -> Option<Fix> {
    let target = name.parent()?;
    let is_target = match target.kind() {
        "assignment" => target
            .child_by_field_name("left")
            .is_some_and(|left| left.id() == name.id()),
        "named_expression" => target
            .child_by_field_name("name")
            .is_some_and(|left| left.id() == name.id()),
        "as_pattern_target" => target
            .parent()
            .and_then(|p| p.parent())
            .is_some_and(|item| item.kind() == "with_item"),
        _ => false,
    };
    let bound = names.name(binding);
    if !is_target || names.bindings(scope, bound).len() != 1 {
        return None;
    }
    let function = names.scopes[scope as usize].range;
    let in_function = |word: &str| {
        names
            .occurrences_named(word)
            .any(|id| function.contains_range(names.occurrence(id).range))
    };
    let others = names
        .occurrences_named(bound)
        .filter(|&id| id != binding && function.contains_range(names.occurrence(id).range));
    if others.count() > 0
        || ["_", "eval", "exec", "vars", "dir"]
            .into_iter()
            .any(in_function)
    {
        return None;
    }
    let title = format!("Rename unused variable '{bound}' to '_'");
    let edit = (range(name.start_byte(), name.end_byte()), "_".to_string());
    Some(Fix::safe(title, vec![edit]).isolated_in(Some(function)))
}

/// Whether evaluating `value` does nothing but produce it: a literal (not an f-string), or
/// a tuple, list, set or dictionary of those (a name may be unbound: evaluating it may
/// raise).
fn is_constant(value: tree_sitter::Node) -> bool {
    match value.kind() {
        "integer" | "float" | "true" | "false" | "none" | "ellipsis" => true,
        "string" => {
            let mut cursor = value.walk();
            !value
                .named_children(&mut cursor)
                .any(|c| c.kind() == "interpolation")
        }
        "concatenated_string"
        | "tuple"
        | "list"
        | "set"
        | "dictionary"
        | "pair"
        | "expression_list"
        | "parenthesized_expression" => {
            let mut cursor = value.walk();
            value
                .named_children(&mut cursor)
                .filter(|c| c.kind() != "comment")
                .all(is_constant)
        }
        "unary_operator" => value
            .child_by_field_name("argument")
            .is_some_and(|a| matches!(a.kind(), "integer" | "float")),
        _ => false,
    }
}
