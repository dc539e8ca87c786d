//! Work-done progress for the first index, for clients that support it.
//!
//! Invariant: `$/progress` is sent only after the client has answered
//! `window/workDoneProgress/create` with success; then exactly one `begin`, `report`s at
//! most every [`INTERVAL`] whose percentages never go down, and one `end`. The state comes
//! from the live workspace's status (`LiveStatus::progress`, fed by the loader's
//! `ProgressSink`), read by the main loop on a timer: no thread of its own, and a fast
//! loader costs the client no more messages than a slow one.

use std::time::{Duration, Instant};

use crossbeam_channel::Sender;
use lsp_server::{Message, Notification, Request, RequestId, Response};
use lsp_types::{
    NumberOrString, ProgressParams, ProgressParamsValue, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd, WorkDoneProgressReport,
    notification::{Notification as _, Progress},
    request::{Request as _, WorkDoneProgressCreate},
};

use super::to_proto;
use crate::workspace::live::LiveWorkspace;

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
    state: State,
    next_tick: Instant,
}

impl IndexingProgress {
    /// Asks the client to create the progress token.
    pub fn start(client: &Sender<Message>) -> IndexingProgress {
        let id = RequestId::from(format!("{TOKEN}/create"));
        let params = WorkDoneProgressCreateParams {
            token: NumberOrString::String(TOKEN.into()),
        };
        let _ = client.send(Message::Request(Request::new(
            id.clone(),
            WorkDoneProgressCreate::METHOD.to_string(),
            params,
        )));
        IndexingProgress {
            state: State::Creating(id),
            next_tick: Instant::now(),
        }
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

    /// If its time has come: reports how the load advances, or ends once it is done.
    pub fn tick(&mut self, live: &LiveWorkspace, client: &Sender<Message>) {
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
        let status = live.status();
        let failed = live.load_error();
        if status.ready || failed.is_some() {
            let message = match (status.index_ms, failed) {
                (Some(ms), _) => format!("indexed in {ms:.0} ms"),
                (None, Some(error)) => format!("indexing failed: {error}"),
                (None, None) => "indexing failed".into(),
            };
            send(
                client,
                WorkDoneProgress::End(WorkDoneProgressEnd {
                    message: Some(message),
                }),
            );
            self.state = State::Ended;
            return;
        }
        let Some(event) = status.progress else {
            return;
        };
        let (now_percentage, now_message) = to_proto::load_progress(&event);
        // Never backwards, and nothing sent when nothing changed.
        let now_percentage = now_percentage.max(*percentage);
        if now_percentage == *percentage && message.as_deref() == Some(&now_message) {
            return;
        }
        send(
            client,
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

fn send(client: &Sender<Message>, value: WorkDoneProgress) {
    let params = ProgressParams {
        token: NumberOrString::String(TOKEN.into()),
        value: ProgressParamsValue::WorkDone(value),
    };
    let _ = client.send(Message::Notification(Notification::new(
        Progress::METHOD.to_string(),
        params,
    )));
}
