//! Position-free facts about a JavaScript, TypeScript or TSX file that other files' checks
//! and navigation read: what it adds to the global scope and what it exports
//! ([`module_facts`], [`module_exports`] following `export *`, [`workspace_globals`] over
//! every file) and its module-level functions' argument counts ([`ecmascript_signatures`]).
//!
//! Invariant (incremental): [`module_facts`] and [`ecmascript_signatures`] depend on their
//! own file alone and hold no position; [`module_exports`] and [`workspace_globals`] read
//! only those answers and the path-built module map. So an edit inside a body backdates
//! them, and the files that read them are not re-checked.

use std::{collections::HashSet, sync::Arc};

use std::collections::BTreeMap;

use super::walk;
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        imports::{self, ImportSummary},
        names::{file_names, identifiers::whole_word_starts},
    },
};

/// What other files' checks need of a file, without positions: what it adds to the global
/// scope and what it exports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleFacts {
    /// It has a top-level `import` or `export` (or is `.mjs`, `.mts`, …): its top-level
    /// names are its own.
    pub module: bool,
    /// It has a `/// <reference types=… />` or `path=…` directive.
    pub triple_slash: bool,
    /// The global names it declares, sorted: a script's top-level names, `declare global`
    /// blocks' names, `export as namespace N`.
    pub globals: Box<[Box<str>]>,
    /// The names it exports itself, sorted; `None` when that cannot be told from its text
    /// alone: it has `export =`, CommonJS exports (`module.exports`, `exports.x`), a syntax
    /// error, or no `import` or `export` at all (a script).
    pub exports: Option<Box<[Box<str>]>>,
    /// The specifiers of its `export * from "…"` statements, sorted: it exports their
    /// modules' names too ([`module_exports`] follows them).
    pub star_exports: Box<[Box<str>]>,
    /// Of `exports`, sorted, the names that are types only: declared here by interfaces and
    /// type aliases and by nothing else (a class, an enum, a merged `const` are values too),
    /// or exported by `export type { … }`. An import of one names no value.
    pub type_exports: Box<[Box<str>]>,
}

/// The global names `file` declares and the names it exports, from one parse. Backdates
/// when an edit leaves them alone (an edit in a body), so other files' checks stay valid.
#[salsa::tracked(returns(clone))]
pub fn module_facts(db: &dyn Db, file: SourceFile) -> Arc<ModuleFacts> {
    let path = file.path(db);
    let always_module = [".mjs", ".cjs", ".mts", ".cts"]
        .iter()
        .any(|ext| path.ends_with(ext));
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Arc::new(ModuleFacts::default());
    };
    let text = &*file.text(db);
    let root = tree.root_node();
    let mut ambient = ModuleFacts {
        module: always_module,
        ..ModuleFacts::default()
    };
    let mut globals: Vec<&str> = Vec::new();
    let mut exported: Vec<&str> = Vec::new();
    let mut stars: Vec<&str> = Vec::new();
    let mut exports_known = !text.contains("exports");
    let mut top_level: Vec<&str> = Vec::new();
    let (mut types, mut values, mut type_only) = (Vec::new(), Vec::new(), Vec::new());
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        types_and_values(statement, text, [&mut types, &mut values, &mut type_only]);
        match statement.kind() {
            "import_statement" => ambient.module = true,
            "export_statement" => {
                ambient.module = true;
                exports_known &= statement_exports(statement, text, &mut exported, &mut stars);
                // `export as namespace N` (a UMD library's global).
                let words: Vec<&str> = text[statement.byte_range()].split_whitespace().collect();
                if let ["export", "as", "namespace", name, ..] = words.as_slice() {
                    globals.push(name.trim_end_matches(';'));
                }
            }
            // `/// <reference types="…" />` or `path="…"` brings in declarations sextant may
            // not see; `lib="…"` only a part of TypeScript's library, all of whose globals
            // are known.
            "comment" => {
                let comment = &text[statement.byte_range()];
                if let Some(rest) = comment.strip_prefix("///")
                    && rest.trim_start().starts_with("<reference")
                    && !rest.contains("lib=")
                    && !rest.contains("no-default-lib")
                {
                    ambient.triple_slash = true;
                }
            }
            "ambient_declaration" => {
                let mut inner = statement.walk();
                let block = statement
                    .children(&mut inner)
                    .skip_while(|c| c.kind() != "global")
                    .find(|c| c.kind() == "statement_block");
                match block {
                    Some(block) => {
                        let mut inner = block.walk();
                        for declaration in block.named_children(&mut inner) {
                            declared_names(declaration, text, &mut globals);
                        }
                    }
                    None => declared_names(statement, text, &mut top_level),
                }
            }
            _ => declared_names(statement, text, &mut top_level),
        }
    }
    if !ambient.module {
        globals.extend(top_level);
    }
    globals.sort_unstable();
    globals.dedup();
    ambient.globals = globals.into_iter().map(Box::from).collect();
    // A tree with errors may hide exports.
    if ambient.module && exports_known && !root.has_error() {
        exported.sort_unstable();
        exported.dedup();
        ambient.exports = Some(exported.into_iter().map(Box::from).collect());
        stars.sort_unstable();
        stars.dedup();
        ambient.star_exports = stars.into_iter().map(Box::from).collect();
        let values: HashSet<&str> = values.into_iter().collect();
        types.retain(|name| !values.contains(name));
        types.extend(type_only);
        let exports = ambient.exports.as_deref().unwrap_or_default();
        types.retain(|name| exports.iter().any(|e| &**e == *name));
        types.sort_unstable();
        types.dedup();
        ambient.type_exports = types.into_iter().map(Box::from).collect();
    }
    Arc::new(ambient)
}

