//! SX008: a function, class or import bound again in the same scope before anything used
//! it, by pyflakes's rule (F811). Between two bindings of a name in one scope (a module, a
//! class body or a function), in the order pyflakes visits them:
//! - the later one redefines the earlier: either is a `def` or `class` and the other a
//!   definition, an import or a plain assignment; an import redefines a definition or an
//!   import of the same local name (`import a.b` only the same `a.b`); an assignment
//!   redefines a definition or an import;
//! - nothing used the name since its first binding (a `del` starts afresh): a use counts
//!   when it runs before the redefinition, so not inside a function body (those run after
//!   the scope around them), but in a decorator (`@x.setter`), a base, a default, a class
//!   body or a comprehension;
//! - the two are not on different branches of one `if`/`try`/`match` (`try: import json
//!   except ImportError: json = None`);
//! - the earlier is not a `@overload` stub, and the name is not `_` (unless imported).
//!
//! Invariant: reads the file's own names, imports and tree only; the tree is parsed only
//! when a pair remains after the names alone have been judged.

use std::collections::HashMap;

use crate::checks::{
    CheckContext, Diagnostic,
    python_forms::{self as forms, Form},
    python_helpers::{binding_scope, import_of, in_header, is_comprehension},
    registry::ids,
};
use crate::semantic::{
    imports::{FileImports, ImportSummary},
    names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId},
};

/// One step of a name's history in a scope.
#[derive(Clone, Copy)]
enum Event {
    Bind(OccurrenceId),
    Delete,
}

/// A redefinition to judge with the tree: the earlier binding, the later one, and where the
/// chain of bindings they belong to started.
struct Pair {
    scope: ScopeId,
    first: OccurrenceId,
    earlier: OccurrenceId,
    later: OccurrenceId,
}

fn kind(names: &FileNames, id: OccurrenceId) -> Option<BindingKind> {
    match names.occurrence(id).role {
        Role::Definition(kind) => Some(kind),
        _ => None,
    }
}

/// Where a binding takes effect: a `def` or `class` once its whole definition has run (its
/// decorators, defaults and, for a class, its body are read before the name is bound).
fn bound_at(names: &FileNames, id: OccurrenceId) -> u32 {
    match kind(names, id) {
        Some(BindingKind::Function | BindingKind::Class) => names
            .scope_named_by(id)
            .map_or(names.occurrence(id).effective, |s| {
                names.scopes[s as usize].range.end().into()
            }),
        _ => names.occurrence(id).effective,
    }
}

/// Whether a use in `from` runs while its scope `scope` is being visited: it is not inside a
/// function or lambda nested in `scope` (their bodies run later).
fn runs_in_order(names: &FileNames, from: ScopeId, scope: ScopeId) -> bool {
    let mut current = from;
    while current != scope {
        let info = &names.scopes[current as usize];
        if !info.is_class && !is_comprehension(names, current) {
            return false;
        }
        match info.parent {
            Some(parent) => current = parent,
            None => return false,
        }
    }
    true
}

/// Whether the name is used, by a use that runs in order and sees `scope`'s binding,
/// between `from` and `to`.
fn used_between(names: &FileNames, scope: ScopeId, name: &str, from: u32, to: u32) -> bool {
    names.occurrences_named(name).any(|u| {
        let use_ = names.occurrence(u);
        let at = u32::from(use_.range.start());
        use_.role.reads_binding()
            && from <= at
            && at < to
            && runs_in_order(names, use_.scope, scope)
            && binding_scope(names, use_.scope, name, at) == Some(scope)
    })
}

