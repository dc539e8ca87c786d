//! What a navigation or rename request starts from: a name, or a position in a file. One
//! parser for every front end: the CLI's `FILE:LINE:COLUMN | NAME` argument and the MCP
//! tools' `query` or `path`+`line`+`column` fields.

use std::fmt;

/// A name (`join`, `posixpath.join`, `Class.method`, `T::f`) or a 1-based position (line,
/// column in characters) in a file named as the user gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Name(String),
    Position {
        path: String,
        line: u32,
        column: u32,
    },
}

/// A target that is neither a name nor a position (`app.py:5`, `app.py:x:1`,
/// `app.py:0:1`). Its code is `INVALID_TARGET`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetError {
    pub message: String,
}

impl super::Failure for TargetError {
    fn code(&self) -> super::ErrorCode {
        super::ErrorCode::InvalidTarget
    }
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TargetError {}

impl Target {
    /// `FILE:LINE:COLUMN` (both numbers from 1), or a NAME. A target with a single colon
    /// anywhere (Rust's `::` is part of a name) that is not `FILE:LINE:COLUMN` is refused,
    /// rather than searched for as a name no code can have.
    pub fn parse(target: &str) -> Result<Target, TargetError> {
        let invalid = |why: &str| TargetError {
            message: format!("{target}: {why}"),
        };
        let mut parts = target.rsplitn(3, ':');
        if let (Some(column), Some(line), Some(path)) = (parts.next(), parts.next(), parts.next())
            && let (Ok(line), Ok(column)) = (line.parse::<u32>(), column.parse::<u32>())
        {
            if line == 0 || column == 0 {
                return Err(invalid("lines and columns count from 1"));
            }
            if path.is_empty() {
                return Err(invalid("expected FILE:LINE:COLUMN or a NAME (no FILE)"));
            }
            return Ok(Target::Position {
                path: path.to_string(),
                line,
                column,
            });
        }
        let name = target.trim();
        if name.is_empty() {
            return Err(invalid("expected FILE:LINE:COLUMN or a NAME"));
        }
        if name.replace("::", "").contains(':') {
            return Err(invalid(
                "expected FILE:LINE:COLUMN (line and column numbers from 1) or a NAME",
            ));
        }
        Ok(Target::Name(name.to_string()))
    }

    /// A target given as separate fields: `query` (a name), or `path`, `line` and `column`
    /// (1-based); exactly one of the two.
    pub fn from_fields(
        query: Option<&str>,
        path: Option<&str>,
        line: Option<u32>,
        column: Option<u32>,
    ) -> Result<Target, TargetError> {
        Target::from_named_fields("query", query, path, line, column)
    }

    /// [`Target::from_fields`] for a tool whose name argument is called `field`.
    pub fn from_named_fields(
        field: &str,
        query: Option<&str>,
        path: Option<&str>,
        line: Option<u32>,
        column: Option<u32>,
    ) -> Result<Target, TargetError> {
        let usage = || TargetError {
            message: format!(
                "give either `{field}` (a name), or `path`, `line` and `column` (1-based)"
            ),
        };
        match (query, path, line, column) {
            (Some(query), None, None, None) if !query.trim().is_empty() => {
                match Target::parse(query) {
                    Ok(Target::Name(name)) => Ok(Target::Name(name)),
                    // A position, whole or not: the fields say it.
                    _ => Err(TargetError {
                        message: format!(
                            "{query}: `{field}` is a name; give a position as `path`, `line` \
                             and `column`"
                        ),
                    }),
                }
            }
            (None, Some(path), Some(line), Some(column)) if line >= 1 && column >= 1 => {
                Ok(Target::Position {
                    path: path.to_string(),
                    line,
                    column,
                })
            }
            _ => Err(usage()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(path: &str, line: u32, column: u32) -> Target {
        Target::Position {
            path: path.into(),
            line,
            column,
        }
    }

    #[test]
    fn names_and_positions() {
        assert_eq!(Target::parse("app.py:5:3"), Ok(position("app.py", 5, 3)));
        assert_eq!(Target::parse("a:b.py:5:3"), Ok(position("a:b.py", 5, 3)));
        for name in [
            "join",
            "posixpath.join",
            "Class.method",
            "T::f",
            "self::a::b",
        ] {
            assert_eq!(Target::parse(name), Ok(Target::Name(name.into())), "{name}");
        }
        for bad in [
            "app.py:5",
            "app.py:x:1",
            "app.py:5:x",
            "app.py:0:1",
            "app.py:1:0",
            "app.py:",
            ":1:1",
            "",
            " ",
        ] {
            let error = Target::parse(bad).unwrap_err();
            assert_eq!(crate::ide::Failure::code(&error).as_str(), "INVALID_TARGET");
            assert!(error.message.starts_with(bad), "{bad}: {error}");
        }
    }

    #[test]
    fn fields() {
        assert_eq!(
            Target::from_fields(Some(" os.path.join "), None, None, None),
            Ok(Target::Name("os.path.join".into()))
        );
        assert_eq!(
            Target::from_fields(None, Some("a.py"), Some(1), Some(2)),
            Ok(position("a.py", 1, 2))
        );
        assert!(Target::from_fields(None, Some("a.py"), Some(0), Some(2)).is_err());
        assert!(Target::from_fields(Some("a"), Some("a.py"), Some(1), Some(2)).is_err());
        assert!(Target::from_fields(Some("a.py:1:2"), None, None, None).is_err());
        assert!(Target::from_fields(Some("a.py:1"), None, None, None).is_err());
    }
}
