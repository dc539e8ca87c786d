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

use crate::checks::{Diagnostic, registry::ids};
use crate::semantic::facts::ecmascript::{Arity, ecmascript_signatures};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::FileImports,
        names::{BindingKind, FileNames, Role},
    },
    syntax::TextRange,
};

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
) -> Vec<Diagnostic> {
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
        let Some(call) = crate::checks::call_named_at(&tree, range, "call_expression") else {
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
    let binding = crate::checks::sole_module_binding(names, call)?;
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
            let module = crate::checks::module_file(db, workspace, file, &import.module)?;
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
