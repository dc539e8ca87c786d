//! Several workspace roots served by one server (`sextant mcp --root A --root B`): each
//! root is a live workspace of its own (its index, watcher, `sextant.toml` and cache). A
//! call answers from exactly one of them, but for a question by name or pattern over the
//! whole workspace ([`FAN_OUT_TOOLS`]) asked of no root in particular, which every root
//! answers ([`Roots::ask_every`]) and the tool merges: lists in one order
//! ([`merge_ordered`]), a question about one definition from the one root defining it
//! ([`sole_definer`]), one budget shared by the roots ([`split_budget`]), a text from one
//! root opening with its [`heading`].
//!
//! Invariant: a call's `root` argument is taken out of its arguments here, before the tool
//! parses them; a call never writes a root other than the one chosen, and paths stay
//! confined to that root as on a one-root server. A root asked with the others that does
//! not answer is named in the merged answer, never left out silently.

use std::{
    panic::AssertUnwindSafe,
    path::Path,
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

use rmcp::model::JsonObject;
use serde::Serialize;

use super::{ErrorCode, ToolError, answers::Indexed};
use crate::ide::Budget;
pub use crate::workspace::roots::{merge_ordered, sole_definer, split_budget};
use crate::workspace::{
    live::{LiveWorkspace, RequestCancel, TestDelay},
    roots::{deepest_holding, unique_names},
};

/// The argument naming the root a call answers from.
pub const ROOT_ARGUMENT: &str = "root";

/// Arguments whose strings are workspace paths: an absolute one picks its root.
const PATH_ARGUMENTS: [&str; 4] = ["path", "file_path", "paths", "file_paths"];

/// The tools whose question is a name or a pattern over the whole workspace: called with
/// neither `root` nor a path on a server of several roots, they ask every root (a
/// `read_symbol` target or an `impact` line range by path is read in the root holding it;
/// `explore`'s terms, which may be words, are read by every root).
pub const FAN_OUT_TOOLS: [&str; 11] = [
    "lookup_symbol",
    "search",
    "find_definition",
    "find_references",
    "read_symbol",
    "find_implementations",
    "call_graph",
    "repo_map",
    "impact",
    "affected_tests",
    "explore",
];

/// Where a call answers from.
pub enum Selection {
    One(Arc<LiveWorkspace>),
    /// Every root, in the order given (a tool of [`FAN_OUT_TOOLS`]).
    Every,
}

/// How one root took part in an answer asked of every root.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RootPart {
    pub name: String,
    /// Answered from the files indexed so far: the root's first index is still running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial: Option<Indexed>,
    /// The root did not answer, so its hits are missing: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RootError>,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RootError {
    /// One of the error codes (`TIMEOUT`: no answer in time, such as a root whose first
    /// index is still running).
    pub code: String,
    pub message: String,
}

impl RootPart {
    /// The part of a root that answered, from the files indexed so far when `partial`.
    pub fn answered(name: String, partial: Option<Indexed>) -> RootPart {
        RootPart {
            name,
            partial,
            error: None,
        }
    }

    /// The part of a root that failed with `error`.
    pub fn failed(name: String, error: &ToolError) -> RootPart {
        let code = serde_json::to_value(error.code)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        RootPart {
            name,
            partial: None,
            error: Some(RootError {
                code,
                message: error.message.clone(),
            }),
        }
    }

    /// The line the text of an answer opens with for a root that did not answer.
    pub fn note(&self) -> Option<String> {
        let error = self.error.as_ref()?;
        Some(format!(
            "[root {} did not answer: {}: {}]\n",
            self.name, error.code, error.message
        ))
    }
}

/// The line opening a root's part of a text answer asked of every root (`call_graph`'s
/// graph, each root's `repo_map`).
pub fn heading(root: &str) -> String {
    format!("[{root}]\n")
}

/// What opens a root's part of a text made of several roots' parts (each root's
/// `repo_map`, `explore`): its [`heading`], after a blank line unless it opens the text.
pub fn opening(root: &str, first: bool) -> String {
    match first {
        true => heading(root),
        false => format!("\n{}", heading(root)),
    }
}

/// How a root's answer, made within some tokens, takes part in one budget shared by the
/// roots ([`Roots::within_one_budget`]).
pub struct Share {
    /// The tokens of its text.
    pub tokens: usize,
    /// Something was left out for its tokens: it could use more.
    pub truncated: bool,
    /// Its text has something to show (else it gets no [`opening`]).
    pub shows: bool,
    /// Its size, by which it gets half of its share.
    pub weight: usize,
}

