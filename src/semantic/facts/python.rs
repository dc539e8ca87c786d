//! Position-free facts about a Python file that other files' checks and navigation read:
//! its module-level callables' signatures ([`python_signatures`]) and its top-level names
//! ([`module_names`]).
//!
//! Invariant (incremental): each answer depends on its own file alone and holds no
//! position, so it backdates after an edit that leaves it alone (an edit inside a function
//! body) and the files that read it are not re-checked.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::Arc,
};

use crate::{
    db::{Db, SourceFile},
    semantic::{
        names::{FileNames, Role, file_names, python},
        symbols::file_symbols,
    },
};

/// What calling a callable accepts, as its `def` declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// Parameters that take positional arguments, in order.
    pub positional: Vec<Parameter>,
    /// How many of `positional` cannot be passed by keyword (before `/`).
    pub positional_only: usize,
    pub keyword_only: Vec<Parameter>,
    /// `*args`: any number of further positional arguments.
    pub var_positional: bool,
    /// `**kwargs`: any other keyword.
    pub var_keyword: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parameter {
    pub name: String,
    pub required: bool,
}

/// The module-level callables of a Python file whose signature is certain, by name. A name
/// bound more than once at the top of the module is left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signatures {
    pub by_name: BTreeMap<String, Signature>,
}

#[salsa::tracked(returns(clone))]
pub fn python_signatures(db: &dyn Db, file: SourceFile) -> Arc<Signatures> {
    let names = file_names(db, file);
    let text = &*file.text(db);
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Arc::default();
    };
    let mut by_name = BTreeMap::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let (name, signature) = match statement.kind() {
            "function_definition" => {
                let Some(name) = statement.child_by_field_name("name") else {
                    continue;
                };
                (name, function_signature(statement, text, false))
            }
            "class_definition" => {
                let Some(name) = statement.child_by_field_name("name") else {
                    continue;
                };
                (name, class_signature(statement, text))
            }
            _ => continue,
        };
        let name = &text[name.byte_range()];
        if let Some(signature) = signature
            && names.bindings(0, name).len() == 1
        {
            by_name.insert(name.to_string(), signature);
        }
    }
    Arc::new(Signatures { by_name })
}

/// A `def`'s signature; `drop_first` leaves out the receiver (`self` of `__init__`).
fn function_signature(def: tree_sitter::Node, text: &str, drop_first: bool) -> Option<Signature> {
    let parameters = def.child_by_field_name("parameters")?;
    let mut signature = Signature {
        positional: Vec::new(),
        positional_only: 0,
        keyword_only: Vec::new(),
        var_positional: false,
        var_keyword: false,
    };
    let mut keyword_only = false;
    let mut cursor = parameters.walk();
    for parameter in parameters.named_children(&mut cursor) {
        let (name, required) = match parameter.kind() {
            "identifier" => (parameter, true),
            "typed_parameter" => {
                let inner = parameter.named_child(0)?;
                match inner.kind() {
                    "identifier" => (inner, true),
                    "list_splat_pattern" => {
                        signature.var_positional = true;
                        keyword_only = true;
                        continue;
                    }
                    "dictionary_splat_pattern" => {
                        signature.var_keyword = true;
                        continue;
                    }
                    _ => return None,
                }
            }
            "default_parameter" | "typed_default_parameter" => {
                (parameter.child_by_field_name("name")?, false)
            }
            "list_splat_pattern" => {
                signature.var_positional = true;
                keyword_only = true;
                continue;
            }
            "keyword_separator" => {
                keyword_only = true;
                continue;
            }
            "positional_separator" => {
                signature.positional_only = signature.positional.len();
                continue;
            }
            "dictionary_splat_pattern" => {
                signature.var_keyword = true;
                continue;
            }
            "comment" => continue,
            _ => return None,
        };
        if name.kind() != "identifier" {
            return None;
        }
        let parameter = Parameter {
            name: text[name.byte_range()].to_string(),
            required,
        };
        if keyword_only {
            signature.keyword_only.push(parameter);
        } else {
            signature.positional.push(parameter);
        }
    }
    if drop_first {
        if signature.positional.is_empty() {
            // `def __init__(*args)`: the receiver is in `args`.
            return signature.var_positional.then_some(signature);
        }
        signature.positional.remove(0);
        signature.positional_only = signature.positional_only.saturating_sub(1);
    }
    Some(signature)
}

