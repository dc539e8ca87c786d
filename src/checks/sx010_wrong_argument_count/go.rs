//! SX010 for Go: a call of a package-level function with a number of arguments no call of
//! it can take, the compiler's "too many arguments in call to f" and "not enough arguments
//! in call to f".
//!
//! A function takes one argument per parameter name (`func f(a, b int, c string)` takes 3;
//! `func f(int, string)`, 2); a final `...T` parameter takes any number, none included.
//! Type parameters are not arguments, and `f[int](x)` calls `f`.
//!
//! Only calls whose callee and argument count are certain are judged: the callee is a plain
//! name (not `x.M`, not `pkg.F`) that no declaration, parameter or `:=` of the enclosing
//! top-level declaration binds before the call, in any block (a closure `f := func(){}`
//! shadows `f`; `f, err := f()` does not: a local scope starts after its statement),
//! declared by `func` at package level in the files of the same directory with the same
//! `package` clause (a `_test.go` file's functions only for test files), by one declaration, or by
//! several that agree (files for different platforms); never a name that is also a type, a
//! variable or a constant of the package (a conversion `T(x)`), nor a builtin no function of
//! the package hides. Calls that spread a slice (`f(xs...)`) are not judged; `f(g())` passes
//! each of `g`'s results, and is judged only when their number is known: `g` a function of
//! the package (`go_signatures` counts results too) or a conversion (`uint32(x)`,
//! `[]byte(s)`). When a file of the package does not parse, nothing is.
//!
//! Invariant (incremental): other files are read through [`go_signatures`] and
//! `go_file_facts` only, both position-free, so an edit inside a function body re-checks
//! that file alone.

use std::collections::{BTreeMap, BTreeSet};

use crate::checks::{Diagnostic, registry::ids};
use crate::semantic::facts::go::{self, GoSignature, go_signatures};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{imports::go_packages, projects::paths},
    syntax::TextRange,
};

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
) -> Vec<Diagnostic> {
    let text = &*file.text(db);
    let root = tree.root_node();
    let mut calls = Vec::new();
    crate::checks::walk(root, &mut |node| {
        if let Some(callee) = callee(node) {
            calls.push((node, callee));
        }
        true
    });
    if calls.is_empty() {
        return Vec::new();
    }
    let Some((package, declared)) = package_signatures(db, workspace, file) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (call, callee) in calls {
        let name = &text[callee.byte_range()];
        let Some(signature) = package.get(name) else {
            continue;
        };
        let values = |call: tree_sitter::Node| values(call, &package, &declared, text);
        let Some(given) = argument_count(call, values) else {
            continue;
        };
        let (too_many, not_enough) = (
            given > signature.required && !signature.variadic,
            given < signature.required,
        );
        if !too_many && !not_enough || locally_bound(callee, name, text) {
            continue;
        }
        let takes = if signature.variadic {
            format!("at least {}", signature.required)
        } else {
            signature.required.to_string()
        };
        let what = if too_many { "too many" } else { "not enough" };
        found.push(Diagnostic::new(
            ids::IMPOSSIBLE_CALL,
            TextRange::new(
                (callee.start_byte() as u32).into(),
                (call.end_byte() as u32).into(),
            ),
            format!("{what} arguments in call to '{name}': it takes {takes}, {given} given"),
        ));
    }
    found
}

/// The name a call calls, when it is a plain name: `f(…)`, `f[T](…)` (which the grammar
/// reads as a conversion to a generic type when it has one argument).
fn callee(call: tree_sitter::Node) -> Option<tree_sitter::Node> {
    if call.kind() == "type_conversion_expression" {
        return call
            .child_by_field_name("type")
            .filter(|t| t.kind() == "generic_type")?
            .child_by_field_name("type")
            .filter(|t| t.kind() == "type_identifier");
    }
    if call.kind() != "call_expression" {
        return None;
    }
    let function = call.child_by_field_name("function")?;
    match function.kind() {
        "identifier" => Some(function),
        // `f[int](x)`: the grammar reads an instantiation as an index or as a type's.
        "index_expression" => function
            .child_by_field_name("operand")
            .filter(|o| o.kind() == "identifier"),
        "type_instantiation_expression" | "generic_type" => function
            .child_by_field_name("type")
            .filter(|o| matches!(o.kind(), "identifier" | "type_identifier")),
        _ => None,
    }
}

