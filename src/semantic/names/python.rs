//! Python name rules the locals query cannot say: builtins, the local name an import
//! binds, and which parameter is the instance (`self`) or the class (`cls`).

use std::{collections::HashSet, sync::LazyLock};

use super::{BindingKind, FileNames, OccurrenceId, Role};
use crate::semantic::imports::ImportSummary;

static BUILTINS: LazyLock<HashSet<&'static str>> = LazyLock::new(|| {
    include_str!("../../../grammars/python-builtins.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
});

/// Names every module sees without binding them: builtins and a module's own attributes.
pub(super) fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(name)
        || matches!(
            name,
            "__name__"
                | "__file__"
                | "__doc__"
                | "__package__"
                | "__spec__"
                | "__loader__"
                | "__path__"
                | "__builtins__"
                | "__annotations__"
                | "__dict__"
        )
}

/// The name an import binds where it is written: the alias, the imported name, or the
/// first part of `import a.b`.
pub(super) fn local_name(import: &ImportSummary) -> &str {
    if let Some(alias) = &import.alias {
        return alias;
    }
    if let Some(name) = &import.name {
        return name;
    }
    import.module.split('.').next().unwrap_or_default()
}

/// What an import binding holds when it is not `from m import name`: `import a.b` binds the
/// package `a`, `import a.b as c` the module `a.b`.
pub(super) fn bound_module(import: &ImportSummary) -> ImportSummary {
    let module = match &import.alias {
        Some(_) => import.module.clone(),
        None => local_name(import).to_string(),
    };
    ImportSummary {
        module,
        name: None,
        alias: None,
        ..ImportSummary::default()
    }
}

/// Whether `parameter` is the first parameter of a function defined directly in a class
/// body: the instance (or, for class methods, the class) the method is called on.
pub(super) fn is_receiver_parameter(names: &FileNames, parameter: OccurrenceId) -> bool {
    let occurrence = names.occurrence(parameter);
    if occurrence.role != Role::Definition(BindingKind::Parameter) {
        return false;
    }
    let function = &names.scopes[occurrence.scope as usize];
    let in_class = function
        .parent
        .is_some_and(|p| names.scopes[p as usize].is_class);
    if !in_class || function.named_by.is_none() {
        return false;
    }
    // Parameters come first in a function's scope: look from where the function starts.
    let from = names
        .occurrences
        .partition_point(|o| o.range.start() < function.range.start());
    let first = names.occurrences[from..].iter().position(|o| {
        o.scope == occurrence.scope && o.role == Role::Definition(BindingKind::Parameter)
    });
    first.map(|i| i + from) == Some(parameter as usize)
}
