//! Python calls with an impossible set of arguments (SX010): `f(1, 2, 3)` when `f` takes
//! two, a missing required argument, an unexpected keyword, one argument given twice — the
//! `TypeError`s Python raises when the call runs, found before it does.
//!
//! Only calls whose callee is certain are judged: a name bound once at the top of a module
//! to a plain `def` (no decorator), or to a class whose `__init__` decides what calling it
//! takes (no decorator, no metaclass, no base but `object` or a builtin class), in this file
//! or imported with `from module import name` from a workspace file. Calls that spread
//! arguments (`*args`, `**kwargs`) are not judged.
//!
//! Invariant (incremental): other files are read through [`python_signatures`] only, which
//! is position-free, so an edit inside a function body of an imported module does not
//! re-check its importers.

use crate::checks::{Diagnostic, registry::ids};
use crate::semantic::facts::python::{Parameter, Signature, python_signatures};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::{self, FileImports},
        names::{BindingKind, FileNames, Role, file_names, python},
        symbols::file_symbols,
    },
    syntax::TextRange,
};

/// The call's arguments: how many positional ones, and the keywords' names; `None` when
/// it spreads any (`*args`, `**kwargs`), whose counts are unknown.
fn arguments<'t>(call: tree_sitter::Node, text: &'t str) -> Option<(usize, Vec<&'t str>)> {
    let arguments = call.child_by_field_name("arguments")?;
    if arguments.kind() == "generator_expression" {
        return Some((1, Vec::new()));
    }
    let (mut positional, mut keywords) = (0, Vec::new());
    let mut cursor = arguments.walk();
    for argument in arguments.named_children(&mut cursor) {
        match argument.kind() {
            "list_splat" | "dictionary_splat" => return None,
            "keyword_argument" => {
                keywords.push(&text[argument.child_by_field_name("name")?.byte_range()])
            }
            "comment" => {}
            _ => positional += 1,
        }
    }
    Some((positional, keywords))
}

/// What is wrong with calling `name` (a signature) with these arguments, as Python's
/// `TypeError` says it.
fn mismatch(
    name: &str,
    signature: &Signature,
    positional: usize,
    keywords: &[&str],
) -> Option<String> {
    let most = signature.positional.len();
    if positional > most && !signature.var_positional {
        let least = signature.positional.iter().filter(|p| p.required).count();
        let takes = match (least == most, most) {
            (true, 1) => "1 positional argument".to_string(),
            (true, n) => format!("{n} positional arguments"),
            (false, n) => format!("from {least} to {n} positional arguments"),
        };
        let were = if positional == 1 { "was" } else { "were" };
        return Some(format!(
            "{name}() takes {takes} but {positional} {were} given"
        ));
    }
    let mut bound: Vec<&str> = signature.positional[..positional.min(most)]
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    for &keyword in keywords {
        let index = signature.positional.iter().position(|p| p.name == keyword);
        let named = match index {
            Some(i) => i >= signature.positional_only,
            None => signature.keyword_only.iter().any(|p| p.name == keyword),
        };
        if !named {
            if signature.var_keyword {
                continue;
            }
            return Some(format!(
                "{name}() got an unexpected keyword argument '{keyword}'"
            ));
        }
        if bound.contains(&keyword) {
            return Some(format!(
                "{name}() got multiple values for argument '{keyword}'"
            ));
        }
        bound.push(keyword);
    }
    let missing = |parameters: &[Parameter]| -> Vec<String> {
        parameters
            .iter()
            .filter(|p| p.required && !bound.contains(&p.name.as_str()))
            .map(|p| format!("'{}'", p.name))
            .collect()
    };
    for (list, kind) in [
        (&signature.positional, "positional"),
        (&signature.keyword_only, "keyword-only"),
    ] {
        let missing = missing(list);
        if !missing.is_empty() {
            let count = missing.len();
            let plural = if count == 1 { "" } else { "s" };
            // As Python lists them: `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`.
            let listed = match missing.as_slice() {
                [one] => one.clone(),
                [first, second] => format!("{first} and {second}"),
                [init @ .., last] => format!("{}, and {last}", init.join(", ")),
                [] => continue,
            };
            return Some(format!(
                "{name}() missing {count} required {kind} argument{plural}: {listed}"
            ));
        }
    }
    None
}

pub(super) fn check(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<Diagnostic> {
    let names = file_names(db, file);
    let imports = &file_symbols(db, file).imports;
    let calls: Vec<(TextRange, String, Signature)> = (0..names.occurrences.len() as u32)
        .filter(|&id| names.occurrence(id).role == Role::Call)
        .filter_map(|id| {
            let name = names.name(id);
            let (defined_as, signature) =
                callee_signature(db, workspace, file, &names, imports, id, name)?;
            Some((names.occurrence(id).range, defined_as, signature))
        })
        .collect();
    if calls.is_empty() {
        return Vec::new();
    }
    let text = &*file.text(db);
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (range, name, signature) in calls {
        let Some(call) = crate::checks::call_named_at(&tree, range, "call") else {
            continue;
        };
        let Some((positional, keywords)) = arguments(call, text) else {
            continue;
        };
        if let Some(message) = mismatch(&name, &signature, positional, &keywords) {
            let whole = TextRange::new(range.start(), (call.end_byte() as u32).into());
            found.push(Diagnostic::new(ids::IMPOSSIBLE_CALL, whole, message));
        }
    }
    found
}

/// The name and signature of what the call named `name` calls, when that is certain: a
/// module-level name no enclosing scope rebinds, bound once, to a `def`/`class` of this
/// file or to one imported by `from module import name` from another workspace file.
fn callee_signature(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
    call: u32,
    name: &str,
) -> Option<(String, Signature)> {
    let binding = crate::checks::sole_module_binding(names, call)?;
    match names.occurrence(binding).role {
        Role::Definition(BindingKind::Function | BindingKind::Class) => {
            let signature = python_signatures(db, file).by_name.get(name).cloned()?;
            Some((name.to_string(), signature))
        }
        Role::Definition(BindingKind::Import) => {
            let import = imports.summaries.iter().find(|import| {
                import.name.is_some() && !import.wildcard && python::local_name(import) == name
            })?;
            let imports::Target::Resolved {
                file: module,
                symbol: Some(_),
            } = imports::resolve(db, workspace, file, import)
            else {
                return None;
            };
            let original = import.name.as_deref()?;
            let signature = (module != file)
                .then(|| python_signatures(db, module).by_name.get(original).cloned())
                .flatten()?;
            Some((original.to_string(), signature))
        }
        _ => None,
    }
}
