//! `sextant scip`: the workspace (or the files under PATHS) as a SCIP index, written to
//! `--output` (default `index.scip`) atomically, or to standard output with `-`.

use std::{
    io::Write as _,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::Args;

use super::{CliError, GlobalArgs, cancelled, load_workspace_unindexed, locate};
use crate::{
    ide::{ErrorCode, ScipError, ScipExport, ScipRequest},
    workspace,
};

#[derive(Args, Debug)]
pub struct ScipArgs {
    /// Files or directories of the workspace to export (relative to the current directory
    /// or to --root) [default: the whole workspace].
    pub paths: Vec<PathBuf>,
    /// Where to write the index; `-` for standard output.
    #[arg(long, short = 'o', value_name = "FILE", default_value = "index.scip")]
    pub output: PathBuf,
}

/// Writes the index and prints a one-line summary on stderr (`--json`: on stdout).
pub fn run(g: &GlobalArgs, args: &ScipArgs) -> Result<(String, ExitCode), CliError> {
    let root = std::fs::canonicalize(g.root()).map_err(|e| {
        CliError(format!(
            "{}: {}: {e}",
            ErrorCode::NotFound,
            g.root().display()
        ))
    })?;
    let mut paths = Vec::new();
    for path in &args.paths {
        paths.push(selected_path(g, &root, path)?);
    }
    // Refused before the index is built: a temporary file beside the output, which the
    // finished index replaces the output with (a reader never sees half an index).
    let to_stdout = args.output == Path::new("-");
    let staged = match to_stdout {
        true => None,
        false => Some(stage(&args.output)?),
    };
    let host = load_workspace_unindexed(g)?;
    let request = ScipRequest {
        paths,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        arguments: std::env::args().skip(1).collect(),
        project_root: file_uri(&root),
    };
    let analysis = host.analysis();
    let written = match staged {
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            let export = analysis.scip(&request, &mut stdout).map_err(cancelled)?;
            let export = export
                .and_then(|export| Ok(stdout.flush().map(|()| export)?))
                .map_err(|e| scip_failed(e, "standard output"))?;
            ("-".to_string(), export)
        }
        Some(file) => {
            let output = args.output.display().to_string();
            let mut buffered = std::io::BufWriter::new(file);
            let export = analysis.scip(&request, &mut buffered).map_err(cancelled)?;
            let export = export.map_err(|e| scip_failed(e, &output))?;
            let refused = |e: &dyn std::fmt::Display| {
                CliError(format!("{}: {output}: {e}", ErrorCode::WriteFailed))
            };
            let file = buffered.into_inner().map_err(|e| refused(e.error()))?;
            file.as_file().sync_all().map_err(|e| refused(&e))?;
            file.persist(&args.output).map_err(|e| refused(&e.error))?;
            (output, export)
        }
    };
    let (written, export) = written;
    let ScipExport {
        documents,
        occurrences,
        symbols,
        bytes,
    } = export;
    let summary = format!(
        "{documents} documents, {occurrences} occurrences, {symbols} symbols, {bytes} bytes written to {written}"
    );
    if g.json {
        let json = serde_json::json!({
            "output": written,
            "documents": documents,
            "occurrences": occurrences,
            "symbols": symbols,
            "bytes": bytes,
        });
        // With `-o -` standard output holds the index: the summary goes to stderr.
        if to_stdout {
            eprintln!("{json}");
            return Ok((String::new(), ExitCode::SUCCESS));
        }
        return Ok((format!("{json}\n"), ExitCode::SUCCESS));
    }
    eprintln!("sextant: {summary}");
    Ok((String::new(), ExitCode::SUCCESS))
}

/// A path that selects no file (nothing written: `NOT_FOUND`), or a failed write.
fn scip_failed(error: ScipError, output: &str) -> CliError {
    match error {
        ScipError::Unmatched(path) => CliError(format!(
            "{}: {path}: no file the workspace indexes is there (see `sextant files`)",
            ErrorCode::NotFound
        )),
        ScipError::Write(e) => CliError(format!("{}: {output}: {e}", ErrorCode::WriteFailed)),
    }
}

/// A temporary file in the output's directory (so the rename is atomic), or why there can
/// be none (`WRITE_REFUSED`).
fn stage(output: &Path) -> Result<tempfile::NamedTempFile, CliError> {
    let refused = |reason: String| {
        CliError(format!(
            "{}: {}: {reason}",
            ErrorCode::WriteRefused,
            output.display()
        ))
    };
    if output.is_dir() {
        return Err(refused("is a directory".into()));
    }
    let name = output
        .file_name()
        .ok_or_else(|| refused("names no file".into()))?;
    let directory = match output.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !directory.is_dir() {
        return Err(refused(format!(
            "the directory {} does not exist",
            directory.display()
        )));
    }
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let staged = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .tempfile_in(directory)
        .map_err(|e| refused(e.to_string()))?;
    // The new index keeps an existing output's permissions; a new one is readable by all,
    // as a file the user's shell would create (the temporary file is private).
    let permissions = match std::fs::metadata(output) {
        Ok(existing) => existing.permissions(),
        Err(_) => {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::Permissions::from_mode(0o644)
        }
    };
    std::fs::set_permissions(staged.path(), permissions).map_err(|e| refused(e.to_string()))?;
    Ok(staged)
}

/// A path the user names as the workspace names it: `NOT_FOUND` when it does not exist,
/// `PATH_OUTSIDE_WORKSPACE` when it is not under the root.
fn selected_path(g: &GlobalArgs, root: &Path, path: &Path) -> Result<String, CliError> {
    let located = locate(g, path);
    let canonical = located.canonicalize().map_err(|_| {
        CliError(format!(
            "{}: {}: does not exist",
            ErrorCode::NotFound,
            path.display()
        ))
    })?;
    workspace::relative_path(root, &canonical).ok_or_else(|| {
        CliError(format!(
            "{}: {}: not inside the workspace root {}",
            ErrorCode::PathOutsideWorkspace,
            path.display(),
            root.display()
        ))
    })
}

/// `path` (absolute) as a `file://` URI, bytes outside the unreserved set and `/`
/// percent-encoded.
fn file_uri(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut uri = String::from("file://");
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_are_percent_encoded() {
        assert_eq!(file_uri(Path::new("/a b/c")), "file:///a%20b/c");
        assert_eq!(file_uri(Path::new("/x/y_z.1")), "file:///x/y_z.1");
    }
}
