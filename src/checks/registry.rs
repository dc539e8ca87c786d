//! The registry of diagnostic codes, from `codes.toml` (embedded at build time): each code's
//! stable id, name, category, default severity, the languages it applies to, and its
//! explanation with a failing example and its fix. The languages a code is checked in are
//! not data here: they are its rule's (`rules.rs`), so the table cannot say one thing and
//! the checks do another.
//!
//! Invariant: the registry is data; ids are unique and never change meaning. A check emits
//! only codes listed here (`code` panics on an unknown id, which a test of every check's
//! codes would catch).

use std::{collections::BTreeMap, sync::LazyLock};

use serde::{Deserialize, Serialize};

/// How serious a diagnostic is, most serious first.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    pub const ALL: [Severity; 4] = [
        Severity::Error,
        Severity::Warning,
        Severity::Information,
        Severity::Hint,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }

    pub fn from_name(name: &str) -> Option<Severity> {
        Severity::ALL.into_iter().find(|s| s.as_str() == name)
    }
}

/// One diagnostic code and its explanation.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Code {
    /// `SX` and three digits.
    pub id: String,
    /// Short, kebab-case (`undefined-name`).
    pub name: String,
    pub title: String,
    pub category: String,
    pub severity: Severity,
    /// Off unless selected by id or name.
    #[serde(default = "enabled_by_default")]
    pub enabled: bool,
    /// Language ids of the registry, or `*` for all.
    pub languages: Vec<String>,
    /// The pyflakes (and ruff) rule it corresponds to.
    #[serde(default)]
    pub pyflakes: Option<String>,
    /// Marks code that can be removed (the LSP's `Unnecessary` tag).
    #[serde(default)]
    pub unnecessary: bool,
    pub description: String,
    pub example: String,
    pub fix: String,
    /// The path the example and its fix are checked as, by its extension in its language;
    /// a line `# path` (then end, `:` or `,`) in either text starts another file.
    pub example_file: String,
    /// Other files, path → text, the example and its fix are checked beside.
    #[serde(default)]
    pub example_context: BTreeMap<String, String>,
    pub help: String,
}

fn enabled_by_default() -> bool {
    true
}

impl Code {
    /// Whether the code applies to files of language `lang` (a registry id).
    pub fn applies_to(&self, lang: &str) -> bool {
        self.languages.iter().any(|l| l == "*" || l == lang)
    }

    /// The languages sextant checks it in today (`*`: all), its rule's; the rest of
    /// `languages` are planned.
    pub fn implemented(&self) -> &'static [&'static str] {
        super::rules::rule(&self.id).map_or(&[], |rule| rule.language_ids())
    }

    /// Whether sextant checks it in files of `lang` today.
    pub fn is_implemented_for(&self, lang: &crate::lang::Language) -> bool {
        super::rules::rule(&self.id).is_some_and(|rule| rule.runs_in(lang.family))
    }

    /// Whether sextant checks it in any language today.
    pub fn is_implemented(&self) -> bool {
        !self.implemented().is_empty()
    }
}

#[derive(Deserialize)]
struct File {
    code: Vec<Code>,
}

static CODES: LazyLock<Vec<Code>> = LazyLock::new(|| {
    toml::from_str::<File>(include_str!("codes.toml"))
        .expect("the embedded codes.toml is valid")
        .code
});

/// Every code, by id.
pub fn codes() -> &'static [Code] {
    &CODES
}

/// The code with this id or name (case-insensitive).
pub fn find(id_or_name: &str) -> Option<&'static Code> {
    CODES
        .iter()
        .find(|c| c.id.eq_ignore_ascii_case(id_or_name) || c.name.eq_ignore_ascii_case(id_or_name))
}

/// The code with this id; the checks name only registered codes.
pub(crate) fn code(id: &str) -> &'static Code {
    find(id).unwrap_or_else(|| panic!("{id} is not in codes.toml"))
}

