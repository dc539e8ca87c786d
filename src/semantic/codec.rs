//! A fixed-layout byte encoding for the recorded results that are read at every warm start
//! (the symbol and identifier shards): a few arrays and strings each, copied back whole, so
//! decoding costs a handful of allocations per shard instead of several per symbol, as a
//! self-describing encoding would.
//!
//! Invariant: [`Reader`] never panics and never reads past its bytes; a malformed or short
//! input is `None`, which the caller counts as a faulty record.

/// Appends values to a byte buffer, little-endian, each array and string after its length.
#[derive(Default)]
pub struct Writer {
    bytes: Vec<u8>,
}

impl Writer {
    pub fn finish(self) -> Vec<u8> {
        self.bytes
    }

    pub fn u32(&mut self, value: u32) {
        self.bytes.extend_from_slice(&value.to_le_bytes());
    }

    pub fn bytes(&mut self, bytes: &[u8]) {
        self.u32(bytes.len() as u32);
        self.bytes.extend_from_slice(bytes);
    }

    pub fn str(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    pub fn u16s(&mut self, values: &[u16]) {
        self.array(values, |v| v.to_le_bytes());
    }

    pub fn u32s(&mut self, values: &[u32]) {
        self.array(values, |v| v.to_le_bytes());
    }

    pub fn u64s(&mut self, values: &[u64]) {
        self.array(values, |v| v.to_le_bytes());
    }

    fn array<T: Copy, const W: usize>(&mut self, values: &[T], bytes: fn(T) -> [u8; W]) {
        self.u32(values.len() as u32);
        for &v in values {
            self.bytes.extend_from_slice(&bytes(v));
        }
    }
}

/// Reads what a [`Writer`] wrote, in the same order.
pub struct Reader<'a> {
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { rest: bytes }
    }

    /// Whether every byte was read: a record with bytes left over is not one this build
    /// wrote.
    pub fn is_done(&self) -> bool {
        self.rest.is_empty()
    }

    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        if self.rest.len() < len {
            return None;
        }
        let (taken, rest) = self.rest.split_at(len);
        self.rest = rest;
        Some(taken)
    }

    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    /// The length of an array of `width`-byte items, refused when the bytes left cannot
    /// hold it (so a corrupt length never reserves memory).
    fn len(&mut self, width: usize) -> Option<usize> {
        let len = self.u32()? as usize;
        (len.checked_mul(width)? <= self.rest.len()).then_some(len)
    }

    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.len(1)?;
        self.take(len)
    }

    pub fn string(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }

    pub fn u16s(&mut self) -> Option<Vec<u16>> {
        self.array(u16::from_le_bytes)
    }

    pub fn u32s(&mut self) -> Option<Vec<u32>> {
        self.array(u32::from_le_bytes)
    }

    pub fn u64s(&mut self) -> Option<Vec<u64>> {
        self.array(u64::from_le_bytes)
    }

    fn array<T, const W: usize>(&mut self, value: fn([u8; W]) -> T) -> Option<Vec<T>> {
        let len = self.len(W)?;
        let bytes = self.take(len * W)?;
        Some(
            bytes
                .chunks_exact(W)
                .map(|c| value(c.try_into().unwrap()))
                .collect(),
        )
    }
}

/// `ends[i - 1]..ends[i]` (from 0 for the first): the span of item `i` in a concatenation
/// whose items end at `ends`.
pub fn span(ends: &[u32], i: usize) -> std::ops::Range<usize> {
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    start..ends[i] as usize
}

/// Whether `ends` is a valid list of ends over `total` items or bytes: non-decreasing and
/// within it, so that [`span`] never panics on a decoded table.
pub fn valid_ends(ends: &[u32], total: usize) -> bool {
    ends.windows(2).all(|w| w[0] <= w[1]) && ends.last().is_none_or(|&e| e as usize <= total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back_and_every_cut_is_refused() {
        let mut w = Writer::default();
        w.u32(7);
        w.str("naïve");
        w.u16s(&[1, 65535]);
        w.u32s(&[3, 4]);
        w.u64s(&[u64::MAX]);
        let bytes = w.finish();
        let read = |bytes: &[u8]| {
            let mut r = Reader::new(bytes);
            let all = (r.u32()?, r.string()?, r.u16s()?, r.u32s()?, r.u64s()?);
            r.is_done().then_some(all)
        };
        assert_eq!(
            read(&bytes),
            Some((
                7,
                "naïve".to_string(),
                vec![1, 65535],
                vec![3, 4],
                vec![u64::MAX]
            ))
        );
        for len in 0..bytes.len() {
            assert_eq!(read(&bytes[..len]), None, "cut at {len}");
        }
    }

    #[test]
    fn ends_are_checked_before_spans_are_taken() {
        assert!(valid_ends(&[2, 2, 5], 5));
        assert!(!valid_ends(&[2, 1], 5));
        assert!(!valid_ends(&[6], 5));
        assert_eq!(span(&[2, 2, 5], 0), 0..2);
        assert_eq!(span(&[2, 2, 5], 2), 2..5);
    }
}
