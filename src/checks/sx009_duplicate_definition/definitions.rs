//! Duplicate definitions (SX009): a parameter named twice in one function (every language),
//! a constant key twice in a JavaScript or TypeScript object literal, an item twice in one
//! namespace of a Rust module, a declaration twice in a JavaScript or TypeScript module
//! scope, and a name twice in a Go package (across the package's files).
//!
//! What the languages allow is not reported: Rust items of different namespaces (a function
//! and a struct with braces), items under `#[cfg]` or attribute macros (they may exclude
//! each other), items
//! macros generate (not seen); TypeScript overloads and declaration merging (interfaces,
//! namespaces, enums), ambient declarations and `.d.ts` files; `var` twice and, in scripts,
//! `function` twice in JavaScript; duplicate parameters of plain functions in sloppy
//! JavaScript; Go's `init` and `_`, and files with build constraints against other files.
//!
//! Invariant: reads the file's own tree and, of the other files of a Go package, only their
//! position-free summaries (`go::go_file_facts`).

use std::collections::HashMap;

use crate::checks::{
    Diagnostic, line_of, node_range, registry::ids,
    sx003_unresolved_import::rust::is_inert_attribute,
};
use crate::lang::Family;
use crate::semantic::facts::go;
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{imports::go_packages, projects::paths},
};

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    lang: Family,
    tree: &tree_sitter::Tree,
) -> Vec<Diagnostic> {
    let text = &*file.text(db);
    let root = tree.root_node();
    let mut found = Vec::new();
    let strict = matches!(lang, Family::Ecma { typescript: true }) || is_strict_script(root, text);
    preorder(root, |node| match lang {
        Family::Python if matches!(node.kind(), "parameters" | "lambda_parameters") => {
            let mut names = Vec::new();
            python_parameters(node, &mut names);
            parameters(&mut found, &names, text);
        }
        Family::Ecma { .. } => match node.kind() {
            "formal_parameters" if strict || strict_parameters(node) => {
                let mut names = Vec::new();
                let mut cursor = node.walk();
                for parameter in node.named_children(&mut cursor) {
                    ecma_bindings(parameter, &mut names, 0);
                }
                parameters(&mut found, &names, text);
            }
            "object" => object_keys(&mut found, node, text),
            _ => {}
        },
        Family::Go
            if matches!(
                node.kind(),
                "function_declaration" | "method_declaration" | "func_literal"
            ) =>
        {
            let mut names = Vec::new();
            for field in ["receiver", "parameters", "result"] {
                if let Some(list) = node.child_by_field_name(field) {
                    go_parameters(list, &mut names);
                }
            }
            parameters(&mut found, &names, text);
        }
        Family::Rust if matches!(node.kind(), "parameters" | "closure_parameters") => {
            let mut names = Vec::new();
            let mut cursor = node.walk();
            // `#[cfg(unix)] file: …, #[cfg(windows)] file: …`: one of them is compiled.
            let mut complete = !node
                .named_children(&mut node.walk())
                .any(|p| p.kind() == "attribute_item");
            for parameter in node.named_children(&mut cursor) {
                let pattern = match parameter.kind() {
                    "parameter" => parameter.child_by_field_name("pattern"),
                    _ => Some(parameter),
                };
                if let Some(pattern) = pattern {
                    complete &= rust_bindings(pattern, text, &mut names, 0);
                }
            }
            if complete {
                parameters(&mut found, &names, text);
            }
        }
        _ => {}
    });
    match lang {
        Family::Rust => {
            // The file, then each inline module (a worklist: modules nest without bound).
            let mut modules = vec![root];
            while let Some(module) = modules.pop() {
                rust_module(&mut found, module, text, &mut modules);
            }
        }
        Family::Ecma { typescript } if !file.path(db).ends_with(".d.ts") => {
            ecma_module(&mut found, root, text, typescript)
        }
        Family::Go => go_package(db, workspace, file, &mut found, root, text),
        _ => {}
    }
    found
}

