//! Python checks: undefined names (SX005), unused imports (SX006) and imports of workspace
//! modules that do not exist (SX003) here; in their own modules, imports of names a module
//! does not bind (SX004, `import_names.rs`), unused local variables (SX007,
//! `unused_variables.rs`), redefinitions of unused names (SX008, `redefinitions.rs`) and
//! repeated dictionary keys (SX009, `dict_keys.rs`), with the syntactic form of a binding
//! in `forms.rs`.
//!
//! Names are looked up in the file's own scopes (`file_names`) by Python's rules: a
//! function sees its own names, the enclosing functions', the module's and the builtins; a
//! class body's names are seen from the body itself (those bound before the use) and from
//! comprehensions directly inside it, not from its methods; a function's or class's header
//! (defaults, annotations, bases) is looked up from the scope around it. What the locals
//! query does not bind (an `except … as e` alias, PEP 695 type parameters, `type X = …`)
//! and the contexts that make a report wrong (a `try` that catches `NameError` or
//! `ImportError`, `__all__`, string annotations, type comments) are read from the file's
//! tree, parsed only when there is a candidate to judge.
//!
//! Invariant: reads the file's own queries and, of other files, only the position-free
//! module map (`python_modules`) and imported modules' `module_names`; a file with a star import gets no undefined-name
//! reports, since any name may come from it.

mod dict_keys;
mod forms;
mod import_names;
mod redefinitions;
mod unused_variables;

use std::collections::{HashMap, HashSet};

use super::{Diagnostic, registry::ids, walk};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::{self, FileImports, ImportSummary, python_modules},
        names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId, file_names, python},
        symbols::file_symbols,
    },
    syntax::TextRange,
};

pub(super) fn check(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<Diagnostic> {
    let names = file_names(db, file);
    let symbols = file_symbols(db, file);
    let mut tree = Tree::new(db, file);
    let mut found = unresolved_imports(db, workspace, file, &symbols.imports);
    found.extend(undefined_names(&names, &symbols.imports, &mut tree));
    found.extend(unused_imports(
        file.path(db),
        &names,
        &symbols.imports,
        &mut tree,
    ));
    found.extend(import_names::unknown_import_names(
        db,
        workspace,
        file,
        &names,
        &symbols.imports,
        &mut tree,
    ));
    found.extend(unused_variables::unused_variables(&names, &mut tree));
    found.extend(dict_keys::duplicate_keys(&mut tree));
    found.extend(redefinitions::redefinitions(
        &names,
        &symbols.imports,
        &mut tree,
    ));
    found
}

/// The file's tree-sitter tree, parsed the first time a check needs it.
struct Tree<'db> {
    db: &'db dyn Db,
    file: SourceFile,
    tree: Option<Option<tree_sitter::Tree>>,
}

