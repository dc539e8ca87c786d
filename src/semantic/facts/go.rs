//! Position-free facts about a Go file that the other files of its package read: its
//! package clause, build constraints and package-level names ([`go_file_facts`]), and its
//! package-level functions' parameter and result counts ([`go_signatures`]).
//!
//! Invariant (incremental): each answer depends on its own file alone and holds no
//! position, so it backdates after an edit that changes no package-level name or
//! signature, and the package's other files are not re-checked.

use std::{
    collections::{BTreeMap, BTreeSet, HashSet},
    sync::{Arc, LazyLock},
};

use crate::{
    db::{Db, SourceFile},
    semantic::{
        names::go::package_name,
        symbols::{SymbolKind, symbol_summaries},
        syntax_errors,
    },
};

static PLATFORMS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/go-platforms.txt")));

/// What other files of a package need to know of one Go file, without positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoFileFacts {
    /// The `package` clause.
    pub package: Option<String>,
    /// Built for some platforms or tags only (`//go:build`, `// +build`, `_GOOS`/`_GOARCH`
    /// file name suffixes).
    pub constrained: bool,
    /// Parsed without syntax errors (names found by error recovery are guesses).
    pub parses: bool,
    /// Package-level names, sorted: functions, types, constants, variables, and methods as
    /// `Type.Method`; not `init` or `_`.
    pub names: Vec<String>,
}

#[salsa::tracked(returns(clone))]
pub fn go_file_facts(db: &dyn Db, file: SourceFile) -> Arc<GoFileFacts> {
    let text = &*file.text(db);
    let mut names: Vec<String> = symbol_summaries(db, file)
        .iter()
        .filter(|s| s.parent().is_none())
        .filter_map(|s| match s.kind {
            // Methods named `_` may repeat.
            SymbolKind::Method if s.name == "_" => None,
            SymbolKind::Method => s.container.as_ref().map(|c| format!("{c}.{}", s.name)),
            _ => Some(s.name.to_string()),
        })
        .filter(|n| n != "_" && n != "init")
        .collect();
    names.sort();
    names.dedup();
    Arc::new(GoFileFacts {
        package: package_name(text).map(str::to_string),
        constrained: has_build_constraint(text) || has_platform_suffix(file.path(db)),
        parses: syntax_errors(db, file).is_empty(),
        names,
    })
}

/// A `//go:build` or `// +build` line before the package clause.
fn has_build_constraint(text: &str) -> bool {
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with("package ") {
            return false;
        }
        if line.starts_with("//go:build") || line.starts_with("// +build") {
            return true;
        }
    }
    false
}

/// `name_GOOS.go`, `name_GOARCH.go`, `name_GOOS_GOARCH.go`, each with an optional `_test`
/// (go/build's rule: only what follows the first `_` counts).
fn has_platform_suffix(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let name = name.split('.').next().unwrap_or(name);
    let Some(at) = name.find('_') else {
        return false;
    };
    // What follows the first `_`, split: `["", "GOOS", "GOARCH"]` (the first part is empty).
    let mut parts: Vec<&str> = name[at..].split('_').collect();
    if parts.last() == Some(&"test") {
        parts.pop();
    }
    // `_GOOS_GOARCH` ends in an architecture too, so the last part decides.
    parts.len() >= 2 && parts.last().is_some_and(|p| PLATFORMS.contains(p))
}

/// Whether the go tool builds the file at `path` at all: not under `testdata`, and no
/// element starting with `_` or `.`.
pub fn is_built(path: &str) -> bool {
    path.split('/')
        .all(|e| e != "testdata" && !e.starts_with('_') && !e.starts_with('.'))
}

