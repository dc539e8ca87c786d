//! The commands that give code and facts for a model: `sextant read` (definitions, lines,
//! files or a file's definitions under a token budget), `sextant tokens` (exact token
//! counts of files), `sextant pack` (a task's files and definitions under one budget) and
//! `sextant bootstrap` (what a new session needs to know).

use std::{path::Path, process::ExitCode};

use clap::Args;

use super::{CliError, GlobalArgs, cancelled, load_workspace, workspace_relative};
use crate::{
    ide::{
        Budget, ColumnUnit, Encoding, Failure as _, FileId, NameScope, PackEntry, PackMode,
        PackRequest, PackSource, PackStyle, ReadCursor, ReadRequest, ReadTarget,
    },
    workspace::Host,
};

#[derive(Args, Debug)]
pub struct ReadArgs {
    /// What to read, in priority order: a definition's NAME (`join`, `posixpath.join`,
    /// `Class.method`, `Type::method`), FILE:LINE or FILE:LINE:COLUMN (the definition
    /// there), FILE:START-END (lines), or FILE (the whole file; its definitions with
    /// --outline).
    #[arg(required = true, value_name = "TARGET")]
    pub targets: Vec<String>,
    /// For FILE targets: the file's definitions with their lines and token costs, not its
    /// text.
    #[arg(long)]
    pub outline: bool,
    /// Lines of context before and after each definition.
    #[arg(long, short = 'C', value_name = "N", default_value_t = 0)]
    pub context: u32,
    /// Look names up only in files under this workspace-relative prefix.
    #[arg(long, value_name = "PREFIX")]
    pub path_prefix: Option<String>,
    /// At most this many tokens in all; what does not fit is listed as left out.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_tokens: usize,
    /// The encoding tokens are counted in.
    #[arg(long, value_name = "NAME", default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
    /// Continue where an earlier answer stopped (its `next_cursor`, TARGET:LINE).
    #[arg(long, value_name = "CURSOR", value_parser = parse_cursor)]
    pub cursor: Option<ReadCursor>,
}

#[derive(Args, Debug)]
pub struct TokensArgs {
    /// Files of the workspace [default: every file the workspace indexes].
    pub paths: Vec<std::path::PathBuf>,
    /// The encoding tokens are counted in.
    #[arg(long, value_name = "NAME", default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
}

#[derive(Args, Debug)]
pub struct BootstrapArgs {
    /// At most this many tokens of text.
    #[arg(long, value_name = "N", default_value_t = 4_000)]
    pub max_tokens: usize,
    /// The encoding tokens are counted in.
    #[arg(long, value_name = "NAME", default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
}

pub fn bootstrap(g: &GlobalArgs, args: &BootstrapArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let budget = Budget {
        encoding: args.encoding,
        max_tokens: args.max_tokens,
    };
    let answer = host.bootstrap(&budget).map_err(cancelled)?;
    eprintln!("{} tokens ({})", answer.tokens, answer.encoding.as_str());
    let out = if g.json {
        format!("{}\n", serde_json::to_string_pretty(&answer)?)
    } else {
        answer.text
    };
    Ok((out, ExitCode::SUCCESS))
}

#[derive(Args, Debug)]
pub struct PackArgs {
    /// Required entries, in full: files or definitions' names (`Class.method`). All go in,
    /// or nothing does (REQUIRED_UNAVAILABLE, REQUIRED_OVER_BUDGET).
    #[arg(value_name = "ENTRY")]
    pub required: Vec<String>,
    /// A required entry as a skeleton (bodies elided). Repeatable.
    #[arg(long, value_name = "ENTRY")]
    pub skeleton: Vec<String>,
    /// An optional entry, in full when it fits, else as a skeleton, else left out;
    /// ENTRY=PRIORITY (0-100, default 50) goes in before lower ones. Repeatable.
    #[arg(long, value_name = "ENTRY[=PRIORITY]")]
    pub optional: Vec<String>,
    /// At most this many tokens in all.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub max_tokens: usize,
    /// The encoding tokens are counted in.
    #[arg(long, value_name = "NAME", default_value = "o200k_base", value_parser = parse_encoding)]
    pub encoding: Encoding,
    /// How entries are laid out: markdown, xml, json or plain.
    #[arg(long, value_name = "STYLE", default_value = "markdown", value_parser = parse_style)]
    pub style: PackStyle,
}