impl<'db> Tree<'db> {
    fn new(db: &'db dyn Db, file: SourceFile) -> Tree<'db> {
        Tree {
            db,
            file,
            tree: None,
        }
    }

    /// `None` when the parser gave up (the caller then reports nothing it would judge).
    fn get(&mut self) -> Option<&tree_sitter::Tree> {
        let (db, file) = (self.db, self.file);
        self.tree
            .get_or_insert_with(|| crate::semantic::file_tree(db, file))
            .as_ref()
    }

    /// The file's text and its tree's root, for a check with a candidate to judge.
    fn root(&mut self) -> Option<(std::sync::Arc<str>, tree_sitter::Node<'_>)> {
        let text = self.text();
        Some((text, self.get()?.root_node()))
    }

    fn text(&self) -> std::sync::Arc<str> {
        self.file.text(self.db).clone()
    }
}

/// A comprehension or generator expression: it sees the class body it is written in
/// (Python evaluates its first iterable there; pyflakes lets it see all of the body).
fn is_comprehension(names: &FileNames, scope: ScopeId) -> bool {
    let info = &names.scopes[scope as usize];
    if scope == 0 || info.is_class || info.named_by.is_some() {
        return false;
    }
    let start = u32::from(info.range.start());
    !names.text_between(start, start + 6).starts_with("lambda")
}

/// The scope whose binding of `name` a use at offset `at` in scope `from` sees, by
/// Python's rules; `None` when no scope binds it (a builtin, or undefined).
fn binding_scope(names: &FileNames, from: ScopeId, name: &str, at: u32) -> Option<ScopeId> {
    let mut scope = Some(from);
    let mut sees_class = true;
    let mut nonlocal = false;
    while let Some(current) = scope {
        let info = &names.scopes[current as usize];
        let visible = !info.is_class || sees_class;
        if visible && (!nonlocal || (current != 0 && !info.is_class)) {
            let declared = (current != 0)
                .then(|| names.declaration(current, name))
                .flatten();
            match declared {
                // `global x` makes x the module's, bound or not (as pyflakes has it).
                Some(Role::Global) => return Some(0),
                Some(Role::Nonlocal) => nonlocal = true,
                _ => {
                    let bindings = names.bindings(current, name);
                    let bound = if info.is_class {
                        bindings.iter().any(|&b| names.bound_at(b, at))
                    } else {
                        !bindings.is_empty()
                    };
                    if bound {
                        return Some(current);
                    }
                }
            }
        }
        sees_class = is_comprehension(names, current);
        scope = info.parent;
    }
    None
}

/// Names every Python module sees besides the builtins: pyflakes's magic globals, and a
/// class body's or method's own (`__module__`, `__qualname__`, `__class__`).
fn is_predeclared(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    if python::is_builtin(name) || name == "WindowsError" {
        return true;
    }
    matches!(name, "__module__" | "__qualname__" | "__class__")
        && names.enclosing_class(scope).is_some()
}

fn undefined_names(names: &FileNames, imports: &FileImports, tree: &mut Tree) -> Vec<Diagnostic> {
    // Any name may come from a star import.
    if imports.summaries.iter().any(|i| i.wildcard) {
        return Vec::new();
    }
    // `global x` anywhere binds x in the module; `[y := …]` binds y around the
    // comprehension.
    let mut bound_elsewhere: HashSet<&str> = HashSet::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let comprehension_binding = matches!(occurrence.role, Role::Definition(_))
            && is_comprehension(names, occurrence.scope);
        if occurrence.role == Role::Global || comprehension_binding {
            bound_elsewhere.insert(names.name(id as OccurrenceId));
        }
    }
    let candidates: Vec<OccurrenceId> = (0..names.occurrences.len() as OccurrenceId)
        .filter(|&id| {
            let occurrence = names.occurrence(id);
            let name = names.name(id);
            occurrence.role.reads_binding()
                && !bound_elsewhere.contains(name)
                && !is_predeclared(names, occurrence.scope, name)
                && binding_scope(
                    names,
                    occurrence.scope,
                    name,
                    occurrence.range.start().into(),
                )
                .is_none()
        })
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = tree.root() else {
        return Vec::new();
    };
    let text = &*text;
    let unbound = names_bound_outside_locals(root, text);
    let mut found = Vec::new();
    for id in candidates {
        let occurrence = names.occurrence(id);
        let name = names.name(id);
        if unbound.contains(name) {
            continue;
        }
        let range = occurrence.range;
        let Some(node) = root.descendant_for_byte_range(range.start().into(), range.end().into())
        else {
            continue;
        };
        // `ast.Expr` in a case pattern is a dotted name: only its first part is a name.
        let later_part = node.parent().is_some_and(|p| {
            p.kind() == "dotted_name"
                && p.named_child(0)
                    .is_some_and(|first| first.id() != node.id())
        });
        if later_part || in_try_catching(node, text, &["NameError"]) || in_import(node) {
            continue;
        }
        // A header (defaults, annotations, bases) is evaluated in the scope around.
        if in_header(node) {
            let parent = names.scopes[occurrence.scope as usize].parent.unwrap_or(0);
            let at = u32::from(range.start());
            if is_predeclared(names, parent, name)
                || binding_scope(names, parent, name, at).is_some()
            {
                continue;
            }
        }
        found.push(Diagnostic::new(
            ids::UNDEFINED_NAME,
            range,
            format!("undefined name '{name}'"),
        ));
    }
    found
}