/// The same, for uses in the header of a function, lambda or class nested in `scope` (its
/// defaults and annotations run in order, in the scope around it).
fn used_in_header_between(
    names: &FileNames,
    root: tree_sitter::Node,
    scope: ScopeId,
    name: &str,
    from: u32,
    to: u32,
) -> bool {
    names.occurrences_named(name).any(|u| {
        let use_ = names.occurrence(u);
        let at = u32::from(use_.range.start());
        let Some(parent) = names.scopes[use_.scope as usize].parent else {
            return false;
        };
        use_.role.reads_binding()
            && from <= at
            && at < to
            && runs_in_order(names, parent, scope)
            && binding_scope(names, parent, name, at) == Some(scope)
            && root
                .descendant_for_byte_range(at as usize, use_.range.end().into())
                .is_some_and(in_header)
    })
}

pub(super) fn redefinitions(
    names: &FileNames,
    imports: &FileImports,
    tree: &CheckContext,
) -> Vec<Diagnostic> {
    let mut pairs = candidate_pairs(names);
    if pairs.is_empty() {
        return Vec::new();
    }
    pairs.sort_by_key(|p| p.later);
    let Some((text, root)) = tree.root() else {
        return Vec::new();
    };
    let of = import_of(names, imports);
    pairs
        .iter()
        .filter_map(|pair| confirmed(names, root, &text, &of, pair))
        .collect()
}

/// Each scope's bindings and deletions of each name, in order; names declared `global` or
/// `nonlocal` in a function are left out.
fn histories(names: &FileNames) -> HashMap<(ScopeId, &str), Vec<Event>> {
    let mut history: HashMap<(ScopeId, &str), Vec<Event>> = HashMap::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let id = id as OccurrenceId;
        let event = match occurrence.role {
            Role::Definition(_) => Event::Bind(id),
            Role::Write => Event::Delete,
            _ => continue,
        };
        let name = names.name(id);
        if occurrence.scope != 0 && names.declaration(occurrence.scope, name).is_some() {
            continue;
        }
        history
            .entry((occurrence.scope, name))
            .or_default()
            .push(event);
    }
    history
}

/// A binding that is a definition by itself: a `def`, a `class` or an import.
fn is_definition(kind: Option<BindingKind>) -> bool {
    matches!(
        kind,
        Some(BindingKind::Function | BindingKind::Class | BindingKind::Import)
    )
}

/// The redefinitions the names and the text suggest, in no order: each binding over an
/// earlier one of its chain (no deletion between) that nothing used in between.
fn candidate_pairs(names: &FileNames) -> Vec<Pair> {
    let mut pairs: Vec<Pair> = Vec::new();
    for (&(scope, name), events) in &histories(names) {
        if events.len() < 2 {
            continue;
        }
        let mut first: Option<OccurrenceId> = None;
        let mut earlier: Option<OccurrenceId> = None;
        for &event in events {
            let Event::Bind(later) = event else {
                (first, earlier) = (None, None);
                continue;
            };
            if let (Some(start), Some(previous)) = (first, earlier)
                && may_redefine(names, previous, later)
                && !used_between(
                    names,
                    scope,
                    name,
                    names.occurrence(start).effective,
                    bound_at(names, later),
                )
            {
                pairs.push(Pair {
                    scope,
                    first: start,
                    earlier: previous,
                    later,
                });
            }
            first.get_or_insert(later);
            earlier = Some(later);
        }
    }
    pairs
}

/// Whether binding `later` may redefine `previous`, judged from the text: only an
/// assignment (`x = …`) redefines over an import or is redefined by a `def`; `x += …`
/// reads the name.
fn may_redefine(names: &FileNames, previous: OccurrenceId, later: OccurrenceId) -> bool {
    let (a, b) = (kind(names, previous), kind(names, later));
    let text_form = |id, k: Option<BindingKind>| {
        (k == Some(BindingKind::Variable))
            .then(|| forms::form_from_text(names, id))
            .flatten()
    };
    let (form_a, form_b) = (text_form(previous, a), text_form(later, b));
    let may_redefine = match (a, b) {
        (_, Some(BindingKind::Function | BindingKind::Class)) => {
            is_definition(a) || !matches!(form_a, Some(Form::Other | Form::Augmented))
        }
        (Some(BindingKind::Import), Some(BindingKind::Variable)) => {
            !matches!(form_b, Some(Form::Other | Form::Augmented))
        }
        _ => is_definition(a) && form_b != Some(Form::Augmented),
    };
    may_redefine && !matches!(b, Some(BindingKind::Parameter | BindingKind::TypeParameter))
}

