//! The bytes held by the live values of one kind a database computed (its name tables),
//! and the budget they are kept within between questions.
//!
//! Salsa's LRU bounds a query's memo by a count of entries, and one entry can be a hundred
//! times another: the name table of a generated file of two megabytes is several megabytes,
//! a hand-written module's tens of kilobytes. A [`Counted`] token inside each value adds its
//! size here when it is made and takes it back when the last copy is dropped, wherever that
//! copy was kept (salsa's memo, a resolver, a request's pass over the file), so the tally is
//! what those values hold now. The host turns it into a count for the LRU
//! ([`Tally::entries_within`]); the background check reads it to step aside before its
//! batch holds too much.

use std::sync::{
    Arc,
    atomic::{AtomicUsize, Ordering},
};

/// See the module's documentation. Shared by every clone (snapshot) of a database.
#[derive(Debug, Default)]
pub struct Tally {
    bytes: AtomicUsize,
    values: AtomicUsize,
    budget: AtomicUsize,
    peak: AtomicUsize,
}

impl Tally {
    /// A token for a value holding `bytes`, counted until the token is dropped.
    pub fn count(self: &Arc<Self>, bytes: usize) -> Counted {
        let now = self.bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(now, Ordering::Relaxed);
        self.values.fetch_add(1, Ordering::Relaxed);
        Counted(Some((bytes, self.clone())))
    }

    /// The bytes the live values hold.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// The most the live values have held together.
    pub fn peak_bytes(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    /// How many values are alive.
    pub fn values(&self) -> usize {
        self.values.load(Ordering::Relaxed)
    }

    /// The bytes the values may hold between questions (0 until the host sets it).
    pub fn budget(&self) -> usize {
        self.budget.load(Ordering::Relaxed)
    }

    pub fn set_budget(&self, bytes: usize) {
        self.budget.store(bytes, Ordering::Relaxed);
    }

    /// How many values of the live ones' mean size fit in the budget, between `fewest` and
    /// `most`; `None` when none is alive to measure (the bound then stays as it was).
    pub fn entries_within(&self, fewest: usize, most: usize) -> Option<usize> {
        let values = self.values();
        if values == 0 {
            return None;
        }
        let mean = (self.bytes() / values).max(1);
        Some((self.budget() / mean).clamp(fewest, most))
    }
}

/// A value's share of a [`Tally`]: part of the value, dropped with it. A value made
/// without a tally (read back from a record before it is counted, a default) counts
/// nothing. Not part of what a value is: every token equals every other.
#[derive(Debug, Default)]
pub struct Counted(Option<(usize, Arc<Tally>)>);

impl Counted {
    /// The bytes this token counts.
    pub fn bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |(bytes, _)| *bytes)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Some((bytes, tally)) = self.0.take() {
            tally.bytes.fetch_sub(bytes, Ordering::Relaxed);
            tally.values.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl PartialEq for Counted {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for Counted {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_counts_the_values_alive_and_fits_their_mean_in_its_budget() {
        let tally = Arc::new(Tally::default());
        tally.set_budget(1_000);
        assert_eq!(tally.entries_within(2, 50), None);
        let small = tally.count(10);
        let large = tally.count(290);
        assert_eq!(
            (tally.bytes(), tally.values(), tally.peak_bytes()),
            (300, 2, 300)
        );
        // A mean of 150 bytes: 6 of them in 1,000.
        assert_eq!(tally.entries_within(2, 50), Some(6));
        assert_eq!(tally.entries_within(8, 50), Some(8));
        drop(large);
        assert_eq!((tally.bytes(), tally.values()), (10, 1));
        assert_eq!(tally.entries_within(2, 50), Some(50));
        assert_eq!(small.bytes(), 10);
        drop(small);
        assert_eq!(
            (tally.bytes(), tally.values(), tally.peak_bytes()),
            (0, 0, 300)
        );
        assert_eq!(Counted::default().bytes(), 0);
    }
}