/// Names bound by constructs the locals query leaves out: `except … as e`, PEP 695 type
/// parameters (`def f[T]`), `type X = …`.
fn names_bound_outside_locals<'t>(root: tree_sitter::Node, text: &'t str) -> HashSet<&'t str> {
    let mut found = HashSet::new();
    walk(root, &mut |node| {
        let bound = match node.kind() {
            "except_clause" => node.child_by_field_name("alias"),
            "type_parameter" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    let name = match child.kind() {
                        "type" => child.named_child(0),
                        _ => Some(child),
                    };
                    if let Some(name) = name.filter(|n| n.kind() == "identifier") {
                        found.insert(&text[name.byte_range()]);
                    }
                }
                None
            }
            "type_alias_statement" => node.named_child(0).and_then(|t| t.named_child(0)),
            // `case C(key=value)`: a capture the query does not bind.
            "keyword_pattern" => node
                .named_child(1)
                .filter(|v| v.kind() == "dotted_name" && v.named_child_count() == 1)
                .and_then(|v| v.named_child(0)),
            _ => None,
        };
        if let Some(name) = bound.filter(|n| n.kind() == "identifier") {
            found.insert(&text[name.byte_range()]);
        }
        true
    });
    found
}

/// Whether `node` is inside a `try` block (its body, not a handler) with a handler that
/// catches one of `errors` (or everything: a bare `except`, `Exception`, `BaseException`).
fn in_try_catching(node: tree_sitter::Node, text: &str, errors: &[&str]) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if parent.kind() == "try_statement"
            && parent
                .child_by_field_name("body")
                .is_some_and(|body| body.id() == child.id())
            && catches(parent, text, errors)
        {
            return true;
        }
        child = parent;
    }
    false
}

fn catches(try_statement: tree_sitter::Node, text: &str, errors: &[&str]) -> bool {
    let mut cursor = try_statement.walk();
    try_statement
        .named_children(&mut cursor)
        .filter(|c| matches!(c.kind(), "except_clause" | "except_group_clause"))
        .any(|handler| {
            let Some(value) = handler.child_by_field_name("value").or_else(|| {
                // An `except_group_clause` holds its type as the first named child.
                (handler.kind() == "except_group_clause")
                    .then(|| handler.named_child(0))
                    .flatten()
                    .filter(|c| c.kind() != "block")
            }) else {
                return true;
            };
            let caught = &text[value.byte_range()];
            caught
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| errors.contains(&word) || matches!(word, "Exception" | "BaseException"))
        })
}

/// Whether `node` is part of an import statement (`from __future__ import annotations`
/// names a feature, not a variable).
fn in_import(node: tree_sitter::Node) -> bool {
    let mut current = Some(node);
    while let Some(n) = current {
        if matches!(
            n.kind(),
            "import_statement" | "import_from_statement" | "future_import_statement"
        ) {
            return true;
        }
        current = n.parent();
    }
    false
}

/// Whether `node` is in the header of the innermost function, lambda or class around it
/// (not in its body): its defaults, annotations and bases.
fn in_header(node: tree_sitter::Node) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if matches!(
            parent.kind(),
            "function_definition" | "class_definition" | "lambda"
        ) {
            return parent
                .child_by_field_name("body")
                .is_some_and(|body| body.id() != child.id())
                && parent
                    .child_by_field_name("name")
                    .is_none_or(|name| name.id() != child.id());
        }
        child = parent;
    }
    false
}

/// The import each import binding of `names` comes from: the statement holding it, and
/// among that statement's imports the one binding the same name (in order, when several
/// do: `import a.b, a.c`).
fn import_of<'i>(
    names: &FileNames,
    imports: &'i FileImports,
) -> HashMap<OccurrenceId, &'i ImportSummary> {
    let mut found = HashMap::new();
    let mut taken: HashSet<usize> = HashSet::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        if occurrence.role != Role::Definition(BindingKind::Import) {
            continue;
        }
        let name = names.name(id as OccurrenceId);
        let matched = imports
            .statements
            .iter()
            .zip(imports.summaries.iter())
            .enumerate()
            .find(|(i, (statement, summary))| {
                statement.contains_range(occurrence.range)
                    && !taken.contains(i)
                    && python::local_name(summary) == name
            });
        if let Some((i, (_, summary))) = matched {
            taken.insert(i);
            found.insert(id as OccurrenceId, summary);
        }
    }
    found
}

