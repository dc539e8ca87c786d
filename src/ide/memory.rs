//! The process's resident memory, as the `--max-memory` policy (docs/memory.md) reads it:
//! the size a user writes (`400M`) and the resident and peak resident sizes the kernel
//! counts. Giving freed memory back to the system is the allocator's (`crate::allocator`).

use serde::Serialize;

pub use crate::db::Tally;

/// Resident memory now and at its peak, in bytes (the kernel's `VmRSS` and `VmHWM`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Resident {
    pub resident_bytes: u64,
    pub peak_bytes: u64,
}

/// The name tables a database holds (see [`Tally`]).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct NameTables {
    /// How many are alive: kept between questions, or held by a question or the check.
    pub tables: usize,
    /// What they hold, in bytes (each table's collections and, where texts are kept
    /// compressed, its copy of the text).
    pub bytes: usize,
    /// The most they have held together since the database was made, in bytes.
    pub peak_bytes: usize,
    /// What the tables kept between questions may hold, in bytes.
    pub kept_bytes: usize,
}

impl NameTables {
    pub fn of(tally: &Tally) -> NameTables {
        NameTables {
            tables: tally.values(),
            bytes: tally.bytes(),
            peak_bytes: tally.peak_bytes(),
            kept_bytes: tally.budget(),
        }
    }
}

/// This process's resident memory; `None` where the system does not say (not Linux).
pub fn resident() -> Option<Resident> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line[name.len()..]
            .trim()
            .strip_suffix("kB")?
            .trim()
            .parse()
            .ok()?;
        Some(kib * 1024)
    };
    Some(Resident {
        resident_bytes: field("VmRSS:")?,
        peak_bytes: field("VmHWM:")?,
    })
}

/// Whether this process's resident memory is above `limit` bytes (never where the system
/// does not say).
pub fn over(limit: u64) -> bool {
    resident().is_some_and(|r| r.resident_bytes > limit)
}

/// Where the background check stops under a limit of `limit` bytes: an eighth below it. The
/// check is work that can wait, and answers need room of their own on top of what it leaves
/// held: a reference search after a check paused at the limit itself took 25 MB more (a
/// name table per file it reads, the identifier shards the check had not built), which put
/// the server over (docs/memory.md).
pub fn check_stops_at(limit: u64) -> u64 {
    limit - limit / 8
}

/// A size as written on the command line or in `sextant.toml`: a number of bytes with an
/// optional unit, `K`, `M`, `G` or `T` (powers of 1024; `KB`, `KiB` and lower case too).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let invalid = || format!("`{text}` is not a size (a number with K, M, G or T: `400M`)");
    let number: u64 = digits.parse().map_err(|_| invalid())?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = unit
        .strip_suffix("ib")
        .or_else(|| unit.strip_suffix('b'))
        .unwrap_or(&unit);
    let shift = match unit {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(invalid()),
    };
    let bytes = number.checked_mul(1 << shift).ok_or_else(invalid)?;
    if bytes == 0 {
        return Err(format!("`{text}` is no memory at all"));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("400M"), Ok(400 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("2g"), Ok(2 << 30));
        assert_eq!(parse_size("512KiB"), Ok(512 << 10));
        assert_eq!(parse_size("512kb"), Ok(512 << 10));
        assert_eq!(parse_size("1T"), Ok(1 << 40));
        assert_eq!(parse_size("1048576"), Ok(1 << 20));
        assert_eq!(parse_size(" 64 M "), Ok(64 << 20));
    }

    #[test]
    fn a_malformed_or_empty_size_is_refused() {
        for text in ["", "M", "4.5G", "-1G", "400X", "G400", "99999999999T"] {
            assert_eq!(
                parse_size(text),
                Err(format!(
                    "`{}` is not a size (a number with K, M, G or T: `400M`)",
                    text.trim()
                )),
                "{text}"
            );
        }
        assert_eq!(parse_size("0M"), Err("`0M` is no memory at all".into()));
    }

    #[test]
    fn this_process_has_resident_memory_below_its_peak() {
        let r = resident().expect("Linux reports resident memory");
        assert!(r.resident_bytes > 0);
        assert!(r.resident_bytes <= r.peak_bytes);
    }
}