/// The ids of the codes the checks emit, by what they report.
pub mod ids {
    pub const SYNTAX_ERROR: &str = "SX001";
    pub const MISSING_TOKEN: &str = "SX002";
    pub const UNRESOLVED_IMPORT: &str = "SX003";
    pub const UNKNOWN_IMPORT_NAME: &str = "SX004";
    pub const UNDEFINED_NAME: &str = "SX005";
    pub const UNUSED_IMPORT: &str = "SX006";
    pub const UNUSED_VARIABLE: &str = "SX007";
    pub const REDEFINED_UNUSED: &str = "SX008";
    pub const DUPLICATE_DEFINITION: &str = "SX009";
    pub const IMPOSSIBLE_CALL: &str = "SX010";
    pub const OUTSIDE_CONTEXT: &str = "SX011";
    pub const IMPORT_CYCLE: &str = "SX012";
    pub const UNUSED_SUPPRESSION: &str = "SX013";
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn every_code_is_complete_and_ids_are_unique() {
        let languages: Vec<&str> = crate::lang::registry().ids();
        let mut seen_ids = HashSet::new();
        let mut seen_names = HashSet::new();
        for (i, code) in codes().iter().enumerate() {
            assert_eq!(code.id, format!("SX{:03}", i + 1), "ids run in order");
            assert!(seen_ids.insert(code.id.as_str()), "{}: id twice", code.id);
            assert!(
                seen_names.insert(code.name.as_str()),
                "{}: name twice",
                code.id
            );
            assert!(
                code.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}: kebab-case name",
                code.id
            );
            for (field, text) in [
                ("title", &code.title),
                ("category", &code.category),
                ("description", &code.description),
                ("example", &code.example),
                ("fix", &code.fix),
                ("help", &code.help),
            ] {
                assert!(!text.trim().is_empty(), "{}: empty {field}", code.id);
            }
            assert_ne!(code.example.trim(), code.fix.trim(), "{}", code.id);
            assert!(!code.languages.is_empty(), "{}", code.id);
            for lang in &code.languages {
                assert!(
                    lang == "*" || languages.contains(&lang.as_str()),
                    "{}: unknown language {lang}",
                    code.id
                );
            }
            for lang in code.implemented() {
                assert!(
                    code.languages.iter().any(|l| l == lang),
                    "{}: implemented for {lang}, which it does not apply to",
                    code.id
                );
            }
        }
        for id in [
            ids::SYNTAX_ERROR,
            ids::MISSING_TOKEN,
            ids::UNRESOLVED_IMPORT,
            ids::UNKNOWN_IMPORT_NAME,
            ids::UNDEFINED_NAME,
            ids::UNUSED_IMPORT,
            ids::UNUSED_VARIABLE,
            ids::REDEFINED_UNUSED,
            ids::DUPLICATE_DEFINITION,
            ids::IMPOSSIBLE_CALL,
            ids::OUTSIDE_CONTEXT,
            ids::IMPORT_CYCLE,
            ids::UNUSED_SUPPRESSION,
        ] {
            assert!(code(id).is_implemented(), "{id} is emitted, so implemented");
        }
        assert!(
            codes().iter().any(|c| !c.enabled),
            "import cycles are off by default"
        );
        assert!(!find("import-cycle").unwrap().enabled);
    }

    #[test]
    fn every_code_has_one_rule_and_every_rule_a_code() {
        let code_ids: Vec<&str> = codes().iter().map(|c| c.id.as_str()).collect();
        let rule_ids: Vec<&str> = super::super::rules::RULES.iter().map(|r| r.id).collect();
        assert_eq!(
            code_ids, rule_ids,
            "the rule table lists every code, in id order"
        );
    }

    #[test]
    fn codes_are_found_by_id_or_name_in_any_case() {
        assert_eq!(
            find("sx005").map(|c| c.name.as_str()),
            Some("undefined-name")
        );
        assert_eq!(find("Unused-Import").map(|c| c.id.as_str()), Some("SX006"));
        assert_eq!(find("SX999"), None);
    }
}