/// Calls `f` on every node of the tree under `root`, parents first (no recursion: trees can
/// be deep and worker stacks small).
fn preorder<'t>(root: tree_sitter::Node<'t>, mut f: impl FnMut(tree_sitter::Node<'t>)) {
    let mut cursor = root.walk();
    loop {
        f(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

fn text_of<'t>(node: tree_sitter::Node, text: &'t str) -> &'t str {
    text.get(node.byte_range()).unwrap_or_default()
}

/// Reports each parameter whose name an earlier one of the same list has.
fn parameters(found: &mut Vec<Diagnostic>, names: &[tree_sitter::Node], text: &str) {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for name in names {
        let written = text_of(*name, text);
        if written.is_empty() || written == "_" {
            continue;
        }
        if seen.insert(written, name.start_byte()).is_some() {
            found.push(Diagnostic::new(
                ids::DUPLICATE_DEFINITION,
                node_range(*name),
                format!("duplicate parameter '{written}'"),
            ));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Parameters per language.

fn python_parameters<'t>(list: tree_sitter::Node<'t>, names: &mut Vec<tree_sitter::Node<'t>>) {
    let mut cursor = list.walk();
    for parameter in list.named_children(&mut cursor) {
        let name = match parameter.kind() {
            "identifier" => Some(parameter),
            "default_parameter" | "typed_default_parameter" => {
                parameter.child_by_field_name("name")
            }
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                let first = parameter.named_child(0);
                match first.map(|f| f.kind()) {
                    Some("list_splat_pattern" | "dictionary_splat_pattern") => {
                        first.and_then(|f| f.named_child(0))
                    }
                    _ => first,
                }
            }
            _ => None,
        };
        names.extend(name.filter(|n| n.kind() == "identifier"));
    }
}

/// How deep binding patterns are followed (deeper ones are not judged: stacks are small).
const MAX_PATTERN_DEPTH: u32 = 64;

/// The names a JavaScript or TypeScript binding pattern binds (defaults and types left out).
fn ecma_bindings<'t>(
    node: tree_sitter::Node<'t>,
    names: &mut Vec<tree_sitter::Node<'t>>,
    depth: u32,
) {
    if depth > MAX_PATTERN_DEPTH {
        return;
    }
    match node.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => names.push(node),
        "required_parameter" | "optional_parameter" => {
            if let Some(pattern) = node.child_by_field_name("pattern") {
                ecma_bindings(pattern, names, depth + 1);
            }
        }
        "assignment_pattern" | "object_assignment_pattern" => {
            if let Some(left) = node.child_by_field_name("left") {
                ecma_bindings(left, names, depth + 1);
            }
        }
        "pair_pattern" => {
            if let Some(value) = node.child_by_field_name("value") {
                ecma_bindings(value, names, depth + 1);
            }
        }
        "rest_pattern" | "array_pattern" | "object_pattern" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                ecma_bindings(child, names, depth + 1);
            }
        }
        _ => {}
    }
}

/// A parameter list whose duplicates are errors even in sloppy JavaScript: an arrow
/// function's, a method's, one with defaults, rest or patterns, and any inside a class.
fn strict_parameters(list: tree_sitter::Node) -> bool {
    let Some(function) = list.parent() else {
        return false;
    };
    if matches!(function.kind(), "arrow_function" | "method_definition") {
        return true;
    }
    let mut cursor = list.walk();
    if list
        .named_children(&mut cursor)
        .any(|p| !matches!(p.kind(), "identifier" | "comment"))
    {
        return true;
    }
    let mut up = function.parent();
    while let Some(node) = up {
        if matches!(node.kind(), "class_body") {
            return true;
        }
        up = node.parent();
    }
    false
}

/// A JavaScript file that is strict code: a module (it imports or exports) or a script that
/// starts with `"use strict"`.
fn is_strict_script(root: tree_sitter::Node, text: &str) -> bool {
    let mut cursor = root.walk();
    let mut first_statement = true;
    for child in root.named_children(&mut cursor) {
        match child.kind() {
            "import_statement" | "export_statement" => return true,
            "comment" | "hash_bang_line" => {}
            "expression_statement" if first_statement => {
                let written = text_of(child, text).trim_end_matches(';').trim();
                if matches!(written, "\"use strict\"" | "'use strict'") {
                    return true;
                }
                first_statement = false;
            }
            _ => first_statement = false,
        }
    }
    false
}

