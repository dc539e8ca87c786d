//! What a rename renames: the definitions of a written name, or what the name at a
//! position (or bound in a scope) refers to, or a local alias.

use super::{Refusal, RenameSubject};
use crate::{
    db::SourceFile,
    engine::search::targets_named,
    semantic::names::{
        BindingKind, FileNames, Role, ScopeId,
        resolve::{Resolver, Target},
    },
};

/// How the renamed occurrences are found.
pub(crate) enum Renamed {
    /// Every reference of these definitions (all named `old`).
    Targets(Vec<Target>),
    /// A local name bound in one scope of one file (an import's alias): its uses there.
    Local { file: SourceFile, scope: ScopeId },
}

impl Renamed {
    /// The definitions renamed; none for a local alias.
    pub(crate) fn targets(&self) -> &[Target] {
        match self {
            Renamed::Targets(targets) => targets,
            Renamed::Local { .. } => &[],
        }
    }
}

/// The name a rename renames, and how its occurrences are found.
pub(crate) fn what_to_rename(
    resolver: &mut Resolver,
    subject: &RenameSubject,
) -> Result<(String, Renamed), Refusal> {
    match subject {
        RenameSubject::Named(written) => {
            let old = written
                .rsplit(['.', ':'])
                .find(|p| !p.is_empty())
                .unwrap_or_default()
                .to_string();
            let targets: Vec<Target> = targets_named(resolver, written, None)
                .into_iter()
                .filter(|t| matches!(t, Target::Symbol { .. }))
                .collect();
            if targets.is_empty() {
                return Err(Refusal::NotFound(format!(
                    "no definition called `{written}` in the workspace"
                )));
            }
            Ok((old, Renamed::Targets(targets)))
        }
        RenameSubject::InScope { file, name, scope } => {
            let offset = binding_in_scope(&resolver.names(*file), name, scope.as_deref())?;
            what_to_rename(
                resolver,
                &RenameSubject::At {
                    file: *file,
                    offset,
                },
            )
        }
        RenameSubject::At { file, offset } => {
            let (file, offset) = (*file, *offset as usize);
            let names = resolver.names(file);
            let Some(occurrence) = names.at_offset(offset) else {
                return Err(Refusal::NotFound("no name at this position".into()));
            };
            let old = names.name(occurrence).to_string();
            let resolution = resolver.resolve(file, occurrence);
            let named: Vec<Target> = resolution
                .targets
                .iter()
                .filter(|t| matches!(t, Target::Symbol { name, .. } if **name == *old))
                .cloned()
                .collect();
            if !named.is_empty() {
                return Ok((old, Renamed::Targets(named)));
            }
            if let Some(scope) = resolver.binding_scope(file, occurrence)
                && let Some(&binding) = names.bindings(scope, &old).first()
                && names.occurrence(binding).role == Role::Definition(BindingKind::Import)
            {
                let range = names.occurrence(binding).range;
                let aliased = resolver
                    .import_statement(file, range, |import| {
                        import.alias.as_deref() == Some(old.as_str())
                    })
                    .is_some();
                if aliased {
                    return Ok((old, Renamed::Local { file, scope }));
                }
                if resolution.targets.is_empty() {
                    return Err(Refusal::NotRenameable(format!(
                        "`{old}` is imported under its own name from something sextant cannot \
                         see; renaming it here would change what is imported (give it an \
                         alias instead)"
                    )));
                }
            }
            if resolution.heuristic {
                return Err(Refusal::NotFound(format!(
                    "`{old}` is a member of something whose type is not known; rename it by \
                     its qualified name (`Class.{old}`)"
                )));
            }
            match resolution.targets.first() {
                Some(Target::Module(_)) => Err(Refusal::NotRenameable(format!(
                    "`{old}` names a module: renaming it means renaming its file"
                ))),
                Some(Target::External { module, .. }) => Err(Refusal::NotRenameable(format!(
                    "`{old}` is defined outside the workspace (in `{module}`); renaming it \
                     here would change what is imported (give it an alias instead)"
                ))),
                _ => Err(Refusal::NotFound(format!(
                    "`{old}` is not bound anywhere in the workspace"
                ))),
            }
        }
    }
}

/// Where `name` is first bound in the module scope (`scope` absent or `module`), or in the
/// function called `scope` or a scope nested in it.
fn binding_in_scope(names: &FileNames, name: &str, scope: Option<&str>) -> Result<u32, Refusal> {
    let within = match scope {
        None | Some("module") => None,
        Some(function) => {
            let found = (0..names.scopes.len() as ScopeId).find(|&id| {
                names.scopes[id as usize].named_by.is_some_and(|n| {
                    names.name(n) == function
                        && names.occurrence(n).role == Role::Definition(BindingKind::Function)
                })
            });
            match found {
                Some(id) => Some(names.scopes[id as usize].range),
                None => {
                    return Err(Refusal::NotFound(format!(
                        "no function called `{function}` in the source"
                    )));
                }
            }
        }
    };
    let binding = names.occurrences_named(name).find(|&o| {
        let occ = names.occurrence(o);
        let bound = matches!(occ.role, Role::Definition(_));
        match within {
            None => bound && occ.scope == 0,
            Some(range) => {
                bound
                    && occ.scope != 0
                    && range.contains_range(names.scopes[occ.scope as usize].range)
            }
        }
    });
    match binding {
        Some(o) => Ok(u32::from(names.occurrence(o).range.start())),
        None => Err(Refusal::NotFound(match scope {
            None | Some("module") => format!("`{name}` is not bound at module level"),
            Some(function) => format!("`{name}` is not bound in `{function}`"),
        })),
    }
}