/// The package-level names a Go file declares, with their name nodes, in document order
/// (as [`GoFileFacts::names`] spells them).
pub fn top_level_names<'t>(
    root: tree_sitter::Node<'t>,
    text: &str,
) -> Vec<(String, tree_sitter::Node<'t>)> {
    let written = |n: tree_sitter::Node| text.get(n.byte_range()).unwrap_or_default().to_string();
    let mut names = Vec::new();
    let mut cursor = root.walk();
    for declaration in root.named_children(&mut cursor) {
        match declaration.kind() {
            "function_declaration" => {
                names.extend(
                    declaration
                        .child_by_field_name("name")
                        .map(|n| (written(n), n)),
                );
            }
            "method_declaration" => {
                let receiver = declaration
                    .child_by_field_name("receiver")
                    .and_then(receiver_type);
                let name = declaration
                    .child_by_field_name("name")
                    .filter(|n| text.get(n.byte_range()) != Some("_"));
                if let (Some(receiver), Some(name)) = (receiver, name) {
                    names.push((format!("{}.{}", written(receiver), written(name)), name));
                }
            }
            "type_declaration" | "const_declaration" | "var_declaration" => {
                let mut specs = Vec::new();
                let mut inner = declaration.walk();
                for spec in declaration.named_children(&mut inner) {
                    if spec.kind() == "var_spec_list" {
                        let mut list = spec.walk();
                        specs.extend(spec.named_children(&mut list));
                    } else {
                        specs.push(spec);
                    }
                }
                for spec in specs {
                    if !matches!(
                        spec.kind(),
                        "type_spec" | "type_alias" | "const_spec" | "var_spec"
                    ) {
                        continue;
                    }
                    let mut inner = spec.walk();
                    names.extend(
                        spec.children_by_field_name("name", &mut inner)
                            .filter(|n| n.is_named())
                            .map(|n| (written(n), n)),
                    );
                }
            }
            _ => {}
        }
    }
    names.retain(|(name, _)| name != "_" && name != "init");
    names
}

/// The base type name of a method's receiver list (`(l *List[T])` → `List`).
fn receiver_type(list: tree_sitter::Node) -> Option<tree_sitter::Node> {
    let parameter = list.named_child(0)?;
    let mut ty = parameter.child_by_field_name("type")?;
    loop {
        ty = match ty.kind() {
            "type_identifier" => return Some(ty),
            "pointer_type" | "parenthesized_type" => ty.named_child(0)?,
            "generic_type" => ty.child_by_field_name("type")?,
            _ => return None,
        };
    }
}

/// What a Go function's parameter list accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoSignature {
    /// Parameters before a final `...T`.
    pub required: usize,
    /// Ends with `...T`: any number of further arguments.
    pub variadic: bool,
    /// How many values a call of it gives.
    pub results: usize,
}

/// The package-level declarations of one Go file, without positions: functions with their
/// signatures, and every other package-level name (types, variables, constants).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoSignatures {
    /// Functions declared once in the file by `func`.
    pub functions: BTreeMap<String, GoSignature>,
    /// Names declared more than once in the file, or by something other than `func`.
    pub others: BTreeSet<String>,
}

#[salsa::tracked(returns(clone))]
pub fn go_signatures(db: &dyn Db, file: SourceFile) -> Arc<GoSignatures> {
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Arc::default();
    };
    let text = &*file.text(db);
    let mut functions = BTreeMap::new();
    let mut others = BTreeSet::new();
    for (name, node) in top_level_names(tree.root_node(), text) {
        if name.contains('.') {
            continue; // a method, `T.M`
        }
        let signature = node
            .parent()
            .filter(|d| d.kind() == "function_declaration")
            .and_then(signature);
        match signature {
            Some(signature) if !others.contains(&name) && !functions.contains_key(&name) => {
                functions.insert(name, signature);
            }
            _ => {
                functions.remove(&name);
                others.insert(name);
            }
        }
    }
    Arc::new(GoSignatures { functions, others })
}

/// A function declaration's signature; `None` when a part of it is not understood.
fn signature(function: tree_sitter::Node) -> Option<GoSignature> {
    let (required, variadic) = parameters(function.child_by_field_name("parameters")?)?;
    let results = match function.child_by_field_name("result") {
        None => 0,
        Some(list) if list.kind() == "parameter_list" => match parameters(list)? {
            (count, false) => count,
            (_, true) => return None,
        },
        Some(_) => 1,
    };
    Some(GoSignature {
        required,
        variadic,
        results,
    })
}

/// How many parameters a list declares before a final `...T`, and whether it has one.
fn parameters(list: tree_sitter::Node) -> Option<(usize, bool)> {
    let mut required = 0;
    let mut variadic = false;
    let mut cursor = list.walk();
    for parameter in list.named_children(&mut cursor) {
        if variadic {
            return None; // `...T` is last
        }
        match parameter.kind() {
            "parameter_declaration" => {
                let mut inner = parameter.walk();
                let names = parameter
                    .children_by_field_name("name", &mut inner)
                    .filter(|n| n.is_named())
                    .count();
                required += names.max(1);
            }
            "variadic_parameter_declaration" => variadic = true,
            "comment" => {}
            _ => return None,
        }
    }
    Some((required, variadic))
}