/// The import as pyflakes names it: `a.b`, `a.b as c`, `m.x`, `m.x as y`, `.m.x`.
fn describe(import: &ImportSummary) -> String {
    match &import.name {
        None => match &import.alias {
            Some(alias) if *alias != import.module => format!("{} as {alias}", import.module),
            _ => import.module.clone(),
        },
        Some(name) => {
            let full = if import.module.ends_with('.') {
                format!("{}{name}", import.module)
            } else {
                format!("{}.{name}", import.module)
            };
            match &import.alias {
                Some(alias) if alias != name => format!("{full} as {alias}"),
                _ => full,
            }
        }
    }
}

fn unused_imports(
    path: &str,
    names: &FileNames,
    imports: &FileImports,
    tree: &mut Tree,
) -> Vec<Diagnostic> {
    // A stub's imports are its interface.
    if path.ends_with(".pyi") {
        return Vec::new();
    }
    let is_init = path == "__init__.py" || path.ends_with("/__init__.py");
    let of = import_of(names, imports);
    // By name: the scopes whose binding some use sees.
    let mut used: HashMap<&str, HashSet<ScopeId>> = HashMap::new();
    let mut candidates: Vec<(OccurrenceId, &ImportSummary)> = Vec::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let id = id as OccurrenceId;
        if occurrence.role != Role::Definition(BindingKind::Import) {
            continue;
        }
        let name = names.name(id);
        let scope = match names.declaration(occurrence.scope, name) {
            Some(Role::Global) => 0,
            _ => occurrence.scope,
        };
        // Imports in a class body are its attributes (`self.Percolator`); a binding made
        // again later in its scope is replaced (pyflakes judges the last one only).
        if names.scopes[scope as usize].is_class || names.bindings(scope, name).last() != Some(&id)
        {
            continue;
        }
        let seen = used
            .entry(name)
            .or_insert_with(|| scopes_using(names, name));
        if seen.contains(&scope) {
            continue;
        }
        let Some(&import) = of.get(&id) else {
            continue;
        };
        let reexport = match (&import.name, &import.alias) {
            (Some(imported), Some(alias)) => imported == alias,
            (None, Some(alias)) => *alias == import.module,
            _ => false,
        };
        // `import a.b` beside `import a as x`: loads `a.b` for `x.b` (used through x).
        let loads_submodule = import.name.is_none()
            && import.alias.is_none()
            && import.module.contains('.')
            && imports.summaries.iter().any(|other| {
                let top = python::local_name(import);
                python::local_name(other) != top
                    && (other.module == top || other.module.starts_with(&format!("{top}.")))
            });
        if import.module == "__future__"
            || reexport
            || loads_submodule
            || (is_init && import.name.is_some())
        {
            continue;
        }
        candidates.push((id, import));
    }
    if candidates.is_empty() {
        return Vec::new();
    }
    let Some((text, root)) = tree.root() else {
        return Vec::new();
    };
    let text = &*text;
    let mentioned = names_in_strings_and_comments(root, text);
    let mut found = Vec::new();
    for (id, import) in candidates {
        let range = names.occurrence(id).range;
        let name = names.name(id);
        if mentioned.contains(name) || used_in_a_header(names, root, id) {
            continue;
        }
        let Some(node) = root.descendant_for_byte_range(range.start().into(), range.end().into())
        else {
            continue;
        };
        if in_try_catching(node, text, &["ImportError", "ModuleNotFoundError"]) {
            continue;
        }
        found.push(Diagnostic::new(
            ids::UNUSED_IMPORT,
            range,
            format!("'{}' imported but unused", describe(import)),
        ));
    }
    found
}

/// Whether a use of the import `binding`'s name in a function's or class's header (a
/// parameter's annotation or default, a base) sees it: a header is evaluated in the scope
/// around, so `def f(pdb: pdb.Pdb)` uses the module's `pdb`.
fn used_in_a_header(names: &FileNames, root: tree_sitter::Node, binding: OccurrenceId) -> bool {
    let name = names.name(binding);
    let occurrence = names.occurrence(binding);
    let scope = match names.declaration(occurrence.scope, name) {
        Some(Role::Global) => 0,
        _ => occurrence.scope,
    };
    names.occurrences_named(name).any(|u| {
        let use_ = names.occurrence(u);
        let Some(parent) = names.scopes[use_.scope as usize].parent else {
            return false;
        };
        let (start, end) = (use_.range.start().into(), use_.range.end().into());
        use_.role.reads_binding()
            && root
                .descendant_for_byte_range(start, end)
                .is_some_and(in_header)
            && binding_scope(names, parent, name, start as u32) == Some(scope)
    })
}