fn parse_style(name: &str) -> Result<PackStyle, String> {
    serde_json::from_value(serde_json::Value::String(name.into()))
        .map_err(|_| "one of: markdown, xml, json, plain".to_string())
}

pub fn pack(g: &GlobalArgs, args: &PackArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let source = |entry: &str| match indexed_file(g, &host, entry) {
        Some(file) => PackSource::File(file),
        None if Path::new(entry).is_file() || entry.contains('/') => {
            PackSource::Missing(entry.to_string())
        }
        None => PackSource::Symbol(entry.to_string()),
    };
    let mut entries = Vec::new();
    let required = |entry: &String, mode| PackEntry {
        task: 0,
        source: source(entry),
        mode,
        required: true,
        priority: 0,
    };
    entries.extend(args.required.iter().map(|e| required(e, PackMode::Full)));
    entries.extend(
        args.skeleton
            .iter()
            .map(|e| required(e, PackMode::Skeleton)),
    );
    for optional in &args.optional {
        let (entry, priority) = match optional.rsplit_once('=') {
            Some((entry, priority)) => {
                let priority = priority
                    .parse::<u8>()
                    .ok()
                    .filter(|p| *p <= 100)
                    .ok_or_else(|| {
                        CliError(format!(
                            "INVALID_ARGUMENT: {optional:?}: a priority is 0 to 100"
                        ))
                    })?;
                (entry, priority)
            }
            None => (optional.as_str(), 50),
        };
        entries.push(PackEntry {
            task: 0,
            source: source(entry),
            mode: PackMode::Either,
            required: false,
            priority,
        });
    }
    let request = PackRequest {
        entries,
        budget: Budget {
            encoding: args.encoding,
            max_tokens: args.max_tokens,
        },
        style: args.style,
        path_prefix: None,
    };
    let answer = host
        .analysis()
        .pack(&request)
        .map_err(cancelled)?
        .map_err(|e| CliError(format!("{}: {e}", e.code())))?;
    eprintln!("{} tokens ({})", answer.tokens, answer.encoding.as_str());
    for omitted in &answer.omitted {
        eprintln!("left out: {} ({})", omitted.target, omitted.reason);
    }
    let out = if g.json {
        format!("{}\n", serde_json::to_string_pretty(&answer)?)
    } else {
        answer.text
    };
    Ok((out, ExitCode::SUCCESS))
}

fn parse_encoding(name: &str) -> Result<Encoding, String> {
    Encoding::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Encoding::ALL.iter().map(|e| e.as_str()).collect();
        format!("unknown encoding (known: {})", known.join(", "))
    })
}

fn parse_cursor(text: &str) -> Result<ReadCursor, String> {
    ReadCursor::parse(text).ok_or_else(|| "a cursor is TARGET:LINE, as `2:140`".into())
}

pub fn read(g: &GlobalArgs, args: &ReadArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let targets = args
        .targets
        .iter()
        .map(|t| read_target(g, &host, t, args.outline))
        .collect::<Result<Vec<_>, _>>()?;
    let request = ReadRequest {
        targets,
        context_lines: args.context,
        path_prefix: args.path_prefix.clone(),
        names: NameScope::Workspace,
        budget: Budget {
            encoding: args.encoding,
            max_tokens: args.max_tokens,
        },
        cursor: args.cursor,
    };
    let answer = host
        .analysis()
        .read(&request)
        .map_err(cancelled)?
        .map_err(|e| CliError(format!("{}: {e}", e.code())))?;
    eprintln!("{} tokens ({})", answer.tokens, answer.encoding.as_str());
    if let Some(cursor) = &answer.next_cursor {
        eprintln!("left out for the budget: continue with --cursor {cursor}");
    }
    let out = if g.json {
        format!("{}\n", serde_json::to_string_pretty(&answer)?)
    } else {
        answer.text
    };
    Ok((out, ExitCode::SUCCESS))
}