/// Every name `file` exports: its own, and through `export * from` those of the workspace
/// modules it names, transitively (each module once, so cycles end; `export *` passes on
/// no `default`). `None` when that cannot be told: a module on the way has exports
/// [`module_facts`] cannot tell, or an `export *` names a module outside the workspace or
/// none. Position-free: reads only `module_facts` and the path-built module map.
#[salsa::tracked(returns(clone))]
pub fn module_exports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Option<Arc<[Box<str>]>> {
    let facts = module_facts(db, file);
    let own = facts.exports.as_ref()?;
    if facts.star_exports.is_empty() {
        return Some(own.iter().cloned().collect());
    }
    let mut names: Vec<Box<str>> = own.to_vec();
    let mut seen = HashSet::from([file]);
    let mut stack: Vec<(SourceFile, Arc<ModuleFacts>)> = vec![(file, facts)];
    while let Some((from, facts)) = stack.pop() {
        for spec in facts.star_exports.iter() {
            let module_only = ImportSummary {
                module: spec.as_ref().into(),
                ..ImportSummary::default()
            };
            let imports::Target::Resolved { file: target, .. } =
                imports::resolve(db, workspace, from, &module_only)
            else {
                return None;
            };
            if !seen.insert(target) {
                continue;
            }
            let target_facts = module_facts(db, target);
            let exported = target_facts.exports.as_ref()?;
            names.extend(exported.iter().filter(|n| &***n != "default").cloned());
            stack.push((target, target_facts));
        }
    }
    names.sort_unstable();
    names.dedup();
    Some(names.into())
}

/// The names a top-level statement declares (`var a, {b}`, `function f`, `class C`,
/// `interface I`, `type T`, `enum E`, `namespace N`, their `declare` and `export` forms).
fn declared_names<'t>(statement: tree_sitter::Node, text: &'t str, out: &mut Vec<&'t str>) {
    let name_of = |node: tree_sitter::Node| {
        node.child_by_field_name("name")
            .filter(|n| matches!(n.kind(), "identifier" | "type_identifier"))
            .map(|n| &text[n.byte_range()])
    };
    match statement.kind() {
        "variable_declaration" | "lexical_declaration" => {
            let mut cursor = statement.walk();
            for declarator in statement.named_children(&mut cursor) {
                if let Some(pattern) = declarator.child_by_field_name("name") {
                    pattern_names(pattern, text, out);
                }
            }
        }
        "function_declaration"
        | "generator_function_declaration"
        | "function_signature"
        | "class_declaration"
        | "abstract_class_declaration"
        | "interface_declaration"
        | "type_alias_declaration"
        | "enum_declaration"
        | "internal_module"
        | "module" => out.extend(name_of(statement)),
        "ambient_declaration" | "expression_statement" | "export_statement" => {
            let mut cursor = statement.walk();
            for child in statement.named_children(&mut cursor) {
                declared_names(child, text, out);
            }
        }
        _ => {}
    }
}