/// The diagnostic of `pair` when the tree confirms it. A pair whose chain a `+=`, an
/// `except … as` or an annotation interrupts is judged no further: pyflakes's history
/// differs from the names' there.
fn confirmed(
    names: &FileNames,
    root: tree_sitter::Node,
    text: &str,
    of: &HashMap<OccurrenceId, &ImportSummary>,
    pair: &Pair,
) -> Option<Diagnostic> {
    let name = names.name(pair.later);
    let node_of = |id: OccurrenceId| {
        let range = names.occurrence(id).range;
        root.descendant_for_byte_range(range.start().into(), range.end().into())
    };
    let (earlier, later) = (node_of(pair.earlier)?, node_of(pair.later)?);
    // Every binding of the chain up to the later one must be one pyflakes sees alike.
    let interrupted = names.bindings(pair.scope, name).iter().any(|&id| {
        id >= pair.first
            && id <= pair.later
            && kind(names, id) == Some(BindingKind::Variable)
            && node_of(id).is_some_and(|node| {
                matches!(
                    forms::form(node),
                    Form::Augmented | Form::Except | Form::Annotation
                )
            })
    });
    if interrupted {
        return None;
    }
    let a = kind(names, pair.earlier);
    // Over an import, a binding made directly in a `for` body is pyflakes's F402.
    let in_loop_body = a == Some(BindingKind::Import) && directly_in_for_body(later);
    if !redefines(names, of, pair, earlier, later)?
        || in_loop_body
        || (name == "_" && a != Some(BindingKind::Import))
        || is_overload(earlier, text)
        || different_branches(earlier, later)
        || used_in_header_between(
            names,
            root,
            pair.scope,
            name,
            names.occurrence(pair.first).effective,
            bound_at(names, pair.later),
        )
    {
        return None;
    }
    let earlier_start = u32::from(names.occurrence(pair.earlier).range.start());
    let line = names.text_between(0, earlier_start).matches('\n').count() + 1;
    Some(
        Diagnostic::new(
            ids::REDEFINED_UNUSED,
            names.occurrence(pair.later).range,
            format!("redefinition of unused '{name}' from line {line}"),
        )
        .with_related(
            names.occurrence(pair.earlier).range,
            format!("'{name}' first defined here"),
        ),
    )
}

/// Whether the later binding of `pair` redefines the earlier one, by their kinds and the
/// forms of their statements; `None` when an import's statement is not known.
fn redefines(
    names: &FileNames,
    of: &HashMap<OccurrenceId, &ImportSummary>,
    pair: &Pair,
    earlier: tree_sitter::Node,
    later: tree_sitter::Node,
) -> Option<bool> {
    let (a, b) = (kind(names, pair.earlier), kind(names, pair.later));
    Some(match (a, b) {
        (_, Some(BindingKind::Import)) => match a {
            Some(BindingKind::Function | BindingKind::Class) => true,
            Some(BindingKind::Import) => {
                let (x, y) = (*of.get(&pair.earlier)?, *of.get(&pair.later)?);
                if is_submodule_import(x) || is_submodule_import(y) {
                    full_name(x) == full_name(y)
                } else {
                    true
                }
            }
            _ => false,
        },
        (_, Some(BindingKind::Function | BindingKind::Class)) => {
            is_definition(a)
                || (a == Some(BindingKind::Variable) && forms::form(earlier) == Form::Assignment)
        }
        // A loop variable over an import is pyflakes's F402, another rule; any other
        // binding over an import is judged only in the plain form.
        (Some(BindingKind::Import), Some(BindingKind::Variable)) => {
            forms::form(later) == Form::Assignment
        }
        (Some(BindingKind::Function | BindingKind::Class), Some(BindingKind::Variable)) => {
            matches!(forms::form(later), Form::Assignment | Form::Other)
        }
        _ => false,
    })
}