/// `budget` less the tokens of `root`'s [`heading`], for an answer from one root of
/// several whose text opens with it ([`titled`]).
pub fn room_for_heading(root: &str, budget: Budget) -> Budget {
    let heading = budget.encoding.count(&heading(root));
    Budget {
        max_tokens: budget.max_tokens.saturating_sub(heading).max(1),
        ..budget
    }
}

/// Opens `text` (of `tokens` tokens, made within [`room_for_heading`]) with `root`'s
/// heading, and counts it again. A line break ends the heading, so the counts add up, but
/// `budget` holds whatever they do: the heading is left out when it would not fit.
pub fn titled(root: &str, text: &mut String, tokens: &mut usize, budget: Budget) {
    let with_heading = format!("{}{text}", heading(root));
    let counted = budget.encoding.count(&with_heading);
    if counted <= budget.max_tokens {
        (*text, *tokens) = (with_heading, counted);
    }
}

/// The failure of a question about one definition that no answering root defines, saying
/// which roots did not answer (one of them may define it).
pub fn not_defined(mut error: ToolError, parts: &[RootPart]) -> ToolError {
    let unanswered: Vec<String> = parts
        .iter()
        .filter_map(|part| Some(format!("{}: {}", part.name, part.error.as_ref()?.code)))
        .collect();
    if !unanswered.is_empty() {
        error.message = format!(
            "{} (roots that did not answer: {})",
            error.message,
            unanswered.join(", ")
        );
    }
    error
}

/// What the roots that answered from the files indexed so far had indexed, summed: the
/// `partial` of an answer asked of every root (`None` when every root answered whole).
pub fn indexed_in_all(parts: &[RootPart]) -> Option<Indexed> {
    parts
        .iter()
        .filter_map(|part| part.partial)
        .reduce(|sum, indexed| Indexed {
            files_indexed: sum.files_indexed + indexed.files_indexed,
            files_total: sum.files_total + indexed.files_total,
        })
}

/// Each root's name with what it answered, in the roots' order.
pub type Answers<T> = Vec<(String, Result<T, ToolError>)>;

/// The roots that answered, each with its answer, and how every root took part.
pub type Split<T> = (Vec<(String, T)>, Vec<RootPart>);

/// The roots that answered, each with its answer, and how every root took part (`partial`
/// says which answers came from the files indexed so far), both in the roots' order.
pub fn split<T>(asked: Answers<T>, partial: impl Fn(&T) -> Option<Indexed>) -> Split<T> {
    let (mut answered, mut parts) = (Vec::new(), Vec::new());
    for (name, answer) in asked {
        match answer {
            Ok(answer) => {
                parts.push(RootPart::answered(name.clone(), partial(&answer)));
                answered.push((name, answer));
            }
            Err(error) => parts.push(RootPart::failed(name, &error)),
        }
    }
    (answered, parts)
}

/// The answers of every root, or the failure when none answered (the first root's code,
/// each root's reason in the message).
pub fn answered<T>(asked: Answers<T>) -> Result<Answers<T>, ToolError> {
    if asked.iter().any(|(_, answer)| answer.is_ok()) {
        return Ok(asked);
    }
    let reasons: Vec<String> = asked
        .iter()
        .filter_map(|(name, answer)| {
            answer
                .as_ref()
                .err()
                .map(|e| format!("{name}: {}", e.message))
        })
        .collect();
    let code = asked
        .iter()
        .find_map(|(_, answer)| answer.as_ref().err().map(|e| e.code))
        .unwrap_or(ErrorCode::Internal);
    Err(ToolError::new(
        code,
        format!("no root answered ({})", reasons.join("; ")),
    ))
}

/// One served root, as `workspace_status` lists it.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct RootInfo {
    /// What a call's `root` argument names it by: the directory's name, with as many of
    /// its parents as make it unique among the roots.
    pub name: String,
    pub path: String,
}

struct Root {
    info: RootInfo,
    live: Arc<LiveWorkspace>,
}

/// The roots of a server, the first being the default.
pub struct Roots {
    roots: Vec<Root>,
}

