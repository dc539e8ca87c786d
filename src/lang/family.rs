//! [`Family`]: which Rust code a language gets, for what its queries cannot say (where an
//! import leads, name rules, the checks).
//!
//! Invariant: the families are a closed set. Each registry entry names one (`family` in
//! `grammars/languages.toml`), an unknown name is refused when the registry loads, and code
//! that behaves per language `match`es on the family without a wildcard arm, so a new
//! family is a compile error everywhere it needs work.

use serde::Deserialize;

/// A language family. TypeScript and TSX are one family (`Ecma { typescript: true }`); they
/// differ in grammar only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub enum Family {
    Python,
    /// JavaScript, or TypeScript (`typescript: true`, TSX included): one import resolution
    /// and one set of name rules; some checks tell them apart.
    Ecma {
        typescript: bool,
    },
    Go,
    Rust,
}

impl Family {
    pub const JAVASCRIPT: Family = Family::Ecma { typescript: false };
    pub const TYPESCRIPT: Family = Family::Ecma { typescript: true };

    /// The family's name in the registry (`family = "…"`).
    pub fn registry_name(self) -> &'static str {
        match self {
            Family::Python => "python",
            Family::Ecma { typescript: false } => "javascript",
            Family::Ecma { typescript: true } => "typescript",
            Family::Go => "go",
            Family::Rust => "rust",
        }
    }

    /// How the family's imports name other files, as `sextant languages` reports it
    /// (`semantic/imports/` holds one module per style).
    pub fn import_style(self) -> &'static str {
        match self {
            Family::Python => "python-module",
            Family::Ecma { .. } => "ecmascript",
            Family::Go => "go-package",
            Family::Rust => "rust-module-path",
        }
    }
}

impl std::str::FromStr for Family {
    type Err = String;

    fn from_str(name: &str) -> Result<Family, String> {
        Ok(match name {
            "python" => Family::Python,
            "javascript" => Family::JAVASCRIPT,
            "typescript" => Family::TYPESCRIPT,
            "go" => Family::Go,
            "rust" => Family::Rust,
            _ => {
                return Err(format!(
                    "unknown language family {name:?}: one of \"python\", \"javascript\", \
                     \"typescript\", \"go\", \"rust\" (a new family is new code: see \
                     \"Adding a language\" in docs/languages.md)"
                ));
            }
        })
    }
}

impl TryFrom<String> for Family {
    type Error = String;

    fn try_from(name: String) -> Result<Family, String> {
        name.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::Family;

    #[test]
    fn registry_names_read_back() {
        for family in [
            Family::Python,
            Family::JAVASCRIPT,
            Family::TYPESCRIPT,
            Family::Go,
            Family::Rust,
        ] {
            assert_eq!(family.registry_name().parse(), Ok(family));
        }
        let refused = "cobol".parse::<Family>().unwrap_err();
        assert!(
            refused.contains("unknown language family \"cobol\""),
            "{refused}"
        );
    }
}