/// How many arguments a call passes; `None` when that is not known: a spread `xs...`, or
/// one argument that is itself a call whose number of results `values` does not know (Go
/// passes each result as an argument).
fn argument_count(
    call: tree_sitter::Node,
    values: impl Fn(tree_sitter::Node) -> Option<usize>,
) -> Option<usize> {
    // A conversion's operand is among its own children, after its type.
    let arguments = match call.kind() {
        "type_conversion_expression" => call,
        _ => call.child_by_field_name("arguments")?,
    };
    let mut count = 0;
    let mut only = None;
    let mut cursor = arguments.walk();
    for argument in arguments.children(&mut cursor) {
        if call.kind() == "type_conversion_expression"
            && call
                .child_by_field_name("type")
                .is_some_and(|t| t.id() == argument.id())
        {
            continue;
        }
        match argument.kind() {
            "variadic_argument" | "..." => return None,
            "comment" => {}
            _ if argument.is_named() => {
                count += 1;
                only = Some(argument);
            }
            _ => {}
        }
    }
    if count == 1 {
        let mut only = only?;
        while only.kind() == "parenthesized_expression" {
            only = only.named_child(0)?;
        }
        if matches!(
            only.kind(),
            "call_expression" | "type_conversion_expression"
        ) {
            return values(only);
        }
    }
    Some(count)
}

/// Go's predeclared types, whose conversions `int(x)` give one value.
const PREDECLARED_TYPES: &[&str] = &[
    "any",
    "bool",
    "byte",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
];

/// How many values a call gives, when that is certain: a call of a function of the package
/// (not bound locally; at least one result, as a value must be), a conversion to a type
/// written as a literal (`[]byte(s)`, `(*T)(p)`) or to a predeclared type the package and
/// the function do not declare again (`uint32(x)`).
fn values(
    call: tree_sitter::Node,
    package: &BTreeMap<String, GoSignature>,
    declared: &BTreeSet<String>,
    text: &str,
) -> Option<usize> {
    if let Some(callee) = callee(call) {
        let name = &text[callee.byte_range()];
        if let Some(signature) = package.get(name)
            && signature.results > 0
            && !locally_bound(callee, name, text)
        {
            return Some(signature.results);
        }
        if call.kind() == "call_expression"
            && callee.kind() == "identifier"
            && call
                .child_by_field_name("function")
                .is_some_and(|f| f.id() == callee.id())
            && PREDECLARED_TYPES.contains(&name)
            && !declared.contains(name)
            && !locally_bound(callee, name, text)
        {
            return Some(1);
        }
        return None;
    }
    let ty = call.child_by_field_name("type")?;
    (call.kind() == "type_conversion_expression" && ty.kind() != "generic_type").then_some(1)
}

/// Whether a declaration, parameter, `:=` or `range`/`select`/type switch variable inside
/// the top-level declaration around `node` binds `name` before `node` (a local scope starts
/// after its name), in whatever block: a name bound there is not judged, unless by the
/// statement that holds `node` (`f, err := f()` calls the package's `f`).
fn locally_bound(node: tree_sitter::Node, name: &str, text: &str) -> bool {
    let mut top = node;
    while let Some(parent) = top.parent() {
        if parent.kind() == "source_file" {
            break;
        }
        top = parent;
    }
    let mut bound = false;
    crate::checks::walk(top, &mut |n| {
        if bound {
            return false;
        }
        if matches!(n.kind(), "identifier" | "type_identifier")
            && text.get(n.byte_range()) == Some(name)
            && n.start_byte() < node.start_byte()
            && binds(n)
            && !declares_around(n, node)
        {
            bound = true;
        }
        true
    });
    bound
}