impl Roots {
    /// The roots in the order given; `lives` is not empty and has no root twice.
    pub fn new(lives: Vec<Arc<LiveWorkspace>>) -> Roots {
        assert!(!lives.is_empty(), "a server serves at least one root");
        let paths: Vec<&Path> = lives.iter().map(|live| live.root()).collect();
        let names = unique_names(&paths);
        let roots = lives
            .iter()
            .zip(names)
            .map(|(live, name)| Root {
                info: RootInfo {
                    name,
                    path: live.root().display().to_string(),
                },
                live: live.clone(),
            })
            .collect();
        Roots { roots }
    }

    pub fn first(&self) -> &Arc<LiveWorkspace> {
        &self.roots[0].live
    }

    pub fn is_several(&self) -> bool {
        self.roots.len() > 1
    }

    pub fn infos(&self) -> Vec<RootInfo> {
        self.roots.iter().map(|r| r.info.clone()).collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.roots.iter().map(|r| r.info.name.clone()).collect()
    }

    /// Where a call of `tool` answers from, its `root` argument taken out of `args`: the
    /// root it names (by name or path); else, for a tool of [`FAN_OUT_TOOLS`] given no
    /// path, every root; else the root holding the call's first absolute path, else the
    /// first root.
    pub fn select(
        &self,
        tool: &str,
        args: Option<&mut JsonObject>,
    ) -> Result<Selection, ToolError> {
        let fans_out = self.is_several() && FAN_OUT_TOOLS.contains(&tool);
        let Some(args) = args else {
            return Ok(match fans_out {
                true => Selection::Every,
                false => Selection::One(self.first().clone()),
            });
        };
        match args.remove(ROOT_ARGUMENT) {
            Some(serde_json::Value::String(given)) => self.named(&given).map(Selection::One),
            Some(other) => Err(ToolError::new(
                ErrorCode::InvalidArgument,
                format!("`root` must be a string naming a root, got {other}"),
            )),
            // With one root there is nothing to choose (and no path to resolve per call).
            None if !self.is_several() => Ok(Selection::One(self.first().clone())),
            None if fans_out && !PATH_ARGUMENTS.iter().any(|key| args.contains_key(*key)) => {
                Ok(Selection::Every)
            }
            None => Ok(Selection::One(
                self.live(first_absolute_path(args).map_or(0, |p| self.index_for_path(p)))
                    .clone(),
            )),
        }
    }

    /// Asks every root `ask` at once, each on a thread of its own with a cancellation of
    /// its own, which `cancel` (the request's) reaches; answers in the roots' order. A
    /// root that has not answered within `patience` (one whose first index is still
    /// running, say) is stopped and answers `TIMEOUT`, so that the request's own time limit
    /// does not lose the other roots' answers with it.
    pub fn ask_every<T: Send>(
        &self,
        cancel: &RequestCancel,
        patience: Duration,
        ask: impl Fn(&LiveWorkspace, &RequestCancel) -> Result<T, ToolError> + Sync,
    ) -> Answers<T> {
        // No root's answer fails the call here, so every root's is given.
        self.ask_every_until(cancel, patience, ask, |_, _| None)
            .unwrap_or_default()
    }

