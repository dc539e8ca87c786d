//! Rename planning, as rust-analyzer's `ide-db` `rename`: what a rename renames
//! ([`subject`]), the edits it makes ([`plan`](mod@plan)), the bindings the new name would collide
//! with ([`conflicts`]), and the renamed texts re-analysed on a scratch database
//! ([`verify`](mod@verify)). `ide::rename` keeps the memoized query and turns these into its answer.

mod conflicts;
mod plan;
mod subject;
mod verify;

use serde::Serialize;

pub(crate) use plan::{Plan, PlannedEdit, RenamedFile, plan};
pub(crate) use subject::{Renamed, what_to_rename};
pub(crate) use verify::verify;

use crate::{
    db::SourceFile,
    lang::{Family, Language},
    syntax::TextRange,
};

/// What a rename may touch beyond the exact references, and what its check looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RenameOptions {
    /// Also edit members matched by name on receivers of unknown type.
    pub include_heuristic: bool,
    /// Also edit the old name where it stands as a word in strings and comments.
    pub include_text: bool,
    /// Look for the diagnostics the renamed texts would add (the default). Conflicts are
    /// looked for either way: they are what makes a rename a rename.
    pub check_diagnostics: bool,
}

impl Default for RenameOptions {
    fn default() -> RenameOptions {
        RenameOptions {
            include_heuristic: false,
            include_text: false,
            check_diagnostics: true,
        }
    }
}

/// Where an edit of a rename is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditOrigin {
    /// A name in code.
    Code,
    /// A string of a Python module's `__all__`, which exports the name.
    AllEntry,
    /// A word in a string literal.
    String,
    /// A word in a comment.
    Comment,
    /// An import of the old name from something else than what is renamed (`from _c import
    /// old`, bound in the same scope as the renamed definition): it keeps importing the old
    /// name and binds it as the new one (`old as new`).
    ImportAlias,
}

/// What to rename: the name at a position, or the definitions a written name names.
#[derive(Clone, Debug, PartialEq, Eq, Hash, salsa::SalsaValue)]
pub(crate) enum RenameSubject {
    At {
        file: SourceFile,
        offset: u32,
    },
    Named(String),
    /// `name` as bound in one file's module scope, or in the function called `scope` (its
    /// own scope or one nested in it): source mode, where a snippet has no positions to give.
    InScope {
        file: SourceFile,
        name: String,
        scope: Option<String>,
    },
}

/// Why a rename is not planned at all; `ide` gives each its stable code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    InvalidName(String),
    NotFound(String),
    NotRenameable(String),
}

/// A place where the new name would change what a name means. Without a file when the
/// check itself failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    pub file: Option<SourceFile>,
    pub range: TextRange,
    pub message: String,
}

/// Whether `new` can replace `old` as a name of `lang`.
pub(crate) fn check_new_name(lang: &Language, old: &str, new: &str) -> Result<(), Refusal> {
    if new == old {
        return Err(Refusal::InvalidName(format!("`{new}` is already the name")));
    }
    if !lang.is_identifier(new) {
        return Err(Refusal::InvalidName(format!(
            "`{new}` is not a {} identifier (it must match {})",
            lang.name,
            lang.identifier_pattern()
        )));
    }
    if lang.is_keyword(new) {
        return Err(Refusal::InvalidName(format!(
            "`{new}` is a {} keyword",
            lang.name
        )));
    }
    if lang.family == Family::Go {
        let exported = |name: &str| name.chars().next().is_some_and(char::is_uppercase);
        if new == "_" {
            return Err(Refusal::InvalidName(
                "`_` is Go's blank identifier: it binds nothing".into(),
            ));
        }
        if exported(old) != exported(new) {
            let (was, becomes) = match exported(old) {
                true => ("exported", "unexported"),
                false => ("unexported", "exported"),
            };
            return Err(Refusal::InvalidName(format!(
                "in Go a name's first letter decides whether other packages see it: `{old}` is \
                 {was}, `{new}` would be {becomes}; keep the case of the first letter"
            )));
        }
    }
    Ok(())
}

/// A Go file's package: its directory.
fn directory(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}
