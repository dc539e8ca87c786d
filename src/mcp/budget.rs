//! The token budget of the tools that read code for a model.
//!
//! Invariant: a call's `max_tokens` can only lower the server's cap
//! (`--max-answer-tokens`), never raise it; every such answer's text is counted exactly,
//! in the encoding the call names (`o200k_base` by default).

use super::{ErrorCode, Limits, ToolError};
use crate::ide::{Budget, Encoding};

/// The budget of a call that asks for `max_tokens` in `encoding` (each tool's own
/// arguments of those names, not a flattened struct,
/// which serde cannot combine with refusing unknown fields).
pub fn budget(
    limits: &Limits,
    max_tokens: Option<u32>,
    encoding: Option<Encoding>,
) -> Result<Budget, ToolError> {
    let cap = limits.max_answer_tokens;
    let max_tokens = match max_tokens {
        Some(0) => {
            return Err(ToolError::new(
                ErrorCode::InvalidArgument,
                "max_tokens must be at least 1",
            ));
        }
        Some(n) => (n as usize).min(cap),
        None => cap,
    };
    Ok(Budget {
        encoding: encoding.unwrap_or_default(),
        max_tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_lowers_the_cap_but_never_raises_it() {
        let limits = Limits {
            max_answer_tokens: 1000,
            ..Limits::default()
        };
        let budget = |max_tokens| budget(&limits, max_tokens, None);
        assert_eq!(budget(None).unwrap().max_tokens, 1000);
        assert_eq!(budget(Some(10)).unwrap().max_tokens, 10);
        assert_eq!(budget(Some(5000)).unwrap().max_tokens, 1000);
        assert_eq!(
            budget(Some(0)).unwrap_err().code,
            ErrorCode::InvalidArgument
        );
        assert_eq!(budget(None).unwrap().encoding, Encoding::O200kBase);
    }
}
