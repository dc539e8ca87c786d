//! The terminal progress bar: renders the workspace's load events on stderr.
//!
//! Invariant: nothing is drawn when stderr is not a terminal, nor for loads that finish
//! within [`PROGRESS_DELAY`] (a bar that flashes is noise).

use std::{
    io::IsTerminal,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::workspace::{LoadPhase, ProgressEvent, ProgressSink};

const PROGRESS_DELAY: Duration = Duration::from_millis(300);

struct Bar {
    bar: ProgressBar,
    started: Instant,
    shown: bool,
    phase: Option<LoadPhase>,
}

impl Bar {
    fn show(&mut self, event: ProgressEvent) {
        if self.phase != Some(event.phase) {
            self.phase = Some(event.phase);
            self.bar.set_message(event.phase.as_str());
            self.bar.set_length(event.total as u64);
        }
        if !self.shown && self.started.elapsed() > PROGRESS_DELAY {
            self.shown = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        self.bar.set_position(event.done as u64);
        if event.phase == LoadPhase::Indexing && event.done == event.total {
            self.bar.finish_and_clear();
        }
    }
}

/// A sink drawing a bar on stderr, or `None` when stderr is not a terminal.
pub fn terminal_progress() -> Option<ProgressSink> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    bar.set_style(
        ProgressStyle::with_template("{msg:8} {bar:30} {pos}/{len} files {elapsed}")
            .expect("valid template"),
    );
    let state = Mutex::new(Bar {
        bar,
        started: Instant::now(),
        shown: false,
        phase: None,
    });
    Some(ProgressSink(Arc::new(move |event| {
        state.lock().unwrap().show(event)
    })))
}
