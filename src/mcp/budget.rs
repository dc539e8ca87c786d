//! The token budget of the tools that read code for a model, and the budgets that the reads
//! of one conversation share (a run).
//!
//! Invariant: a call's `max_tokens` can only lower the server's cap
//! (`--max-answer-tokens`), never raise it, except `pack_context`'s ([`pack_budget`]), up to
//! [`MAX_PACK_TOKENS`], whose pack then comes in parts that each fit the cap (answered as
//! resources, `super::resources`); every such answer's text is counted exactly,
//! in the encoding the call names (`o200k_base` by default). A run never spends more than
//! its limit, even with calls in parallel: a call reserves its budget from the run before
//! it reads and gives back what its answer did not use.

use std::{collections::VecDeque, sync::Mutex};

use schemars::JsonSchema;
use serde::Serialize;

use super::{ErrorCode, Limits, ToolError};
use crate::ide::{Budget, Encoding};

/// Runs remembered at once; a new one forgets the oldest.
const MAX_RUNS: usize = 1024;
/// The longest run id, in bytes.
const MAX_RUN_ID: usize = 128;
/// A run's limit when its first call names none.
pub const DEFAULT_RUN_TOKENS: usize = 100_000;

/// What a run has spent and has left, after a call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RunState {
    pub id: String,
    pub max_tokens: usize,
    pub used: usize,
    pub remaining: usize,
}

#[derive(Debug)]
struct Run {
    id: String,
    max_tokens: usize,
    /// Spent by answers, plus reserved by calls still running.
    committed: usize,
}

/// The runs of a server, oldest first.
#[derive(Debug, Default)]
pub struct RunBudgets {
    runs: Mutex<VecDeque<Run>>,
}

/// Tokens reserved from a run for one call; [`RunBudgets::settle`] gives back the rest.
#[derive(Debug)]
pub struct Reservation {
    id: String,
    reserved: usize,
}

impl RunBudgets {
    /// Reserves up to `wanted` tokens from run `id` (started with `max_tokens`, or
    /// [`DEFAULT_RUN_TOKENS`], when new). Refused when the run has nothing left
    /// (`BUDGET_EXHAUSTED`), or when `max_tokens` differs from the run's.
    pub fn reserve(
        &self,
        id: &str,
        max_tokens: Option<u32>,
        wanted: usize,
    ) -> Result<Reservation, ToolError> {
        if id.is_empty() || id.len() > MAX_RUN_ID {
            return Err(ToolError::new(
                ErrorCode::InvalidArgument,
                format!("run_id must be 1 to {MAX_RUN_ID} bytes"),
            ));
        }
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let index = match runs.iter().position(|r| r.id == id) {
            Some(index) => index,
            None => {
                if runs.len() == MAX_RUNS {
                    runs.pop_front();
                }
                runs.push_back(Run {
                    id: id.to_string(),
                    max_tokens: max_tokens.map_or(DEFAULT_RUN_TOKENS, |n| n as usize),
                    committed: 0,
                });
                runs.len() - 1
            }
        };
        let run = &mut runs[index];
        if max_tokens.is_some_and(|n| n as usize != run.max_tokens) {
            return Err(ToolError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "run {id:?} was started with run_max_tokens {}; it cannot change",
                    run.max_tokens
                ),
            ));
        }
        let left = run.max_tokens.saturating_sub(run.committed);
        if left == 0 {
            return Err(ToolError::new(
                ErrorCode::BudgetExhausted,
                format!("run {id:?} has spent its {} tokens", run.max_tokens),
            ));
        }
        let reserved = wanted.min(left);
        run.committed += reserved;
        Ok(Reservation {
            id: id.to_string(),
            reserved,
        })
    }

    /// Keeps `used` of a reservation and gives back the rest; the run's state after.
    pub fn settle(&self, reservation: Reservation, used: usize) -> RunState {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        let unused = reservation.reserved.saturating_sub(used);
        match runs.iter_mut().find(|r| r.id == reservation.id) {
            Some(run) => {
                run.committed = run.committed.saturating_sub(unused);
                RunState {
                    id: run.id.clone(),
                    max_tokens: run.max_tokens,
                    used: run.committed,
                    remaining: run.max_tokens.saturating_sub(run.committed),
                }
            }
            // Forgotten meanwhile (a thousand newer runs): nothing left to account.
            None => RunState {
                id: reservation.id,
                max_tokens: 0,
                used,
                remaining: 0,
            },
        }
    }
}

impl Reservation {
    pub fn tokens(&self) -> usize {
        self.reserved
    }
}

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

/// The largest budget of one pack; over the server's cap the pack is offered in parts.
pub const MAX_PACK_TOKENS: u32 = 1_000_000;

/// The budget of a pack: as [`budget`], but a `max_tokens` over the server's cap (up to
/// [`MAX_PACK_TOKENS`]) stands, the pack then too large for one answer.
pub fn pack_budget(
    limits: &Limits,
    max_tokens: Option<u32>,
    encoding: Option<Encoding>,
) -> Result<Budget, ToolError> {
    match max_tokens {
        Some(n) if n as usize > limits.max_answer_tokens => {
            if n > MAX_PACK_TOKENS {
                return Err(ToolError::new(
                    ErrorCode::InvalidArgument,
                    format!("max_tokens of a pack is at most {MAX_PACK_TOKENS}"),
                ));
            }
            Ok(Budget {
                encoding: encoding.unwrap_or_default(),
                max_tokens: n as usize,
            })
        }
        _ => budget(limits, max_tokens, encoding),
    }
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

    #[test]
    fn a_pack_may_ask_past_the_cap_up_to_its_own_ceiling() {
        let limits = Limits {
            max_answer_tokens: 1000,
            ..Limits::default()
        };
        let budget = |max_tokens| pack_budget(&limits, max_tokens, None);
        assert_eq!(budget(None).unwrap().max_tokens, 1000);
        assert_eq!(budget(Some(10)).unwrap().max_tokens, 10);
        assert_eq!(budget(Some(5000)).unwrap().max_tokens, 5000);
        assert_eq!(
            budget(Some(MAX_PACK_TOKENS)).unwrap().max_tokens,
            MAX_PACK_TOKENS as usize
        );
        for refused in [0, MAX_PACK_TOKENS + 1] {
            assert_eq!(
                budget(Some(refused)).unwrap_err().code,
                ErrorCode::InvalidArgument
            );
        }
    }

    #[test]
    fn a_run_reserves_spends_and_refuses_once_spent() {
        let runs = RunBudgets::default();
        let first = runs.reserve("r", Some(100), 80).unwrap();
        assert_eq!(first.tokens(), 80);
        // Reserved, not yet spent: a call in parallel gets only what is left.
        let second = runs.reserve("r", None, 80).unwrap();
        assert_eq!(second.tokens(), 20);
        assert_eq!(runs.settle(first, 30).remaining, 50);
        let state = runs.settle(second, 20);
        assert_eq!((state.used, state.remaining), (50, 50));
        let changed = runs.reserve("r", Some(500), 10).unwrap_err();
        assert_eq!(changed.code, ErrorCode::InvalidArgument);
        let last = runs.reserve("r", None, 1000).unwrap();
        assert_eq!(runs.settle(last, 50).remaining, 0);
        let spent = runs.reserve("r", None, 1).unwrap_err();
        assert_eq!(spent.code, ErrorCode::BudgetExhausted);
        assert_eq!(
            runs.reserve("other", None, 10).unwrap().tokens(),
            10,
            "runs are apart"
        );
    }
}
