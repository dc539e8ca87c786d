//! `sextant apply`: a patch (a file, or `-` for standard input) checked whole against the
//! workspace; a dry run by default (the files it changes and the diagnostics it would
//! introduce, or `--diff`), `--write` to write every file or none.
//!
//! Exit codes: 0 applied (or would apply), 1 refused because `--check refuse` found new
//! errors, 2 an error (not a patch, a hunk that does not apply, a file changed since it
//! was read).

use std::{
    collections::BTreeMap, fmt::Write as _, io::Read as _, path::PathBuf, process::ExitCode,
};

use clap::{Args, ValueEnum};

use super::{
    CliError, GlobalArgs, cancelled, load_workspace,
    policy::{CheckArg, new_diagnostic_line},
};
use crate::{
    ide::{
        CheckPolicy, DiagnosticInfo, Failure, FileText, Patch, PatchFormat, PatchOptions,
        Sha256Hash, TextEncoding, parse_patch,
    },
    workspace::{
        HardLinks, Host, Written,
        operations::{OperationRecord, Retry, hashes_now},
    },
};

#[derive(Args, Debug)]
pub struct ApplyArgs {
    /// The patch: `git diff`/`diff -u` output, a `*** Begin Patch` envelope or
    /// search/replace blocks; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    pub patch: PathBuf,
    /// The patch's format [default: detected from the text].
    #[arg(long, value_enum)]
    pub format: Option<FormatArg>,
    /// Context lines a unified diff's hunk may leave out at each end when it does not match
    /// whole (0 to 3).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    pub fuzz: u8,
    /// Refuse the patch (CONFLICT, exit 2) unless PATH's bytes have this SHA-256, as
    /// `sha256sum PATH` prints it: the file is the one the patch was made for. Repeatable;
    /// each PATH must be a file the patch changes.
    #[arg(long, value_name = "PATH=SHA256", value_parser = parse_expected_sha256)]
    pub expected_sha256: Vec<(String, Sha256Hash)>,
    /// With --write: names this write, so that running the same command again (after a
    /// timeout, or a crash part-way) prints the first result instead of writing again.
    #[arg(long, value_name = "ID", requires = "write")]
    pub operation_id: Option<String>,
    #[command(flatten)]
    pub output: WriteArgs,
}

/// How a computed change is checked, shown and written (`apply` and `edit`).
#[derive(Args, Debug)]
pub struct WriteArgs {
    /// What new diagnostics in the result do: `report` them, `refuse` to write when one is
    /// an error (exit 1), or `off` (no check).
    #[arg(long, value_enum, default_value_t = CheckArg::Report)]
    pub check: CheckArg,
    /// Print the unified diff of the change instead of the summary.
    #[arg(long)]
    pub diff: bool,
    /// Write the change (every file or none; refused if a file changed since it was read).
    #[arg(long)]
    pub write: bool,
    /// With --write: replace a file that has other hard links at the path the patch names;
    /// its other links keep the old text [default: refuse such a file].
    #[arg(long, requires = "write")]
    pub break_hard_links: bool,
}