/// A command-line target: a position or line range in a workspace file, a workspace file,
/// or else a name.
fn read_target(
    g: &GlobalArgs,
    host: &Host,
    target: &str,
    outline: bool,
) -> Result<ReadTarget, CliError> {
    if let Some(file) = indexed_file(g, host, target) {
        return Ok(match outline {
            true => ReadTarget::Directory(file),
            false => ReadTarget::File(file),
        });
    }
    let Some((path, place)) = target.split_once(':') else {
        return Ok(ReadTarget::Symbol(target.to_string()));
    };
    let Some(file) = indexed_file(g, host, path) else {
        // `Type::method` and other names with colons.
        return Ok(ReadTarget::Symbol(target.to_string()));
    };
    let number = |s: &str| s.parse::<u32>().ok().filter(|&n| n >= 1);
    let invalid = || {
        CliError(format!(
            "INVALID_TARGET: {target:?}: after FILE: comes LINE, LINE:COLUMN or START-END (1-based)"
        ))
    };
    if let Some((start, end)) = place.split_once('-') {
        let (start, end) = (
            number(start).ok_or_else(invalid)?,
            number(end).ok_or_else(invalid)?,
        );
        return Ok(ReadTarget::Lines { file, start, end });
    }
    let (line, column) = match place.split_once(':') {
        Some((line, column)) => (line, Some(column)),
        None => (place, None),
    };
    let line = number(line).ok_or_else(invalid)?;
    let Some(column) = column else {
        return Ok(ReadTarget::Line { file, line });
    };
    let column = number(column).ok_or_else(invalid)?;
    let index = host.analysis().line_index(file).map_err(cancelled)?;
    let offset = index.offset(line - 1, column - 1, ColumnUnit::Chars);
    Ok(ReadTarget::At { file, offset })
}

fn indexed_file(g: &GlobalArgs, host: &Host, path: &str) -> Option<FileId> {
    let located = super::locate(g, Path::new(path));
    located
        .is_file()
        .then(|| workspace_relative(g, &located))
        .flatten()
        .and_then(|rel| host.file(&rel))
}

pub fn tokens(g: &GlobalArgs, args: &TokensArgs) -> Result<(String, ExitCode), CliError> {
    let host = super::load_files(g)?;
    let analysis = host.analysis();
    let files: Vec<FileId> = match args.paths.is_empty() {
        true => analysis.files().collect(),
        false => args
            .paths
            .iter()
            .map(|p| super::workspace_file(g, &host, p))
            .collect::<Result<_, _>>()?,
    };
    let mut rows = Vec::with_capacity(files.len());
    let mut total = 0u64;
    for file in files {
        let tokens = analysis
            .file_tokens(file, args.encoding)
            .map_err(cancelled)?;
        total += u64::from(tokens);
        rows.push((analysis.file_path(file).to_string(), tokens));
    }
    let out = if g.json {
        let files: Vec<_> = rows
            .iter()
            .map(|(path, tokens)| serde_json::json!({ "path": path, "tokens": tokens }))
            .collect();
        let answer = serde_json::json!({
            "encoding": args.encoding.as_str(),
            "total": total,
            "files": files,
        });
        format!("{answer}\n")
    } else {
        let mut out: String = rows
            .iter()
            .map(|(path, tokens)| format!("{tokens:>8} {path}\n"))
            .collect();
        out.push_str(&format!("{total:>8} total ({})\n", args.encoding.as_str()));
        out
    };
    Ok((out, ExitCode::SUCCESS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_and_encodings_parse_or_say_what_they_expect() {
        assert_eq!(
            parse_cursor("2:140"),
            Ok(ReadCursor {
                target: 2,
                line: 140
            })
        );
        assert!(parse_cursor("2").is_err());
        assert!(parse_cursor("2:0").is_err());
        assert_eq!(parse_encoding("cl100k_base"), Ok(Encoding::Cl100kBase));
        assert_eq!(
            parse_encoding("gpt2").unwrap_err(),
            "unknown encoding (known: o200k_base, cl100k_base)"
        );
    }
}
