//! The rule table: every diagnostic code, the languages sextant checks it in and the
//! function that checks it. It is the one source of the code × language table:
//! [`file_diagnostics`](super::file_diagnostics) runs it, `Code::implemented` reads it, and
//! through that `sextant explain`, MCP `explain_diagnostic` and the generated docs
//! (`docs/diagnostics.md`, `docs/languages.md`). Nothing else may say which code runs in
//! which language (`tests/tidy.rs` looks for help texts that do).
//!
//! Invariant: a rule runs only in files of its languages, in table order; the order of a
//! code's findings is the order its function reports them (the caller sorts by position).

use std::sync::LazyLock;

use super::{
    CheckContext, Diagnostic, registry::ids, sx003_unresolved_import, sx004_unknown_import_name,
    sx005_undefined_name, sx006_unused_import, sx007_unused_variable, sx008_redefined_unused,
    sx009_duplicate_definition, sx010_wrong_argument_count, sx011_outside_context,
};
use crate::lang::{Family, registry};

/// When a rule's findings are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// First, in every file: a file with findings here gets no others.
    Syntax,
    /// In a file without syntax errors.
    Parsed,
    /// Apart from a file's check, on demand (import cycles, `sx012_import_cycle`).
    OnDemand,
    /// Last, from the other findings and the file's suppression comments.
    Suppression,
}

/// The languages a rule checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Languages {
    /// Every language of the registry, a new one too.
    Every,
    /// The languages of these families, listed in this order (the order of the docs).
    Families(&'static [Family]),
}

/// One code's rule.
pub struct Rule {
    pub id: &'static str,
    pub languages: Languages,
    pub stage: Stage,
    /// `None` for a code computed elsewhere (its stage says where).
    pub run: Option<fn(&CheckContext) -> Vec<Diagnostic>>,
}

const EVERY: Languages = Languages::Every;
const PYTHON: Languages = Languages::Families(&[Family::Python]);
const PYTHON_ECMA: Languages =
    Languages::Families(&[Family::Python, Family::JAVASCRIPT, Family::TYPESCRIPT]);
const PYTHON_ECMA_GO: Languages = Languages::Families(&[
    Family::Python,
    Family::JAVASCRIPT,
    Family::TYPESCRIPT,
    Family::Go,
]);
const STRUCTURAL: Languages = Languages::Families(&[
    Family::Python,
    Family::JAVASCRIPT,
    Family::TYPESCRIPT,
    Family::Go,
    Family::Rust,
]);

/// Every code, in id order.
pub static RULES: &[Rule] = &[
    Rule {
        id: ids::SYNTAX_ERROR,
        languages: EVERY,
        stage: Stage::Syntax,
        run: Some(syntax_errors),
    },
    Rule {
        id: ids::MISSING_TOKEN,
        languages: EVERY,
        stage: Stage::Syntax,
        run: Some(missing_tokens),
    },
    Rule {
        id: ids::UNRESOLVED_IMPORT,
        languages: STRUCTURAL,
        stage: Stage::Parsed,
        run: Some(sx003_unresolved_import::run),
    },
    Rule {
        id: ids::UNKNOWN_IMPORT_NAME,
        languages: PYTHON_ECMA,
        stage: Stage::Parsed,
        run: Some(sx004_unknown_import_name::run),
    },
    Rule {
        id: ids::UNDEFINED_NAME,
        languages: PYTHON_ECMA,
        stage: Stage::Parsed,
        run: Some(sx005_undefined_name::run),
    },
    Rule {
        id: ids::UNUSED_IMPORT,
        languages: PYTHON_ECMA_GO,
        stage: Stage::Parsed,
        run: Some(sx006_unused_import::run),
    },
    Rule {
        id: ids::UNUSED_VARIABLE,
        languages: PYTHON_ECMA_GO,
        stage: Stage::Parsed,
        run: Some(sx007_unused_variable::run),
    },
    Rule {
        id: ids::REDEFINED_UNUSED,
        languages: PYTHON,
        stage: Stage::Parsed,
        run: Some(sx008_redefined_unused::run),
    },
    Rule {
        id: ids::DUPLICATE_DEFINITION,
        languages: STRUCTURAL,
        stage: Stage::Parsed,
        run: Some(sx009_duplicate_definition::run),
    },
    Rule {
        id: ids::IMPOSSIBLE_CALL,
        languages: Languages::Families(&[Family::Python, Family::TYPESCRIPT, Family::Go]),
        stage: Stage::Parsed,
        run: Some(sx010_wrong_argument_count::run),
    },
    Rule {
        id: ids::OUTSIDE_CONTEXT,
        languages: STRUCTURAL,
        stage: Stage::Parsed,
        run: Some(sx011_outside_context::run),
    },
    Rule {
        id: ids::IMPORT_CYCLE,
        languages: PYTHON_ECMA_GO,
        stage: Stage::OnDemand,
        run: None,
    },
    Rule {
        id: ids::UNUSED_SUPPRESSION,
        languages: EVERY,
        stage: Stage::Suppression,
        run: None,
    },
];

impl Rule {
    /// Whether the rule checks files of the languages of `family`.
    pub fn runs_in(&self, family: Family) -> bool {
        match self.languages {
            Languages::Every => true,
            Languages::Families(families) => families.contains(&family),
        }
    }

    /// The registry ids of the languages the rule checks, `["*"]` for every language: its
    /// families in table order, each family's languages in registry order.
    pub fn language_ids(&self) -> &'static [&'static str] {
        static IDS: LazyLock<Vec<Vec<&'static str>>> = LazyLock::new(|| {
            RULES
                .iter()
                .map(|rule| match rule.languages {
                    Languages::Every => vec!["*"],
                    Languages::Families(families) => families
                        .iter()
                        .flat_map(|&family| {
                            registry()
                                .all()
                                .filter(move |l| l.family == family)
                                .map(|l| l.id.as_str())
                        })
                        .collect(),
                })
                .collect()
        });
        RULES
            .iter()
            .position(|rule| rule.id == self.id)
            .map_or(&[], |index| IDS[index].as_slice())
    }
}

/// The rule of code `id`.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The findings of every rule of `stage` that runs in the context's file, in table order.
pub(super) fn run(ctx: &CheckContext, stage: Stage) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for rule in RULES
        .iter()
        .filter(|r| r.stage == stage && r.runs_in(ctx.lang))
    {
        if let Some(run) = rule.run {
            found.extend(run(ctx));
        }
    }
    found
}

fn syntax_errors(ctx: &CheckContext) -> Vec<Diagnostic> {
    syntax_findings(ctx, true)
}

fn missing_tokens(ctx: &CheckContext) -> Vec<Diagnostic> {
    syntax_findings(ctx, false)
}

/// The parser's errors: a token it assumed (`missing …`) is SX002, anything else SX001.
fn syntax_findings(ctx: &CheckContext, unexpected: bool) -> Vec<Diagnostic> {
    crate::semantic::syntax_errors(ctx.db, ctx.file)
        .iter()
        .filter(|e| e.message.starts_with("missing ") != unexpected)
        .map(|e| {
            let id = if unexpected {
                ids::SYNTAX_ERROR
            } else {
                ids::MISSING_TOKEN
            };
            Diagnostic::new(id, e.range, e.message.clone())
        })
        .collect()
}
