//! Work-done progress for the first index (of every workspace folder, reported as one),
//! for clients that support it; a folder added later is reported in a round of its own
//! (with the folders added while it runs), under a token of its own.
//!
//! Invariant: `$/progress` is sent only after the client has answered
//! `window/workDoneProgress/create` with success; then, per token, exactly one `begin`,
//! `report`s at most every [`INTERVAL`] whose percentages never go down, and one `end`. The state comes
//! from the live workspace's status (`LiveStatus::progress`, fed by the loader's
//! `ProgressSink`), read by the main loop on a timer: no thread of its own, and a fast
//! loader costs the client no more messages than a slow one.

use std::{
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use crossbeam_channel::Sender;
use lsp_server::{Message, Notification, Request, RequestId, Response};
use lsp_types::{
    NumberOrString, ProgressParams, ProgressParamsValue, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd, WorkDoneProgressReport,
    notification::{Notification as _, Progress},
    request::{Request as _, WorkDoneProgressCreate},
};

use super::{folders::Folder, to_proto};
use crate::workspace::live::LiveStatus;

pub const TOKEN: &str = "sextant/indexing";
/// The most often a report is sent.
pub const INTERVAL: Duration = Duration::from_millis(100);

enum State {
    /// `create` sent; waiting for the client's answer.
    Creating(RequestId),
    Reporting {
        percentage: u32,
        message: Option<String>,
    },
    Ended,
}

pub struct IndexingProgress {
    token: String,
    /// The folders this round reports on (`None`: every folder, the first round's).
    only: Option<Vec<PathBuf>>,
    state: State,
    next_tick: Instant,
}

impl IndexingProgress {
    /// Asks the client to create the progress token of the first index.
    pub fn start(client: &Sender<Message>) -> IndexingProgress {
        IndexingProgress::create(client, TOKEN.to_string(), None)
    }

    /// Asks the client to create the token of round `round` (1 for the first after
    /// `initialize`), which reports on the folders at `roots` alone.
    pub fn start_round(client: &Sender<Message>, round: u32, roots: Vec<PathBuf>) -> Self {
        IndexingProgress::create(client, format!("{TOKEN}/{round}"), Some(roots))
    }

    fn create(client: &Sender<Message>, token: String, only: Option<Vec<PathBuf>>) -> Self {
        let id = RequestId::from(format!("{token}/create"));
        let params = WorkDoneProgressCreateParams {
            token: NumberOrString::String(token.clone()),
        };
        let _ = client.send(Message::Request(Request::new(
            id.clone(),
            WorkDoneProgressCreate::METHOD.to_string(),
            params,
        )));
        IndexingProgress {
            token,
            only,
            state: State::Creating(id),
            next_tick: Instant::now(),
        }
    }

    /// Reports on the folder at `root` too, if this round is still going; false when it
    /// is over (a new round must report it).
    pub fn include(&mut self, root: PathBuf) -> bool {
        if matches!(self.state, State::Ended) {
            return false;
        }
        if let Some(only) = &mut self.only {
            only.push(root);
        }
        true
    }

    /// Takes the client's answer to `create` (false for any other response): on success
    /// progress begins; on an error none is sent.
    pub fn on_response(&mut self, response: &Response, client: &Sender<Message>) -> bool {
        let State::Creating(id) = &self.state else {
            return false;
        };
        if *id != response.id {
            return false;
        }
        if response.response_result.is_err() {
            self.state = State::Ended;
            return true;
        }
        send(
            client,
            &self.token,
            WorkDoneProgress::Begin(WorkDoneProgressBegin {
                title: "sextant: indexing".into(),
                cancellable: Some(false),
                message: None,
                percentage: Some(0),
            }),
        );
        self.state = State::Reporting {
            percentage: 0,
            message: None,
        };
        self.next_tick = Instant::now();
        true
    }

    /// When the main loop must wake up next for progress.
    pub fn next_tick(&self) -> Option<Instant> {
        matches!(self.state, State::Reporting { .. }).then_some(self.next_tick)
    }

    /// If its time has come: reports how the loads advance, or ends once every folder's
    /// is done. With several folders served (`several`), the percentage is their mean, the
    /// message the first loading folder's (named), and the end message each folder's
    /// (named) in order.
    pub fn tick<'a>(
        &mut self,
        served: impl Iterator<Item = (&'a str, &'a Arc<Folder>)>,
        several: bool,
        client: &Sender<Message>,
    ) {
        let now = Instant::now();
        let State::Reporting {
            percentage,
            message,
        } = &mut self.state
        else {
            return;
        };
        if now < self.next_tick {
            return;
        }
        self.next_tick = now + INTERVAL;
        let only = &self.only;
        let folders: Vec<(&str, &Arc<Folder>)> = served
            .filter(|(_, f)| {
                only.as_ref()
                    .is_none_or(|o| o.iter().any(|r| r == f.root()))
            })
            .collect();
        let named = |name: &str, message: String| match several {
            true => format!("{name}: {message}"),
            false => message,
        };
        let loads: Vec<(LiveStatus, Option<String>)> = folders
            .iter()
            .map(|(_, f)| (f.live.status(), f.live.load_error()))
            .collect();
        if loads
            .iter()
            .all(|(status, failed)| status.ready || failed.is_some())
        {
            let ends: Vec<String> = folders
                .iter()
                .zip(loads)
                .map(|((name, _), (status, failed))| {
                    let message = match (status.index_ms, failed) {
                        (Some(ms), _) => format!("indexed in {ms:.0} ms"),
                        (None, Some(error)) => format!("indexing failed: {error}"),
                        (None, None) => "indexing failed".into(),
                    };
                    named(name, message)
                })
                .collect();
            send(
                client,
                &self.token,
                WorkDoneProgress::End(WorkDoneProgressEnd {
                    message: Some(ends.join("; ")),
                }),
            );
            self.state = State::Ended;
            return;
        }
        let mut loading = None;
        let mut sum = 0;
        for ((name, _), (status, failed)) in folders.iter().zip(&loads) {
            if status.ready || failed.is_some() {
                sum += 100;
                continue;
            }
            let Some(event) = &status.progress else {
                continue;
            };
            let (folder_percentage, folder_message) = to_proto::load_progress(event);
            sum += folder_percentage;
            loading.get_or_insert_with(|| named(name, folder_message));
        }
        let Some(now_message) = loading else {
            return;
        };
        let now_percentage = sum / folders.len() as u32;
        // Never backwards, and nothing sent when nothing changed.
        let now_percentage = now_percentage.max(*percentage);
        if now_percentage == *percentage && message.as_deref() == Some(&now_message) {
            return;
        }
        send(
            client,
            &self.token,
            WorkDoneProgress::Report(WorkDoneProgressReport {
                cancellable: Some(false),
                message: Some(now_message.clone()),
                percentage: Some(now_percentage),
            }),
        );
        *percentage = now_percentage;
        *message = Some(now_message);
    }
}

fn send(client: &Sender<Message>, token: &str, value: WorkDoneProgress) {
    let params = ProgressParams {
        token: NumberOrString::String(token.into()),
        value: ProgressParamsValue::WorkDone(value),
    };
    let _ = client.send(Message::Notification(Notification::new(
        Progress::METHOD.to_string(),
        params,
    )));
}