/// Whether the local variable or constant `name` declares is declared by a statement that
/// holds `node` too (`f, err := f()`, `for f := range f()`): its scope starts after it.
fn declares_around(name: tree_sitter::Node, node: tree_sitter::Node) -> bool {
    let mut statement = name;
    while let Some(parent) = statement.parent() {
        statement = parent;
        if matches!(
            statement.kind(),
            "short_var_declaration" | "var_spec" | "const_spec" | "range_clause"
        ) {
            return statement.start_byte() <= node.start_byte()
                && node.end_byte() <= statement.end_byte();
        }
        if !matches!(statement.kind(), "expression_list" | "var_spec_list") {
            return false;
        }
    }
    false
}

/// Whether the identifier `n` is a name a declaration introduces.
fn binds(n: tree_sitter::Node) -> bool {
    let Some(parent) = n.parent() else {
        return false;
    };
    let is_field = |parent: tree_sitter::Node, field: &str| {
        let mut cursor = parent.walk();
        parent
            .children_by_field_name(field, &mut cursor)
            .any(|c| c.id() == n.id())
    };
    match parent.kind() {
        "parameter_declaration"
        | "variadic_parameter_declaration"
        | "type_parameter_declaration"
        | "var_spec"
        | "const_spec"
        | "type_spec"
        | "type_alias" => is_field(parent, "name"),
        "expression_list" => parent.parent().is_some_and(|statement| {
            matches!(
                statement.kind(),
                "short_var_declaration"
                    | "range_clause"
                    | "receive_statement"
                    | "type_switch_statement"
            ) && [
                statement.child_by_field_name("left"),
                statement.child_by_field_name("alias"),
            ]
            .into_iter()
            .flatten()
            .any(|side| side.id() == parent.id())
        }),
        _ => false,
    }
}

/// Every function of `file`'s package whose signature is certain, by name: declared by
/// `func` once in the package (or in several files, alike) and by nothing else; and every
/// name the package declares. `None` when a file of the package does not parse.
#[allow(clippy::type_complexity)]
fn package_signatures(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Option<(BTreeMap<String, GoSignature>, BTreeSet<String>)> {
    let facts = go::go_file_facts(db, file);
    let package = facts.package.as_ref()?;
    let path = file.path(db);
    let testing = path.ends_with("_test.go");
    let dir = paths::parent(path);
    let packages = go_packages(db, workspace);
    let mut siblings: Vec<SourceFile> = packages
        .files(dir)
        .iter()
        .copied()
        .filter(|&f| go::is_built(f.path(db)))
        .collect();
    if !siblings.contains(&file) {
        siblings.push(file);
    }
    // Per name: the signatures declared for it, and whether a declaration is not usable
    // from `file` (something other than a function, or a function of a test file seen from
    // a file that is not one).
    let mut declared: BTreeMap<String, (Vec<GoSignature>, bool)> = BTreeMap::new();
    for sibling in siblings {
        let facts = go::go_file_facts(db, sibling);
        if facts.package.as_ref() != Some(package) {
            continue;
        }
        if !facts.parses {
            return None;
        }
        let hidden = !testing && sibling.path(db).ends_with("_test.go");
        let signatures = go_signatures(db, sibling);
        for (name, signature) in &signatures.functions {
            let entry = declared.entry(name.clone()).or_default();
            entry.0.push(*signature);
            entry.1 |= hidden;
        }
        for name in &signatures.others {
            declared.entry(name.clone()).or_default().1 = true;
        }
    }
    let names = declared.keys().cloned().collect();
    let functions = declared
        .into_iter()
        .filter(|(_, (signatures, unusable))| {
            !unusable && signatures.windows(2).all(|w| w[0] == w[1])
        })
        .filter_map(|(name, (signatures, _))| Some((name, *signatures.first()?)))
        .collect();
    Some((functions, names))
}
