//! Calls with an impossible number of arguments (SX010) in TypeScript and TSX: `f(1, 2, 3)`
//! when `f` takes two, `f()` when it needs one — `tsc`'s "Expected 2 arguments, but got 3"
//! (TS2554, TS2555). JavaScript is not judged: it lets any call pass any number.
//!
//! Only calls whose callee is certain are judged: a name bound once at the top of a module
//! to a plain `function` declaration (with a body, no overload signatures, not `export
//! default`), in this file or imported by name from another TypeScript file of the
//! workspace that declares it itself (a re-export is not followed), and no enclosing scope
//! rebinds it. A call that spreads arguments (`f(...xs)`), a tagged template and `new` are
//! not judged. As in `tsc`, optional (`b?`), defaulted (`c = 1`) and rest (`...rest`)
//! parameters may be left out, `this` is no argument, and a parameter before the last
//! required one is required even with a default. A parameter whose type mentions `void`,
//! `undefined`, `unknown` or `any` may be left out for all sextant can tell, so no call is
//! said to pass too few of those.
//!
//! Invariant (incremental): other files are read through [`ecmascript_signatures`] only,
//! which is position-free, so an edit inside a function body of an imported module does
//! not re-check its importers.

use std::{collections::BTreeMap, sync::Arc};

use super::super::{Diagnostic, registry::ids};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::FileImports,
        names::{BindingKind, FileNames, Role, file_names, identifiers::whole_word_starts},
    },
    syntax::TextRange,
};

/// How many arguments calling a function takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arity {
    /// Arguments a call must pass.
    least: usize,
    /// Arguments a call may pass; `None` with a rest parameter.
    most: Option<usize>,
}

/// The module-level functions of a TypeScript file whose arity is certain, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signatures {
    by_name: BTreeMap<String, Arity>,
}

fn is_typescript(db: &dyn Db, file: SourceFile) -> bool {
    matches!(file.lang(db).info().id.as_str(), "typescript" | "tsx")
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
    let text = file.text(db);
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

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    if !is_typescript(db, file) {
        return Vec::new();
    }
    let calls: Vec<(TextRange, String, Arity)> = (0..names.occurrences.len() as u32)
        .filter(|&id| names.occurrence(id).role == Role::Call)
        .filter_map(|id| {
            let (defined_as, arity) =
                callee_arity(db, workspace, file, names, imports, id, names.name(id))?;
            Some((names.occurrence(id).range, defined_as, arity))
        })
        .collect();
    if calls.is_empty() {
        return Vec::new();
    }
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (range, name, arity) in calls {
        let Some(call) = super::super::call_named_at(&tree, range, "call_expression") else {
            continue;
        };
        let is_callee = call
            .child_by_field_name("function")
            .is_some_and(|f| f.start_byte() == usize::from(range.start()));
        let Some(arguments) = call
            .child_by_field_name("arguments")
            .filter(|a| is_callee && a.kind() == "arguments")
        else {
            continue;
        };
        let mut given = 0;
        let mut spreads = false;
        let mut cursor = arguments.walk();
        for argument in arguments.named_children(&mut cursor) {
            match argument.kind() {
                "comment" => {}
                "spread_element" => spreads = true,
                _ => given += 1,
            }
        }
        if spreads {
            continue;
        }
        if let Some(message) = mismatch(&name, arity, given) {
            let whole = TextRange::new(range.start(), (call.end_byte() as u32).into());
            found.push(Diagnostic::new(ids::IMPOSSIBLE_CALL, whole, message));
        }
    }
    found
}

/// What is wrong with passing `given` arguments, in `tsc`'s words.
fn mismatch(name: &str, arity: Arity, given: usize) -> Option<String> {
    let too_many = arity.most.is_some_and(|most| given > most);
    if given >= arity.least && !too_many {
        return None;
    }
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let expected = match arity.most {
        None => format!("at least {} argument{}", arity.least, plural(arity.least)),
        Some(most) if most == arity.least => format!("{most} argument{}", plural(most)),
        Some(most) => format!("{}-{most} arguments", arity.least),
    };
    Some(format!("{name}(): expected {expected}, but got {given}"))
}

/// The name and arity of what the call named `name` calls, when that is certain (see the
/// module doc).
fn callee_arity(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
    call: u32,
    name: &str,
) -> Option<(String, Arity)> {
    let binding = super::super::sole_module_binding(names, call)?;
    match names.occurrence(binding).role {
        Role::Definition(BindingKind::Function) => {
            let arity = *ecmascript_signatures(db, file).by_name.get(name)?;
            Some((name.to_string(), arity))
        }
        Role::Definition(BindingKind::Import) => {
            let import = imports.summaries.iter().find(|import| {
                !import.wildcard
                    && !import.type_only
                    && import
                        .name
                        .as_deref()
                        .is_some_and(|original| import.alias.as_deref().unwrap_or(original) == name)
            })?;
            let original = import.name.as_deref().filter(|n| *n != "default")?;
            let module = super::super::module_file(db, workspace, file, &import.module)?;
            let arity = (module != file)
                .then(|| {
                    ecmascript_signatures(db, module)
                        .by_name
                        .get(original)
                        .copied()
                })
                .flatten()?;
            Some((original.to_string(), arity))
        }
        _ => None,
    }
}