    /// [`Roots::ask_every`] for a question where one root's answer can be the call's
    /// failure whatever the other roots answer: `fails` says which (given the root's
    /// index and answer) and what failure. Once a root's answer fails the call, the roots
    /// still answering are stopped at once, since what they would answer can no longer
    /// matter, and the call fails with the first root's failure, in the roots' order, among
    /// those that answered before the others were stopped (what a stopped root answers is
    /// its cancellation, not a failure of its own).
    pub fn ask_every_until<T: Send>(
        &self,
        cancel: &RequestCancel,
        patience: Duration,
        ask: impl Fn(&LiveWorkspace, &RequestCancel) -> Result<T, ToolError> + Sync,
        fails: impl Fn(usize, &Result<T, ToolError>) -> Option<ToolError>,
    ) -> Result<Answers<T>, ToolError> {
        let deadline = Instant::now() + patience;
        let cancels: Vec<RequestCancel> = self
            .roots
            .iter()
            .map(|_| RequestCancel::default())
            .collect();
        let mut answers: Vec<Option<Result<T, ToolError>>> =
            self.roots.iter().map(|_| None).collect();
        // Past patience, and for another root's failure of the call.
        let mut stopped = vec![false; self.roots.len()];
        let mut stopped_for_failure = vec![false; self.roots.len()];
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            for (i, (root, root_cancel)) in self.roots.iter().zip(&cancels).enumerate() {
                let (tx, ask) = (tx.clone(), &ask);
                scope.spawn(move || {
                    let answer = std::panic::catch_unwind(AssertUnwindSafe(|| {
                        if let Some(delay) =
                            TestDelay::of_part("a question of every root", root.live.root())
                        {
                            // Stopped, the question's own read says so.
                            let _ = delay.wait_in(
                                &root.live,
                                root_cancel,
                                &format!("root {}", root.info.name),
                            );
                        }
                        ask(&root.live, root_cancel)
                    }))
                    .unwrap_or_else(|_| {
                        Err(ToolError::new(
                            ErrorCode::Internal,
                            "internal error: a root's answer panicked",
                        ))
                    });
                    let _ = tx.send((i, answer));
                });
            }
            drop(tx);
            let mut pending = self.roots.len();
            let mut call_failed = false;
            while pending > 0 {
                match rx.recv_timeout(POLL) {
                    Ok((i, answer)) => {
                        call_failed |= !stopped_for_failure[i] && fails(i, &answer).is_some();
                        answers[i] = Some(answer);
                        pending -= 1;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
                let past_patience = Instant::now() >= deadline;
                for (i, root_cancel) in cancels.iter().enumerate() {
                    if answers[i].is_some() || root_cancel.is_cancelled() {
                        continue;
                    }
                    if call_failed {
                        stopped_for_failure[i] = true;
                        root_cancel.cancel();
                    } else if cancel.is_cancelled() || past_patience {
                        stopped[i] |= !cancel.is_cancelled();
                        root_cancel.cancel();
                    }
                }
            }
        });
        let answers: Answers<T> = self
            .roots
            .iter()
            .zip(answers)
            .zip(stopped)
            .map(|((root, answer), stopped)| {
                let answer = match answer {
                    Some(Ok(value)) => Ok(value),
                    Some(Err(_)) | None if stopped => Err(ToolError::new(
                        ErrorCode::Timeout,
                        format!("no answer within {} ms", patience.as_millis()),
                    )),
                    Some(Err(error)) => Err(error),
                    None => Err(ToolError::new(ErrorCode::Internal, "a root gave no answer")),
                };
                (root.info.name.clone(), answer)
            })
            .collect();
        let failure = (answers.iter().enumerate())
            .filter(|(i, _)| !stopped_for_failure[*i])
            .find_map(|(i, (_, answer))| fails(i, answer));
        match failure {
            Some(failure) => Err(failure),
            None => Ok(answers),
        }
    }

    /// Every root's answer to a question whose text is bounded in tokens (`ask` answers
    /// within the tokens given), under one `budget` for all their texts, each after its
    /// [`opening`]: first each root answers within what the budget leaves after every
    /// root's opening; then what it leaves after the openings of the roots that show
    /// something and the notes of those that did not answer is shared among them
    /// ([`split_budget`]: what each needs, and by its `weight`), and a root over its share,
    /// or cut and given more now, answers again within it (a root too late for that is
    /// `clear`ed). The answers, and how each root took part; fails when none answered.
    pub fn within_one_budget<T: Send>(
        &self,
        cancel: &RequestCancel,
        patience: Duration,
        budget: Budget,
        ask: impl Fn(&LiveWorkspace, &RequestCancel, usize) -> Result<T, ToolError> + Sync,
        share: impl Fn(&T) -> Share,
        clear: impl Fn(&mut T),
    ) -> Result<Split<T>, ToolError> {
        let started = Instant::now();
        let names = self.names();
        // The openings of the parts of `names`, in order: the first opens the text.
        let openings = |names: &mut dyn Iterator<Item = &String>| -> usize {
            names
                .enumerate()
                .map(|(i, name)| budget.encoding.count(&opening(name, i == 0)))
                .sum()
        };
        // First, each root's answer within what every opening leaves.
        let first_room = budget
            .max_tokens
            .saturating_sub(openings(&mut names.iter()));
        let first = self.ask_every(cancel, patience, |live, cancel| {
            ask(live, cancel, first_room)
        });
        let (mut answered, parts) = split(answered(first)?, |_| None);
        // Then the shares of what the openings of the answers shown and the notes leave.
        let notes: String = parts.iter().filter_map(RootPart::note).collect();
        let shares: Vec<Share> = answered.iter().map(|(_, answer)| share(answer)).collect();
        let shown = answered
            .iter()
            .zip(&shares)
            .filter(|(_, share)| share.shows)
            .map(|((name, _), _)| name);
        let room = budget
            .max_tokens
            .saturating_sub(openings(&mut shown.into_iter()))
            .saturating_sub(budget.encoding.count(&notes));
        let needs: Vec<usize> = shares
            .iter()
            .map(|share| match share.truncated {
                true => usize::MAX,
                false => share.tokens,
            })
            .collect();
        let weights: Vec<usize> = shares.iter().map(|share| share.weight).collect();
        let given = split_budget(room, &needs, &weights);
        let again: Vec<(String, usize)> = answered
            .iter()
            .zip(shares.iter().zip(&given))
            .filter(|(_, (share, given))| {
                share.tokens > **given || (share.truncated && **given > first_room)
            })
            .map(|((name, _), (_, given))| (name.clone(), *given))
            .collect();
        if !again.is_empty() {
            let patience = patience.saturating_sub(started.elapsed());
            let within = self.ask_every(cancel, patience, |live, cancel| {
                let name = &names[self.index_of(live)];
                match again.iter().find(|(root, _)| root == name) {
                    Some((_, given)) => ask(live, cancel, *given).map(Some),
                    None => Ok(None),
                }
            });
            for (name, answer) in within {
                let Some((_, kept)) = answered.iter_mut().find(|(root, _)| *root == name) else {
                    continue;
                };
                match answer {
                    Ok(Some(again)) => *kept = again,
                    Ok(None) => {}
                    // Too late for its share: its answer is left out.
                    Err(_) => clear(kept),
                }
            }
        }
        Ok((answered, parts))
    }

