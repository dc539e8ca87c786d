//! What several `ide` operations share, as rust-analyzer's `ide-db`: reference search
//! (the identifier index, then resolution), definition lookup, rename planning and its
//! verification on a scratch database, [`text_search`]: literal and regex search over the
//! files' texts, [`reference_graph`] and [`rank`]: which definitions use which, and how
//! much the rest of the code leans on each, and [`change`]: the one way file texts become
//! database inputs, for the host and for scratch databases alike.
//!
//! Invariant: this layer knows no front end and speaks in database terms (files,
//! occurrences, byte ranges), never in editor terms: `ide` turns what it returns into
//! answers (paths, line/column spans, edits). The few plain types that are the same in
//! both ([`search::Certainty`], [`rename::EditOrigin`], [`rename::RenameOptions`], and
//! [`change::Change`] with its [`change::FileContent`]) are re-exported by `ide` unchanged.

pub(crate) mod calls;
pub(crate) mod change;
pub(crate) mod change_check;
pub(crate) mod definitions;
pub(crate) mod extent;
pub(crate) mod hierarchy;
pub(crate) mod impact;
pub(crate) mod rank;
pub(crate) mod reference_graph;
pub(crate) mod removed;
pub(crate) mod rename;
pub(crate) mod scratch;
pub(crate) mod search;
pub(crate) mod skeleton;
pub(crate) mod test_code;
pub(crate) mod text_search;
pub(crate) mod tokens;