/// The names a top-level `statement` declares, sorted into `[types, values, type_only]`:
/// those of interfaces and type aliases, those of every other declaration, and those an
/// `export type { … }` exports (whatever they are here, the export is a type's).
fn types_and_values<'t>(statement: tree_sitter::Node, text: &'t str, out: [&mut Vec<&'t str>; 3]) {
    let [types, values, type_only] = out;
    let declaration = match statement.kind() {
        "export_statement" => match statement.child_by_field_name("declaration") {
            Some(declaration) => declaration,
            None => {
                let mut cursor = statement.walk();
                let children: Vec<tree_sitter::Node> = statement.children(&mut cursor).collect();
                if children.iter().any(|c| c.kind() == "type") {
                    let mut stars = Vec::new();
                    statement_exports(statement, text, type_only, &mut stars);
                }
                return;
            }
        },
        _ => statement,
    };
    match declaration.kind() {
        "interface_declaration" | "type_alias_declaration" => {
            declared_names(declaration, text, types)
        }
        _ => declared_names(declaration, text, values),
    }
}

/// The names a binding pattern binds (`a`, `{b, c: d}`, `[e, ...f]`).
fn pattern_names<'t>(pattern: tree_sitter::Node, text: &'t str, out: &mut Vec<&'t str>) {
    walk(pattern, &mut |node| match node.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            let is_default_value = node.parent().is_some_and(|p| {
                matches!(p.kind(), "assignment_pattern" | "object_assignment_pattern")
                    && p.child_by_field_name("right")
                        .is_some_and(|r| r.id() == node.id())
            });
            if !is_default_value {
                out.push(&text[node.byte_range()]);
            }
            false
        }
        // A default value's expression, a computed key, a type: no bindings inside.
        "type_annotation" | "computed_property_name" => false,
        "pair_pattern" => {
            if let Some(value) = node.child_by_field_name("value") {
                pattern_names(value, text, out);
            }
            false
        }
        _ => true,
    });
}

/// The global names the workspace's files declare ([`module_facts`] of each).
#[salsa::tracked(returns(clone))]
pub fn workspace_globals(db: &dyn Db, workspace: Workspace) -> Arc<HashSet<Box<str>>> {
    let mut found = HashSet::new();
    for &file in workspace.files(db).iter() {
        if matches!(file.lang(db).info().family, Family::Ecma { .. }) {
            found.extend(module_facts(db, file).globals.iter().cloned());
        }
    }
    Arc::new(found)
}
/// Adds the names one `export` statement exports, and the specifier of an `export * from`
/// to `stars`; false when it may export any name.
fn statement_exports<'t>(
    statement: tree_sitter::Node,
    text: &'t str,
    out: &mut Vec<&'t str>,
    stars: &mut Vec<&'t str>,
) -> bool {
    let export_name = |node: tree_sitter::Node| -> &'t str {
        let node = match node.kind() {
            "string" => node.named_child(0).unwrap_or(node),
            _ => node,
        };
        &text[node.byte_range()]
    };
    let mut cursor = statement.walk();
    let children: Vec<tree_sitter::Node> = statement.children(&mut cursor).collect();
    if children.iter().any(|c| c.kind() == "default") {
        out.push("default");
        return true;
    }
    if let Some(declaration) = statement.child_by_field_name("declaration") {
        declared_names(declaration, text, out);
        return true;
    }
    let mut understood = false;
    for child in children {
        match child.kind() {
            "=" => return false,
            // `export * from "m"` (not `export * as ns`, a `namespace_export`): the names
            // of `m`, when its specifier is a plain string.
            "*" => {
                let source = statement
                    .child_by_field_name("source")
                    .filter(|s| s.named_child_count() == 1)
                    .and_then(|s| s.named_child(0))
                    .filter(|f| f.kind() == "string_fragment");
                match source {
                    Some(fragment) => stars.push(&text[fragment.byte_range()]),
                    None => return false,
                }
                understood = true;
            }
            "namespace_export" => {
                let mut inner = child.walk();
                let name = child.named_children(&mut inner).last();
                out.extend(name.map(export_name));
                understood = true;
            }
            "export_clause" => {
                let mut inner = child.walk();
                for specifier in child.named_children(&mut inner) {
                    let name = specifier
                        .child_by_field_name("alias")
                        .or_else(|| specifier.child_by_field_name("name"));
                    out.extend(name.map(export_name));
                }
                understood = true;
            }
            "import_alias" => {
                let mut inner = child.walk();
                let name = child.named_children(&mut inner).next();
                out.extend(name.map(export_name));
                understood = true;
            }
            _ => {}
        }
    }
    understood
}