/// A method as interface satisfaction compares it: its name and how many values it takes
/// and gives (types are not compared).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GoMethodShape {
    pub name: String,
    /// Parameters, a final `...T` counted as one.
    pub parameters: usize,
    pub results: usize,
}

/// An interface type declared at the package level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoInterface {
    pub methods: BTreeSet<GoMethodShape>,
    /// Interfaces it embeds, by their last name (`io.Reader` → `Reader`).
    pub embedded: Vec<String>,
}

/// A Go file's method sets, without positions: the methods each receiver type declares
/// here (value and pointer receivers alike), the interfaces declared here, and the types
/// each struct embeds (whose methods it is promoted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoMethodSets {
    /// Receiver type name → its methods declared in this file.
    pub methods: BTreeMap<String, BTreeSet<GoMethodShape>>,
    pub interfaces: BTreeMap<String, GoInterface>,
    /// Struct type name → the types it embeds, by their last name.
    pub embedded: BTreeMap<String, Vec<String>>,
}

/// What implicit interface satisfaction reads of one Go file. Position-free, so an edit
/// inside a body leaves it unchanged and whatever reads it is not re-run.
#[salsa::tracked(returns(clone))]
pub fn go_method_sets(db: &dyn Db, file: SourceFile) -> Arc<GoMethodSets> {
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Arc::default();
    };
    let text = &*file.text(db);
    let written = |n: tree_sitter::Node| text.get(n.byte_range()).unwrap_or_default().to_string();
    let mut sets = GoMethodSets::default();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for declaration in root.named_children(&mut cursor) {
        match declaration.kind() {
            "method_declaration" => {
                let receiver = declaration
                    .child_by_field_name("receiver")
                    .and_then(receiver_type);
                let shape = method_shape(declaration, text);
                if let (Some(receiver), Some(shape)) = (receiver, shape) {
                    sets.methods
                        .entry(written(receiver))
                        .or_default()
                        .insert(shape);
                }
            }
            "type_declaration" => {
                let mut inner = declaration.walk();
                for spec in declaration.named_children(&mut inner) {
                    let (Some(name), Some(ty)) = (
                        spec.child_by_field_name("name"),
                        spec.child_by_field_name("type"),
                    ) else {
                        continue;
                    };
                    match ty.kind() {
                        "interface_type" => {
                            sets.interfaces.insert(written(name), interface(ty, text));
                        }
                        "struct_type" => {
                            sets.embedded
                                .insert(written(name), embedded_fields(ty, text));
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Arc::new(sets)
}

/// A method declaration's or interface method's name and counts.
fn method_shape(method: tree_sitter::Node, text: &str) -> Option<GoMethodShape> {
    let name = text.get(method.child_by_field_name("name")?.byte_range())?;
    let signature = signature(method)?;
    Some(GoMethodShape {
        name: name.to_string(),
        parameters: signature.required + usize::from(signature.variadic),
        results: signature.results,
    })
}

fn interface(ty: tree_sitter::Node, text: &str) -> GoInterface {
    let mut found = GoInterface::default();
    let mut cursor = ty.walk();
    for element in ty.named_children(&mut cursor) {
        match element.kind() {
            "method_elem" => found.methods.extend(method_shape(element, text)),
            // An embedded interface alone in its element (`io.Reader`); a union or an
            // approximation (`~int | ~string`) is a constraint, not a method set.
            "type_elem" if element.named_child_count() == 1 => {
                found
                    .embedded
                    .extend(element.named_child(0).and_then(|t| last_type_name(t, text)));
            }
            _ => {}
        }
    }
    found
}

fn embedded_fields(ty: tree_sitter::Node, text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let Some(list) = ty.named_child(0) else {
        return found;
    };
    let mut cursor = list.walk();
    for field in list.named_children(&mut cursor) {
        if field.kind() == "field_declaration" && field.child_by_field_name("name").is_none() {
            let mut ty = field.child_by_field_name("type");
            while let Some(t) = ty.filter(|t| t.kind() == "pointer_type") {
                ty = t.named_child(0);
            }
            found.extend(ty.and_then(|t| last_type_name(t, text)));
        }
    }
    found
}

/// A written type's last name: `Reader` of `io.Reader`, `List` of `List[T]`.
fn last_type_name(ty: tree_sitter::Node, text: &str) -> Option<String> {
    let node = match ty.kind() {
        "type_identifier" => ty,
        "qualified_type" => ty.child_by_field_name("name")?,
        "generic_type" => return last_type_name(ty.child_by_field_name("type")?, text),
        _ => return None,
    };
    text.get(node.byte_range()).map(str::to_string)
}