fn go_parameters<'t>(list: tree_sitter::Node<'t>, names: &mut Vec<tree_sitter::Node<'t>>) {
    if list.kind() != "parameter_list" {
        return;
    }
    let mut cursor = list.walk();
    for declaration in list.named_children(&mut cursor) {
        if matches!(
            declaration.kind(),
            "parameter_declaration" | "variadic_parameter_declaration"
        ) {
            let mut inner = declaration.walk();
            names.extend(declaration.children_by_field_name("name", &mut inner));
        }
    }
}

/// The names a Rust pattern binds; `false` when it holds a macro (unknown bindings).
fn rust_bindings<'t>(
    node: tree_sitter::Node<'t>,
    text: &str,
    names: &mut Vec<tree_sitter::Node<'t>>,
    depth: u32,
) -> bool {
    if depth > MAX_PATTERN_DEPTH {
        return false;
    }
    match node.kind() {
        // An upper-case name may be a unit struct or a constant, not a binding.
        "identifier" => {
            if !text_of(node, text).starts_with(char::is_uppercase) {
                names.push(node);
            }
            true
        }
        "macro_invocation" => false,
        "shorthand_field_identifier" => {
            names.push(node);
            true
        }
        "field_pattern" => match node.child_by_field_name("pattern") {
            Some(pattern) => rust_bindings(pattern, text, names, depth + 1),
            None => {
                if let Some(name) = node.child_by_field_name("name") {
                    names.push(name);
                }
                true
            }
        },
        // Each alternative binds the same names.
        "or_pattern" => node
            .named_child(0)
            .is_none_or(|first| rust_bindings(first, text, names, depth + 1)),
        "tuple_struct_pattern" | "struct_pattern" => {
            let ty = node.child_by_field_name("type").map(|t| t.id());
            let mut cursor = node.walk();
            let children: Vec<_> = node.named_children(&mut cursor).collect();
            children
                .into_iter()
                .filter(|c| Some(c.id()) != ty)
                .all(|c| rust_bindings(c, text, names, depth + 1))
        }
        "tuple_pattern" | "slice_pattern" | "ref_pattern" | "mut_pattern" | "reference_pattern"
        | "captured_pattern" => {
            let mut cursor = node.walk();
            let children: Vec<_> = node.named_children(&mut cursor).collect();
            children
                .into_iter()
                .all(|c| rust_bindings(c, text, names, depth + 1))
        }
        _ => true,
    }
}

// ---------------------------------------------------------------------------------------
// Object literal keys.

/// What a property defines: a value, or one of the two accessors (a getter and a setter of
/// one name go together).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Property {
    Value,
    Get,
    Set,
}

fn object_keys(found: &mut Vec<Diagnostic>, object: tree_sitter::Node, text: &str) {
    let mut seen: HashMap<String, Vec<Property>> = HashMap::new();
    let mut cursor = object.walk();
    for member in object.named_children(&mut cursor) {
        let (key, property) = match member.kind() {
            "pair" => (member.child_by_field_name("key"), Property::Value),
            "shorthand_property_identifier" => (Some(member), Property::Value),
            "method_definition" => {
                let property = if has_token(member, "get") {
                    Property::Get
                } else if has_token(member, "set") {
                    Property::Set
                } else {
                    Property::Value
                };
                (member.child_by_field_name("name"), property)
            }
            _ => continue,
        };
        let Some(key) = key else { continue };
        let Some(name) = constant_key(key, text) else {
            continue;
        };
        let before = seen.entry(name.clone()).or_default();
        let clash = before
            .iter()
            .any(|&b| b == property || b == Property::Value || property == Property::Value);
        before.push(property);
        if clash {
            found.push(Diagnostic::new(
                ids::DUPLICATE_DEFINITION,
                node_range(key),
                format!("duplicate key '{name}' in object literal"),
            ));
        }
    }
}

fn has_token(node: tree_sitter::Node, token: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|c| !c.is_named() && c.kind() == token)
}