/// Names used where the locals query does not look: listed in `__all__`, written in a
/// string annotation (`x: "Foo"`, `cast("Foo", v)`) or in a type comment (`# type: Foo`).
fn names_in_strings_and_comments<'t>(root: tree_sitter::Node, text: &'t str) -> HashSet<&'t str> {
    let mut found = HashSet::new();
    let words = |node: tree_sitter::Node, found: &mut HashSet<&'t str>| {
        for word in text[node.byte_range()].split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !word.is_empty() {
                found.insert(word);
            }
        }
    };
    walk(root, &mut |node| {
        match node.kind() {
            "comment"
                if text[node.byte_range()]
                    .trim_start_matches(['#', ' '])
                    .starts_with("type:") =>
            {
                words(node, &mut found);
            }
            "string" if in_annotation_or_all(node, text) => words(node, &mut found),
            _ => {}
        }
        true
    });
    found
}

/// Whether a string is in an annotation, in a value given to `__all__`, or an argument of
/// `cast`/`TypeVar` (whose strings name types).
fn in_annotation_or_all(string: tree_sitter::Node, text: &str) -> bool {
    let mut node = string;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "type" => return true,
            // `__all__ = [...]`, and `X: TypeAlias = "A | B"` (a type written as a string).
            "assignment" | "augmented_assignment" => {
                let left = parent.child_by_field_name("left");
                let alias = parent
                    .child_by_field_name("type")
                    .is_some_and(|t| text[t.byte_range()].ends_with("TypeAlias"));
                return alias || left.is_some_and(|left| &text[left.byte_range()] == "__all__");
            }
            "call" => {
                let callee = parent
                    .child_by_field_name("function")
                    .map_or("", |f| &text[f.byte_range()]);
                if callee.starts_with("__all__.")
                    || matches!(
                        callee.rsplit('.').next(),
                        Some("cast" | "TypeVar" | "NewType")
                    )
                {
                    return true;
                }
            }
            "block" | "module" => return false,
            _ => {}
        }
        node = parent;
    }
    false
}

/// Imports that name a module inside the workspace that no file is: a relative import
/// (within the workspace), or an absolute one whose nearest existing ancestor module is a
/// workspace package (`app/__init__.py`), not a plain module (`os.py` may put `os.path` in
/// `sys.modules` itself).
fn unresolved_imports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    let modules = python_modules(db, workspace);
    let depth = file.path(db).matches('/').count();
    let mut found = Vec::new();
    let mut reported: HashSet<(TextRange, &str)> = HashSet::new();
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let module_only = ImportSummary {
            module: summary.module.clone(),
            ..ImportSummary::default()
        };
        // The module alone first: resolving a name would read the module's definitions.
        if !matches!(
            imports::resolve(db, workspace, file, &module_only),
            imports::Target::Unresolved
        ) {
            continue;
        }
        let level = summary.module.chars().take_while(|&c| c == '.').count();
        let rest = &summary.module[level..];
        let in_workspace = if level > 0 {
            level - 1 <= depth
        } else {
            let parts: Vec<&str> = rest.split('.').collect();
            (1..parts.len())
                .rev()
                .find_map(|n| modules.module(&parts[..n].join(".")))
                .is_some_and(|ancestor| {
                    let path = ancestor.path(db);
                    path.ends_with("/__init__.py") || path == "__init__.py"
                })
        };
        if !in_workspace
            || !matches!(
                imports::resolve(db, workspace, file, summary),
                imports::Target::Unresolved
            )
            || !reported.insert((statement, summary.module.as_str()))
        {
            continue;
        }
        found.push(Diagnostic::new(
            ids::UNRESOLVED_IMPORT,
            statement,
            format!("no module '{}' in the workspace", summary.module),
        ));
    }
    found
}

/// The scopes whose binding of `name` some use (a read, a call, a type, a `del`) sees.
fn scopes_using(names: &FileNames, name: &str) -> HashSet<ScopeId> {
    names
        .occurrences_named(name)
        .filter(|&u| {
            let role = names.occurrence(u).role;
            role.reads_binding() || role == Role::Write
        })
        .filter_map(|u| {
            let use_ = names.occurrence(u);
            binding_scope(names, use_.scope, name, use_.range.start().into())
        })
        .collect()
}