/// What calling a class takes: its own `__init__`'s parameters after `self`. Unknown when a
/// metaclass, `__new__`, `__call__` on a metaclass or a base class could decide it.
fn class_signature(class: tree_sitter::Node, text: &str) -> Option<Signature> {
    if let Some(bases) = class.child_by_field_name("superclasses") {
        let mut cursor = bases.walk();
        for base in bases.named_children(&mut cursor) {
            let plain_builtin = base.kind() == "identifier" && {
                let name = &text[base.byte_range()];
                name == "object"
                    || (python::is_builtin(name) && name.ends_with("Error"))
                    || name == "Exception"
            };
            if !plain_builtin {
                return None;
            }
        }
    }
    let body = class.child_by_field_name("body")?;
    let mut init = None;
    let mut cursor = body.walk();
    for statement in body.named_children(&mut cursor) {
        let def = match statement.kind() {
            "function_definition" => statement,
            "decorated_definition" => statement.child_by_field_name("definition")?,
            _ => continue,
        };
        let Some(name) = def.child_by_field_name("name") else {
            continue;
        };
        match &text[name.byte_range()] {
            "__new__" | "__call__" => return None,
            "__init__" if statement.kind() == "decorated_definition" || init.is_some() => {
                return None;
            }
            "__init__" => init = Some(def),
            _ => {}
        }
    }
    function_signature(init?, text, true)
}

/// The names a Python module binds at its top level, without positions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleNames {
    pub names: BTreeSet<Box<str>>,
    /// Any name may be bound in a way no summary can see.
    pub open: bool,
}

/// The top-level names of a Python file (see the module doc).
#[salsa::tracked(returns(clone))]
pub fn module_names(db: &dyn Db, file: SourceFile) -> Arc<ModuleNames> {
    let names = file_names(db, file);
    let open = file_symbols(db, file)
        .imports
        .summaries
        .iter()
        .any(|i| i.wildcard);
    Arc::new(summarise(&names, open, &file.text(db)))
}

fn summarise(names: &FileNames, star_import: bool, text: &str) -> ModuleNames {
    let mut summary = ModuleNames {
        open: star_import,
        ..ModuleNames::default()
    };
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let name = names.name(id as u32);
        let scope = &names.scopes[occurrence.scope as usize];
        let top = occurrence.scope == 0
            || (!scope.is_class && scope.named_by.is_none() && {
                // A comprehension's `:=` binds in the scope around it.
                let start = u32::from(scope.range.start());
                !names.text_between(start, start + 6).starts_with("lambda")
            });
        match occurrence.role {
            Role::Definition(_) if top => {
                if occurrence.scope == 0 && name == "__getattr__" {
                    summary.open = true;
                }
                summary.names.insert(name.into());
            }
            Role::Global => {
                summary.names.insert(name.into());
            }
            Role::Read | Role::Call | Role::Member | Role::MemberCall
                if matches!(name, "globals" | "vars" | "exec" | "__dict__" | "modules") =>
            {
                summary.open = true;
            }
            _ => {}
        }
    }
    // Names `__all__` lists: the module promises them, however it binds them
    // (`re`'s flags come from a class decorator that writes the module's namespace).
    for (at, _) in text.match_indices("__all__") {
        let rest = &text[at + "__all__".len()..];
        let end = rest.find([']', ')']).unwrap_or(rest.len());
        for (i, quoted) in rest[..end].split(['"', '\'']).enumerate() {
            let word = quoted.trim();
            if i % 2 == 1
                && !word.is_empty()
                && word.chars().all(|c| c.is_alphanumeric() || c == '_')
            {
                summary.names.insert(word.into());
            }
        }
    }
    // `type X = …` (the locals query does not bind it).
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("type ") {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                summary.names.insert(name.into());
            }
        }
    }
    summary
}