/// A property key's name when it is a constant: an identifier, a string without escapes, a
/// decimal number (as JavaScript prints it: `1.0` is `1`).
fn constant_key(key: tree_sitter::Node, text: &str) -> Option<String> {
    let written = text_of(key, text);
    match key.kind() {
        "property_identifier" | "shorthand_property_identifier" => Some(written.to_string()),
        "string" => {
            let inner = written.get(1..written.len().checked_sub(1)?)?;
            (!inner.contains('\\')).then(|| inner.to_string())
        }
        "number" => {
            let value: f64 = written.parse().ok()?;
            if !value.is_finite() || written.contains(['_', 'x', 'X', 'o', 'O', 'b', 'B', 'n']) {
                return None;
            }
            Some(if value.fract() == 0.0 && value.abs() < 1e21 {
                format!("{value:.0}")
            } else {
                value.to_string()
            })
        }
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Module scopes.

/// Reports each definition in `items` (name, kind, name node) that clashes with an earlier
/// one of the same name, by `clash` on their kinds.
fn report_clashes<K: Copy>(
    found: &mut Vec<Diagnostic>,
    items: &[(&str, K, tree_sitter::Node)],
    clash: impl Fn(K, K) -> bool,
    scope: &str,
    text: &str,
) {
    let mut by_name: HashMap<&str, Vec<(K, tree_sitter::Node)>> = HashMap::new();
    for &(name, kind, node) in items {
        let earlier = by_name.entry(name).or_default();
        if let Some((_, first)) = earlier.iter().find(|(k, _)| clash(*k, kind)) {
            found.push(
                Diagnostic::new(
                    ids::DUPLICATE_DEFINITION,
                    node_range(node),
                    format!(
                        "'{name}' is already defined in this {scope} (line {})",
                        line_of(text, first.start_byte())
                    ),
                )
                .with_related(node_range(*first), format!("'{name}' first defined here")),
            );
        }
        earlier.push((kind, node));
    }
}

const TYPES: u8 = 1;
const VALUES: u8 = 2;

/// A Rust module's items (its inline modules go to `inline`): two items of one namespace
/// and one name, neither under `#[cfg]`, a `cfg_attr` or an attribute macro (which may
/// remove or rename it: `#[rustversion::beta]`).
fn rust_module<'t>(
    found: &mut Vec<Diagnostic>,
    list: tree_sitter::Node<'t>,
    text: &str,
    inline: &mut Vec<tree_sitter::Node<'t>>,
) {
    let mut items: Vec<(&str, u8, tree_sitter::Node)> = Vec::new();
    let mut cfg = false;
    let mut cursor = list.walk();
    for item in list.named_children(&mut cursor) {
        let kind = item.kind();
        if kind == "attribute_item" {
            cfg |= !is_inert_attribute(text_of(item, text), &[]);
            continue;
        }
        if matches!(kind, "line_comment" | "block_comment") {
            continue;
        }
        let under_cfg = std::mem::take(&mut cfg);
        if kind == "mod_item"
            && let Some(body) = item.child_by_field_name("body")
        {
            inline.push(body);
        }
        let namespaces = match kind {
            "function_item" | "const_item" | "static_item" => VALUES,
            "struct_item" => match item.child_by_field_name("body").map(|b| b.kind()) {
                Some("field_declaration_list") => TYPES,
                // Tuple and unit structs are also constructors.
                _ => TYPES | VALUES,
            },
            "enum_item" | "union_item" | "trait_item" | "type_item" | "mod_item" => TYPES,
            _ => continue,
        };
        if under_cfg {
            continue;
        }
        let Some(name) = item.child_by_field_name("name") else {
            continue;
        };
        if !matches!(name.kind(), "identifier" | "type_identifier") {
            continue;
        }
        let written = text_of(name, text);
        if written != "_" {
            items.push((written, namespaces, name));
        }
    }
    report_clashes(found, &items, |a, b| a & b != 0, "module", text);
}

/// How a JavaScript or TypeScript module-scope declaration binds its name.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Declared {
    /// `let`, `const`.
    Lexical,
    Class,
    Function,
    Var,
    Enum,
    Interface,
    TypeAlias,
}