impl WriteArgs {
    pub(super) fn hard_links(&self) -> HardLinks {
        match self.break_hard_links {
            true => HardLinks::Break,
            false => HardLinks::Refuse,
        }
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    Unified,
    Envelope,
    SearchReplace,
}

pub fn run(g: &GlobalArgs, args: &ApplyArgs) -> Result<(String, ExitCode), CliError> {
    let text = read_input(&args.patch)?;
    let format = match args.format {
        None => PatchFormat::Auto,
        Some(FormatArg::Unified) => PatchFormat::Unified,
        Some(FormatArg::Envelope) => PatchFormat::Envelope,
        Some(FormatArg::SearchReplace) => PatchFormat::SearchReplace,
    };
    let patch = parse_patch(&text, format).map_err(failed)?;
    if args.operation_id.is_some() && g.no_cache {
        return Err(CliError(
            "INVALID_ARGUMENT: --operation-id keeps its record in the cache directory; \
             drop --no-cache"
                .into(),
        ));
    }
    let host = load_workspace(g)?;
    let mut shown = Shown {
        check: args.output.check.policy(),
        fuzz: args.fuzz,
        expected_sha256: args.expected_sha256.iter().cloned().collect(),
        diff: args.output.diff,
        write: args.output.write,
        hard_links: args.output.hard_links(),
        operation: None,
    };
    if let Some(id) = &args.operation_id {
        // Everything that decides what is written and printed: a retry must repeat it.
        let request = format!(
            "cli apply {} fuzz {} check {:?} sha256 {:?} links {} json {} diff {}",
            blake3::hash(text.as_bytes()).to_hex(),
            shown.fuzz,
            shown.check,
            (shown.expected_sha256.iter())
                .map(|(path, hash)| (path, hash.to_hex()))
                .collect::<Vec<_>>(),
            args.output.break_hard_links,
            g.json,
            shown.diff,
        );
        shown.operation = Some((id.clone(), request));
    }
    shown.run(g, &host, &patch, serde_json::Map::new())
}

fn parse_expected_sha256(value: &str) -> Result<(String, Sha256Hash), String> {
    let (path, hex) = value
        .rsplit_once('=')
        .ok_or("expected PATH=SHA256 (the path, `=`, then 64 hexadecimal digits)")?;
    let hash = Sha256Hash::from_hex(hex).ok_or("a SHA-256 is 64 hexadecimal digits")?;
    Ok((path.to_string(), hash))
}

/// A failure as the CLI prints it: its stable code, then its message.
pub(super) fn failed(error: impl Failure + std::fmt::Display) -> CliError {
    CliError(format!("{}: {error}", error.code().as_str()))
}

/// The error, then the places it names (an ambiguous name's candidates, the uses that hold
/// a delete back), one per line.
pub(super) fn failed_at(
    error: impl Failure + std::fmt::Display,
    places: &[crate::ide::Candidate],
) -> CliError {
    let mut message = failed(error).0;
    for place in places {
        message.push_str(&format!("\n  {}:{} {}", place.path, place.line, place.kind));
    }
    CliError(message)
}

/// How a computed patch is previewed, shown and written (`apply` and `edit`).
pub(super) struct Shown {
    pub check: CheckPolicy,
    pub fuzz: u8,
    pub expected_sha256: BTreeMap<String, Sha256Hash>,
    pub diff: bool,
    pub write: bool,
    pub hard_links: HardLinks,
    /// `--operation-id`, and what names the request.
    pub operation: Option<(String, String)>,
}

/// What a named operation's record keeps to print again.
#[derive(serde::Serialize, serde::Deserialize)]
struct Printed {
    out: String,
    exit_code: u8,
}

impl Shown {
    /// `patch` previewed on the files as they are, written with `--write` unless `--check
    /// refuse` found new errors; `extra` goes into the JSON answer first.
    pub(super) fn run(
        &self,
        g: &GlobalArgs,
        host: &Host,
        patch: &Patch,
        extra: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(String, ExitCode), CliError> {
        let texts = host.current_texts(patch.paths()).map_err(failed)?;
        let operations = host.operations();
        if let Some((id, request)) = &self.operation {
            let retry = operations.retry(id, request, |paths| hashes_now(paths, &texts));
            if let Retry::Replay(first) = retry.map_err(failed)? {
                let first: Printed = serde_json::from_value(first)
                    .map_err(|e| CliError(format!("INTERNAL: {e}")))?;
                eprintln!(
                    "sextant: operation {id:?} was written before; its first result follows, \
                     and nothing was written now"
                );
                return Ok((first.out, ExitCode::from(first.exit_code)));
            }
        }
        let options = PatchOptions {
            fuzz: usize::from(self.fuzz),
            expected_sha256: self.expected_sha256.clone(),
        };
        let preview = host
            .analysis()
            .preview_patch(patch, &texts, &options, self.check)
            .map_err(cancelled)?
            .map_err(failed)?;
        let new_diagnostics = preview.new_diagnostics.clone().unwrap_or_default();
        let blocking = self.check.blocking(&new_diagnostics);
        let written = self.write && blocking.is_empty() && !preview.change.is_empty();
        let exit_code = match blocking.is_empty() {
            true => 0,
            false => 1,
        };
        let printed = |links_broken: Vec<String>| Printed {
            out: self.output(g, &preview, &new_diagnostics, &extra, written, links_broken),
            exit_code,
        };
        let Some((id, request)) = self.operation.as_ref().filter(|_| written) else {
            let mut links_broken = Vec::new();
            if written {
                let outcome = host.write_change_with(&preview.change, self.hard_links);
                links_broken = outcome.map_err(failed)?.hard_links_broken;
            }
            let printed = printed(links_broken);
            return Ok((printed.out, ExitCode::from(printed.exit_code)));
        };
        let first = serde_json::to_value(printed(Vec::new())).unwrap_or_default();
        let pending = OperationRecord::pending(id, request, &preview.outcome, first);
        let write = || host.write_change_with(&preview.change, self.hard_links);
        let value = |written: &Written| {
            serde_json::to_value(printed(written.hard_links_broken.clone())).unwrap_or_default()
        };
        let written = (operations.write_recorded(pending, write, value)).map_err(failed)?;
        let printed = printed(written.hard_links_broken);
        Ok((printed.out, ExitCode::from(printed.exit_code)))
    }

    /// What the command prints: JSON, the diff, or the summary.
    fn output(
        &self,
        g: &GlobalArgs,
        preview: &crate::ide::PatchPreview,
        new_diagnostics: &[DiagnosticInfo],
        extra: &serde_json::Map<String, serde_json::Value>,
        written: bool,
        links_broken: Vec<String>,
    ) -> String {
        if g.json {
            let mut value = extra.clone();
            value.insert("applied".into(), written.into());
            value.insert("change_id".into(), preview.change.id().into());
            let files = serde_json::to_value(preview.files()).unwrap_or_default();
            value.insert("files".into(), files);
            let found = serde_json::to_value(&preview.new_diagnostics).unwrap_or_default();
            value.insert("new_diagnostics".into(), found);
            value.insert("diff".into(), preview.outcome.diff.clone().into());
            if !links_broken.is_empty() {
                value.insert("hard_links_broken".into(), links_broken.into());
            }
            let value = serde_json::Value::Object(value);
            format!(
                "{}\n",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            )
        } else if self.diff {
            preview.outcome.diff.clone()
        } else {
            let mut out = summary(preview, new_diagnostics, written, self.write);
            for path in links_broken {
                writeln!(out, "{path}: its other hard links keep the old text").unwrap();
            }
            out
        }
    }
}

/// The text of the patch file `path` (`-`: standard input). Bytes that are not UTF-8 are
/// read as Latin-1, as the files they patch are: `git diff` prints a Latin-1 file's lines
/// as they are on disk.
pub(super) fn read_input(path: &PathBuf) -> Result<String, CliError> {
    let mut bytes = Vec::new();
    let read = match path.as_os_str() == "-" {
        true => std::io::stdin().read_to_end(&mut bytes).map(drop),
        false => std::fs::read(path).map(|b| bytes = b),
    };
    read.map_err(|error| {
        let code = match error.kind() {
            std::io::ErrorKind::NotFound => "NOT_FOUND",
            _ => "INVALID_ARGUMENT",
        };
        CliError(format!("{code}: {}: {error}", path.display()))
    })?;
    Ok(FileText::decode(bytes).text)
}

fn summary(
    preview: &crate::ide::PatchPreview,
    new_diagnostics: &[DiagnosticInfo],
    written: bool,
    asked_to_write: bool,
) -> String {
    let mut s = String::new();
    let files = preview.files();
    for file in &files {
        let path = match &file.new_path {
            Some(to) => format!("{} → {to}", file.path),
            None => file.path.clone(),
        };
        let mode = match file.executable {
            Some(true) => " (+x)",
            Some(false) => " (-x)",
            None => "",
        };
        let encoding = match file.encoding {
            TextEncoding::Latin1 => " (latin-1)",
            TextEncoding::Utf8 => "",
        };
        writeln!(
            s,
            "{} {path}{mode}{encoding} +{} -{}",
            file.status.letter(),
            file.lines_added,
            file.lines_removed
        )
        .unwrap();
        for hunk in &file.inexact_hunks {
            let mut how = Vec::new();
            if let Some(stated) = hunk.patch_line {
                how.push(format!("the patch said line {stated}"));
            }
            if hunk.fuzz > 0 {
                how.push(format!("fuzz {}", hunk.fuzz));
            }
            if hunk.whitespace_ignored {
                how.push("whitespace ignored".to_string());
            }
            writeln!(
                s,
                "  hunk {} applied at line {} ({})",
                hunk.hunk,
                hunk.line,
                how.join(", ")
            )
            .unwrap();
        }
    }
    for d in new_diagnostics {
        writeln!(s, "{}", new_diagnostic_line(d)).unwrap();
    }
    let count = files.len();
    write!(s, "{count} file{}", if count == 1 { "" } else { "s" }).unwrap();
    s.push_str(match (written, asked_to_write) {
        (true, _) => ", written\n",
        (false, true) if preview.change.is_empty() => ", nothing to write\n",
        (false, true) => ", not written: the patch would introduce errors (--check refuse)\n",
        (false, false) => " (dry run: --diff to see it, --write to apply)\n",
    });
    s
}
