//! Python name rules the locals query cannot say: builtins, the local name an import
//! binds, and which parameter is the instance (`self`) or the class (`cls`).

use std::{collections::HashSet, sync::LazyLock};

use super::{BindingKind, FileNames, NameRules, OccurrenceId, Role};
use crate::semantic::imports::ImportSummary;
use crate::syntax::TextRange;

/// Python's [`NameRules`].
pub struct PythonNames;

impl NameRules for PythonNames {
    fn predeclared_module(&self) -> &'static str {
        BUILTINS_MODULE
    }

    fn is_predeclared(&self, name: &str) -> bool {
        is_builtin(name)
    }

    fn is_module_attribute(&self, name: &str) -> bool {
        is_module_attribute(name)
    }

    fn local_name<'i>(&self, import: &'i ImportSummary) -> &'i str {
        local_name(import)
    }

    fn first_parameter_is_receiver(&self) -> bool {
        true
    }

    fn declared_in_order(&self) -> bool {
        false
    }

    /// Types and values share one namespace.
    fn keeps_types_apart(&self) -> bool {
        false
    }

    /// A method's references are its own.
    fn counts_member_families(&self) -> bool {
        false
    }

    /// `self.m = f` defines an attribute.
    fn counts_member_assignments(&self) -> bool {
        false
    }

    fn initializer(&self) -> Option<&'static str> {
        Some("__init__")
    }
}

/// Where a builtin is said to come from.
pub const BUILTINS_MODULE: &str = "builtins";

static BUILTINS: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| crate::lang::word_list(include_str!("../../../grammars/python-builtins.txt")));

/// Names every module sees without binding them: builtins and a module's own attributes.
pub(crate) fn is_builtin(name: &str) -> bool {
    BUILTINS.contains(name) || is_module_attribute(name) || name == "__dict__"
}

/// A module's own attributes, set when it is imported (`__name__`, `__file__`): a use names
/// the module itself, not the builtins module's attribute of the same name.
pub(super) fn is_module_attribute(name: &str) -> bool {
    matches!(
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
    )
}

/// Builtins that are classes although lowercase (`list`, `str`): calling one makes an
/// instance whose members are the type's.
pub(super) fn is_builtin_type(name: &str) -> bool {
    matches!(
        name,
        "bool"
            | "bytearray"
            | "bytes"
            | "complex"
            | "dict"
            | "float"
            | "frozenset"
            | "int"
            | "list"
            | "memoryview"
            | "object"
            | "range"
            | "set"
            | "slice"
            | "str"
            | "tuple"
            | "type"
    )
}

/// The methods and attributes every class inherits from `object`.
pub(super) fn is_object_member(name: &str) -> bool {
    matches!(
        name,
        "__init__"
            | "__new__"
            | "__repr__"
            | "__str__"
            | "__eq__"
            | "__ne__"
            | "__lt__"
            | "__le__"
            | "__gt__"
            | "__ge__"
            | "__hash__"
            | "__format__"
            | "__getattribute__"
            | "__setattr__"
            | "__delattr__"
            | "__dir__"
            | "__sizeof__"
            | "__reduce__"
            | "__reduce_ex__"
            | "__init_subclass__"
            | "__subclasshook__"
            | "__class__"
            | "__doc__"
            | "__module__"
            | "__dict__"
    )
}

/// The name an import binds where it is written: the alias, the imported name, or the
/// first part of `import a.b`.
pub(crate) fn local_name(import: &ImportSummary) -> &str {
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
        None => local_name(import).into(),
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

/// The docstring of the function or class whose name is at `name` in `tree`, parsed from
/// `text`: the string that is the first statement of its body, without its quotes, dedented.
pub fn docstring_in(tree: &tree_sitter::Tree, text: &str, name: TextRange) -> Option<String> {
    let start = usize::from(name.start());
    let node = tree
        .root_node()
        .descendant_for_byte_range(start, usize::from(name.end()))?;
    let definition = node.parent()?;
    let first = definition.child_by_field_name("body")?.named_child(0)?;
    let string = (first.kind() == "expression_statement")
        .then(|| first.named_child(0))
        .flatten()
        .filter(|s| s.kind() == "string")?;
    let literal = text.get(string.byte_range())?;
    let body = literal.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let quote = ["\"\"\"", "'''", "\"", "'"]
        .into_iter()
        .find(|q| body.starts_with(q) && body.ends_with(q) && body.len() >= 2 * q.len())?;
    Some(dedent(&body[quote.len()..body.len() - quote.len()]))
}

/// A docstring's lines with their common indentation removed (the first line aside, as
/// Python's `inspect.cleandoc` does), and blank lines at either end dropped.
fn dedent(doc: &str) -> String {
    let mut lines = doc.lines();
    let first = lines.next().unwrap_or_default().trim();
    let rest: Vec<&str> = lines.collect();
    let indent = rest
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<&str> = vec![first];
    out.extend(
        rest.iter()
            .map(|l| l.get(indent..).unwrap_or("").trim_end()),
    );
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    out.join("\n")
}