/// `import a.b` without `as`: binds `a`, and pyflakes tells it apart by the whole name.
fn is_submodule_import(import: &ImportSummary) -> bool {
    import.name.is_none() && import.alias.is_none() && import.module.contains('.')
}

fn full_name(import: &ImportSummary) -> String {
    match &import.name {
        Some(name) if import.module.ends_with('.') => format!("{}{name}", import.module),
        Some(name) => format!("{}.{name}", import.module),
        None => import.module.to_string(),
    }
}

/// Whether the function whose name is `name` is decorated `@overload` (`@typing.overload`).
fn is_overload(name: tree_sitter::Node, text: &str) -> bool {
    let Some(definition) = name.parent().filter(|d| d.kind() == "function_definition") else {
        return false;
    };
    let Some(decorated) = definition
        .parent()
        .filter(|d| d.kind() == "decorated_definition")
    else {
        return false;
    };
    let mut cursor = decorated.walk();
    decorated
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "decorator")
        .any(|d| {
            let written = text[d.byte_range()].trim_start_matches('@').trim();
            written == "overload" || written.ends_with(".overload")
        })
}

/// Whether two nodes are on different branches of the innermost `if`, `try` or `match`
/// around both (pyflakes's `differentForks`): a `try`'s body and `else` are one branch,
/// each handler another; a `finally` is on no branch, so it differs from every other part.
fn different_branches(a: tree_sitter::Node, b: tree_sitter::Node) -> bool {
    let Some(common) = common_ancestor(a, b) else {
        return false;
    };
    match common.kind() {
        "if_statement" | "elif_clause" | "else_clause" | "case_clause" | "match_statement" => true,
        // The cases of a `match` are children of its block.
        "block" => common
            .parent()
            .is_some_and(|p| p.kind() == "match_statement"),
        "try_statement" => {
            let branch = |n: tree_sitter::Node| {
                let part = child_containing(common, n);
                match part.map(|p| p.kind()) {
                    Some("block" | "else_clause") => Some(0),
                    Some("except_clause" | "except_group_clause") => part.map(|p| p.id()),
                    _ => None,
                }
            };
            match (branch(a), branch(b)) {
                (Some(x), Some(y)) => x != y,
                _ => true,
            }
        }
        _ => false,
    }
}

fn common_ancestor<'t>(
    a: tree_sitter::Node<'t>,
    b: tree_sitter::Node<'t>,
) -> Option<tree_sitter::Node<'t>> {
    let mut ancestors = Vec::new();
    let mut current = a.parent();
    while let Some(n) = current {
        ancestors.push(n.id());
        current = n.parent();
    }
    let mut current = b.parent();
    while let Some(n) = current {
        if ancestors.contains(&n.id()) {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// The child of `ancestor` that holds `node`.
fn child_containing<'t>(
    ancestor: tree_sitter::Node<'t>,
    node: tree_sitter::Node<'t>,
) -> Option<tree_sitter::Node<'t>> {
    let mut current = node;
    while let Some(parent) = current.parent() {
        if parent.id() == ancestor.id() {
            return Some(current);
        }
        current = parent;
    }
    None
}

/// Whether the statement holding `name` is a statement of a `for` loop's body.
fn directly_in_for_body(name: tree_sitter::Node) -> bool {
    let mut current = name;
    while let Some(parent) = current.parent() {
        if parent.kind() == "block" {
            return parent.parent().is_some_and(|p| {
                p.kind() == "for_statement"
                    && p.child_by_field_name("body")
                        .is_some_and(|b| b.id() == parent.id())
            });
        }
        current = parent;
    }
    false
}

pub(super) fn run(ctx: &CheckContext) -> Vec<Diagnostic> {
    redefinitions(ctx.names(), &ctx.symbols().imports, ctx)
}
