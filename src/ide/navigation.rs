//! `definition` and `references`: what a name refers to, and every use of it.
//!
//! Both start from a position (the name under a cursor) or from a name as people write
//! it (`join`, `posixpath.join`, `Class.method`). Every answer says whether it is `exact`
//! (resolved through scopes and imports) or `heuristic` (a member matched by name on a
//! receiver of unknown type); references are searched only in the files the identifier
//! index says can mention the name (`engine::search`). This module turns what the engine
//! finds into answers.

use serde::Serialize;

use super::Span;
pub use crate::engine::search::Certainty;
use crate::{
    db::{Db, SourceFile, Workspace},
    engine::{
        definitions::{self, DefinitionSite, definitions_of},
        search::{NameScope, module_name, search_uses, targets_named, targets_named_in},
    },
    semantic::{
        self,
        names::{
            BindingKind, FileNames, OccurrenceId, Role, file_names, go,
            resolve::{Resolver, Target},
        },
        symbols::file_symbols,
    },
};

/// A place a name is defined.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Definition {
    pub name: String,
    /// `function`, `class`, `type`, `type_parameter`, `parameter`, `variable`, `import`,
    /// `attribute`, `method` (a Go method), `module`, or for something outside the
    /// workspace `external`.
    pub kind: String,
    /// Workspace-relative; absent for something outside the workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The defining name (a module: its first character).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Outside the workspace: the module it comes from (`builtins` for builtins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    pub certainty: Certainty,
}

/// How a reference uses the name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceRole {
    Definition,
    Import,
    Call,
    Read,
    Write,
    Type,
}

/// One use of the name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Reference {
    pub path: String,
    pub span: Span,
    pub role: ReferenceRole,
    pub certainty: Certainty,
    /// The source line it is on, trimmed.
    pub line_text: String,
}