fn ecma_module(found: &mut Vec<Diagnostic>, root: tree_sitter::Node, text: &str, typescript: bool) {
    let module = is_module(root);
    let mut items: Vec<(&str, Declared, tree_sitter::Node)> = Vec::new();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let declaration = match statement.kind() {
            "export_statement" => match statement.child_by_field_name("declaration") {
                Some(d) => d,
                None => continue,
            },
            _ => statement,
        };
        let kind = match declaration.kind() {
            "lexical_declaration" => Declared::Lexical,
            "variable_declaration" => Declared::Var,
            "function_declaration" | "generator_function_declaration" => Declared::Function,
            "class_declaration" | "abstract_class_declaration" => Declared::Class,
            "enum_declaration" => Declared::Enum,
            "interface_declaration" => Declared::Interface,
            "type_alias_declaration" => Declared::TypeAlias,
            _ => continue,
        };
        if matches!(kind, Declared::Lexical | Declared::Var) {
            let mut names = Vec::new();
            let mut inner = declaration.walk();
            for declarator in declaration.named_children(&mut inner) {
                if declarator.kind() == "variable_declarator"
                    && let Some(name) = declarator.child_by_field_name("name")
                {
                    ecma_bindings(name, &mut names, 0);
                }
            }
            items.extend(names.into_iter().map(|n| (text_of(n, text), kind, n)));
        } else if let Some(name) = declaration.child_by_field_name("name") {
            items.push((text_of(name, text), kind, name));
        }
    }
    let clash = |a: Declared, b: Declared| {
        use Declared::*;
        let lexical = |k| matches!(k, Lexical | Class);
        let value = |k| matches!(k, Lexical | Class | Function | Var | Enum);
        let type_like = |k| matches!(k, TypeAlias | Interface | Class | Enum);
        (lexical(a) && value(b))
            || (lexical(b) && value(a))
            || (a == Function && b == Function && (typescript || module))
            || (matches!((a, b), (Function, Enum) | (Enum, Function)))
            || (a == TypeAlias && type_like(b))
            || (b == TypeAlias && type_like(a))
    };
    report_clashes(found, &items, clash, "module", text);
}

/// The file imports or exports: an ES module.
fn is_module(root: tree_sitter::Node) -> bool {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .any(|c| matches!(c.kind(), "import_statement" | "export_statement"))
}

/// A Go file's package-level names: twice in the file, or also in another file of the
/// package that is built with it (neither has build constraints).
fn go_package(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    found: &mut Vec<Diagnostic>,
    root: tree_sitter::Node,
    text: &str,
) {
    let own = go::top_level_names(root, text);
    let items: Vec<(&str, (), tree_sitter::Node)> = own
        .iter()
        .map(|(name, node)| (name.as_str(), (), *node))
        .collect();
    report_clashes(found, &items, |_, _| true, "package", text);

    let facts = go::go_file_facts(db, file);
    if facts.constrained || !go::is_built(file.path(db)) {
        return;
    }
    let Some(package) = &facts.package else {
        return;
    };
    let dir = paths::parent(file.path(db));
    let mut elsewhere: HashMap<&str, String> = HashMap::new();
    let siblings = go_packages(db, workspace);
    let siblings: Vec<SourceFile> = siblings
        .files(dir)
        .iter()
        .copied()
        .filter(|&f| f != file && go::is_built(f.path(db)))
        .collect();
    let facts: Vec<(SourceFile, std::sync::Arc<go::GoFileFacts>)> = siblings
        .iter()
        .map(|&f| (f, go::go_file_facts(db, f)))
        .filter(|(_, f)| !f.constrained && f.parses && f.package.as_ref() == Some(package))
        .collect();
    for (name, _) in &own {
        for (other, facts) in &facts {
            if facts.names.binary_search(name).is_ok() {
                elsewhere.entry(name.as_str()).or_insert_with(|| {
                    other
                        .path(db)
                        .rsplit('/')
                        .next()
                        .unwrap_or_default()
                        .to_string()
                });
            }
        }
    }
    let mut reported = std::collections::HashSet::new();
    for (name, node) in &own {
        if let Some(other) = elsewhere.get(name.as_str())
            && reported.insert(name.as_str())
        {
            found.push(Diagnostic::new(
                ids::DUPLICATE_DEFINITION,
                node_range(*node),
                format!("'{name}' is already defined in this package ({other})"),
            ));
        }
    }
}