/// How many arguments calling a function takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arity {
    /// Arguments a call must pass.
    pub least: usize,
    /// Arguments a call may pass; `None` with a rest parameter.
    pub most: Option<usize>,
}

/// The module-level functions of a TypeScript file whose arity is certain, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signatures {
    pub by_name: BTreeMap<String, Arity>,
}

fn is_typescript(db: &dyn Db, file: SourceFile) -> bool {
    file.lang(db).info().family == Family::TYPESCRIPT
}

#[salsa::tracked(returns(clone))]
pub fn ecmascript_signatures(db: &dyn Db, file: SourceFile) -> Arc<Signatures> {
    if !is_typescript(db, file) {
        return Arc::default();
    }
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Arc::default();
    };
    let names = file_names(db, file);
    let text = &*file.text(db);
    let mut by_name = BTreeMap::new();
    let mut overloaded = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let declaration = match statement.kind() {
            "export_statement" if statement.child_by_field_name("value").is_none() => {
                let is_default = (0..statement.child_count())
                    .filter_map(|i| statement.child(i))
                    .any(|c| c.kind() == "default");
                match statement.child_by_field_name("declaration") {
                    Some(d) if !is_default => d,
                    _ => continue,
                }
            }
            _ => statement,
        };
        let Some(name) = declaration.child_by_field_name("name") else {
            continue;
        };
        let name = &text[name.byte_range()];
        match declaration.kind() {
            "function_declaration" | "generator_function_declaration" => {
                if let Some(arity) = function_arity(declaration, text)
                    && names.bindings(0, name).len() == 1
                {
                    by_name.insert(name.to_string(), arity);
                }
            }
            // Overloads and ambient declarations give a name several signatures.
            "function_signature" | "ambient_declaration" => overloaded.push(name.to_string()),
            _ => {}
        }
    }
    for name in overloaded {
        by_name.remove(&name);
    }
    Arc::new(Signatures { by_name })
}

/// What calling a function declaration takes; `None` when a parameter is of a kind not
/// understood here.
fn function_arity(function: tree_sitter::Node, text: &str) -> Option<Arity> {
    let parameters = function.child_by_field_name("parameters")?;
    let (mut count, mut least, mut rest) = (0, 0, false);
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        match parameter.kind() {
            "required_parameter" => {
                let pattern = parameter.child_by_field_name("pattern")?;
                match pattern.kind() {
                    "this" => continue,
                    "rest_pattern" => {
                        rest = true;
                        continue;
                    }
                    _ => {}
                }
                count += 1;
                let may_be_left_out = parameter.child_by_field_name("value").is_some()
                    || parameter.child_by_field_name("type").is_some_and(|t| {
                        let written = &text[t.byte_range()];
                        ["void", "undefined", "unknown", "any"]
                            .iter()
                            .any(|word| whole_word_starts(written, word).next().is_some())
                    });
                if !may_be_left_out {
                    least = count;
                }
            }
            "optional_parameter" => count += 1,
            "comment" => {}
            _ => return None,
        }
    }
    Some(Arity {
        least,
        most: (!rest).then_some(count),
    })
}