#[derive(Clone, Debug, Default)]
pub struct ReferenceQuery {
    /// Only `exact` references.
    pub exact_only: bool,
    /// Leave out the definitions themselves.
    pub exclude_definitions: bool,
    /// Only files whose workspace-relative path starts with this.
    pub path_prefix: Option<String>,
    pub limit: usize,
    /// For a method: also the references of the methods it overrides and of those that
    /// override it, at every level.
    pub include_family: bool,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct References {
    /// What was searched for.
    pub definitions: Vec<Definition>,
    pub references: Vec<Reference>,
    /// References found in all; more than `references.len()` when truncated.
    pub total: usize,
    pub truncated: bool,
    /// Files whose names were resolved (those that can mention the name).
    pub files_searched: usize,
}

pub(crate) fn definition(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<Definition> {
    definitions::definitions_at(db, workspace, file, offset)
        .iter()
        .map(|site| site_definition(db, site))
        .collect()
}

/// The definitions of the name at `offset`, each with the file it is in (none outside the
/// workspace), for operations that go on from there (hover, the call hierarchy).
pub(crate) fn definitions_at(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Vec<(Option<SourceFile>, Definition)> {
    definitions::definitions_at(db, workspace, file, offset)
        .iter()
        .map(|site| (site.file(), site_definition(db, site)))
        .collect()
}

pub(crate) fn references(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
    query: &ReferenceQuery,
) -> References {
    let mut resolver = Resolver::new(db, workspace);
    let names = resolver.names(file);
    let targets = match names.at_offset(offset) {
        Some(occurrence) => resolver.resolve(file, occurrence).targets,
        None => Vec::new(),
    };
    search(&mut resolver, targets, query)
}

/// References of the definitions called `name`: `join`, or qualified by a module or
/// class: `posixpath.join`, `Class.method`, `pkg.mod.Class.method`.
pub(crate) fn references_by_name(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    query: &ReferenceQuery,
) -> References {
    let mut resolver = Resolver::new(db, workspace);
    // The prefix limits where references are listed, not where the name is defined.
    let targets = targets_named(&mut resolver, name, None);
    search(&mut resolver, targets, query)
}

/// Definitions of the symbols called `name` (qualified or not), as `references_by_name`
/// finds them.
pub(crate) fn definition_by_name(
    db: &dyn Db,
    workspace: Workspace,
    name: &str,
    path_prefix: Option<&str>,
    scope: NameScope,
) -> Vec<Definition> {
    let mut resolver = Resolver::new(db, workspace);
    let targets = targets_named_in(&mut resolver, name, path_prefix, scope);
    let mut found = Vec::new();
    for target in targets {
        for (file, site) in resolver.definitions(&target) {
            found.push(binding_definition(db, &resolver.names(file), file, site));
        }
    }
    found
}

fn search(resolver: &mut Resolver, mut targets: Vec<Target>, query: &ReferenceQuery) -> References {
    let db = resolver.db();
    if query.include_family {
        let family = super::implementations::method_family(resolver, &targets);
        targets.extend(family);
    }
    let mut definitions = Vec::new();
    let mut found: Vec<Reference> = Vec::new();
    let limit = query.limit.max(1);
    for target in &targets {
        for site in definitions_of(resolver, target) {
            definitions.push(site_definition(db, &site));
        }
    }
    // The prefix bounds the whole answer: definitions elsewhere (or outside the
    // workspace) are left out with the references there.
    if let Some(prefix) = &query.path_prefix {
        definitions.retain(|d: &Definition| {
            d.path
                .as_ref()
                .is_some_and(|p| p.starts_with(prefix.as_str()))
        });
    }
    // Each reference is read while its file's names are at hand; which come within the
    // limit is known only once all are sorted.
    let (uses, files_searched) = search_uses(
        resolver,
        &targets,
        query.path_prefix.as_deref(),
        |file, names, hits| {
            let is_go = go::is_go(db, file);
            let index = semantic::line_index(db, file);
            let mut kept = Vec::new();
            for &(occurrence, certainty) in hits {
                let role = reference_role(names, occurrence, is_go);
                if (query.exact_only && certainty != Certainty::Exact)
                    || (query.exclude_definitions && role == ReferenceRole::Definition)
                {
                    continue;
                }
                let span = Span::new(&index, names.occurrence(occurrence).range);
                let reference = Reference {
                    path: file.path(db).clone(),
                    line_text: line_text(names.text(), span.byte_start as usize),
                    span,
                    role,
                    certainty,
                };
                kept.push((occurrence, reference));
            }
            kept
        },
    );
    let total = uses.len();
    found.extend(
        uses.into_iter()
            .take(limit)
            .map(|(_, _, reference)| reference),
    );
    References {
        truncated: total > found.len(),
        definitions,
        references: found,
        total,
        files_searched,
    }
}

fn reference_role(names: &FileNames, occurrence: OccurrenceId, is_go: bool) -> ReferenceRole {
    match names.occurrence(occurrence).role {
        Role::Definition(BindingKind::Import) | Role::Imported | Role::ModulePath => {
            ReferenceRole::Import
        }
        // Go's member definitions are method declarations, bound in no scope: a package
        // function of the same name is another symbol, not an earlier assignment.
        Role::MemberDefinition if is_go => ReferenceRole::Definition,
        Role::Definition(BindingKind::Variable) | Role::MemberDefinition => {
            // The first assignment defines a variable; later ones, and assignments to a
            // name declared `global` or `nonlocal`, write it.
            let name = names.name(occurrence);
            let scope = names.occurrence(occurrence).scope;
            if names.declaration(scope, name).is_some() {
                return ReferenceRole::Write;
            }
            // A type of the same name (`interface X` before `const X`) assigns nothing.
            let first_value = names
                .bindings(scope, name)
                .iter()
                .find(|&&b| !names.is_type_only(b));
            match first_value {
                Some(&first) if first != occurrence => ReferenceRole::Write,
                _ => ReferenceRole::Definition,
            }
        }
        Role::Definition(_) => ReferenceRole::Definition,
        Role::Call | Role::MemberCall => ReferenceRole::Call,
        Role::Type | Role::MemberType | Role::DocType => ReferenceRole::Type,
        Role::Write => ReferenceRole::Write,
        Role::Read
        | Role::DocReference
        | Role::Member
        | Role::Global
        | Role::Nonlocal
        | Role::SelfReference
        | Role::SuperReference
        | Role::KeywordArgument => ReferenceRole::Read,
    }
}

pub(crate) fn line_text(text: &str, offset: usize) -> String {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = text[start..end].trim();
    // An agent pays for every character: a minified line is cut.
    match line.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_string(),
    }
}

pub(crate) fn binding_definition(
    db: &dyn Db,
    names: &FileNames,
    file: SourceFile,
    site: OccurrenceId,
) -> Definition {
    let occurrence = names.occurrence(site);
    let kind = match occurrence.role {
        Role::Definition(BindingKind::Function) => "function",
        Role::Definition(BindingKind::Class) => "class",
        Role::Definition(BindingKind::Parameter) => "parameter",
        Role::Definition(BindingKind::Import) => "import",
        Role::Definition(BindingKind::Type) => "type",
        Role::Definition(BindingKind::TypeParameter) => "type_parameter",
        Role::MemberDefinition if go::is_go(db, file) => "method",
        Role::Definition(BindingKind::Module) => "module",
        Role::MemberDefinition => "attribute",
        _ => "variable",
    };
    let index = semantic::line_index(db, file);
    Definition {
        name: names.name(site).to_string(),
        kind: kind.to_string(),
        path: Some(file.path(db).clone()),
        span: Some(Span::new(&index, occurrence.range)),
        module: None,
        certainty: Certainty::Exact,
    }
}

/// A definition site as an answer.
pub(crate) fn site_definition(db: &dyn Db, site: &DefinitionSite) -> Definition {
    match site {
        DefinitionSite::Binding { file, occurrence } => {
            binding_definition(db, &file_names(db, *file), *file, *occurrence)
        }
        DefinitionSite::Module(file) => {
            let index = semantic::line_index(db, *file);
            Definition {
                name: module_name(db, *file),
                kind: "module".into(),
                path: Some(file.path(db).clone()),
                span: Some(Span::new(&index, crate::syntax::TextRange::empty(0.into()))),
                module: None,
                certainty: Certainty::Exact,
            }
        }
        DefinitionSite::External { module, name } => Definition {
            name: name.clone().unwrap_or_else(|| module.clone()),
            kind: "external".into(),
            path: None,
            span: None,
            module: Some(module.clone()),
            certainty: Certainty::Exact,
        },
        DefinitionSite::Member { file, symbol } => {
            let symbols = file_symbols(db, *file);
            let (summary, position) = (&symbols.summaries[*symbol], &symbols.positions[*symbol]);
            Definition {
                name: summary.name.to_string(),
                kind: summary.kind.as_str().to_string(),
                path: Some(file.path(db).clone()),
                span: Some(Span::from_start(
                    &file.text(db),
                    position.name_range,
                    position.name_start,
                )),
                module: None,
                certainty: Certainty::Heuristic,
            }
        }
    }
}