    fn named(&self, given: &str) -> Result<Arc<LiveWorkspace>, ToolError> {
        let canonical = Path::new(given).canonicalize().ok();
        self.roots
            .iter()
            .find(|r| r.info.name == given || canonical.as_deref() == Some(r.live.root()))
            .map(|r| r.live.clone())
            .ok_or_else(|| {
                ToolError::new(
                    ErrorCode::NotFound,
                    format!(
                        "no root named {given:?}; this server's roots are {}",
                        self.names().join(", ")
                    ),
                )
                .with_detail("roots", serde_json::json!(self.names()))
            })
    }

    /// The index of the root a path belongs to: the root an absolute path lies under (the
    /// deepest, when roots nest), else the first. [`Roots::select`] picks a call's root by
    /// its first absolute path so, and a `read_symbol` target's by its path.
    pub fn index_for_path(&self, path: &str) -> usize {
        let path = Path::new(path);
        if !path.is_absolute() {
            return 0;
        }
        let canonical = path.canonicalize().ok();
        let path = canonical.as_deref().unwrap_or(path);
        let roots = self.roots.iter().map(|r| r.live.root());
        deepest_holding(roots, |root| path.starts_with(root)).unwrap_or(0)
    }

    /// The root at `index` (of [`Roots::index_for_path`], or of an [`Answers`]' order).
    pub fn live(&self, index: usize) -> &Arc<LiveWorkspace> {
        &self.roots[index].live
    }

    /// The index of `live`, one of these roots, in their order.
    pub fn index_of(&self, live: &LiveWorkspace) -> usize {
        self.roots
            .iter()
            .position(|r| std::ptr::eq(&*r.live, live))
            .expect("asked of one of the server's roots")
    }
}

/// How often [`Roots::ask_every`] looks whether to stop the roots still answering.
const POLL: Duration = Duration::from_millis(20);

fn first_absolute_path(args: &JsonObject) -> Option<&str> {
    PATH_ARGUMENTS
        .iter()
        .filter_map(|key| args.get(*key))
        .flat_map(|value| match value {
            serde_json::Value::String(s) => vec![s.as_str()],
            serde_json::Value::Array(items) => items.iter().filter_map(|v| v.as_str()).collect(),
            _ => Vec::new(),
        })
        .find(|p| Path::new(p).is_absolute())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_absolute_path_argument() {
        let args: JsonObject = serde_json::from_value(serde_json::json!({
            "query": "/not/a/path/arg",
            "path": "relative.py",
            "file_paths": ["rel.py", "/abs/b.py"],
        }))
        .unwrap();
        assert_eq!(first_absolute_path(&args), Some("/abs/b.py"));
    }
}
