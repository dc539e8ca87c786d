//! `sextant scip`: the workspace (or the files under PATHS) as a SCIP index, written to
//! `--output` (default `index.scip`) atomically, or to standard output with `-`; with
//! `--shard-by`, one index per project or top-level directory in the directory `--output`
//! names, with a manifest of them (`shards.json`).

use std::{
    io::Write as _,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::{Args, ValueEnum};

use super::{CliError, GlobalArgs, cancelled, load_workspace_unindexed, locate};
use crate::{
    ide::{self, ErrorCode, ScipError, ScipExport, ScipRequest, ScipShard, ScipShardBy},
    workspace,
};

#[derive(Args, Debug)]
pub struct ScipArgs {
    /// Files or directories of the workspace to export (relative to the current directory
    /// or to --root) [default: the whole workspace].
    pub paths: Vec<PathBuf>,
    /// Where to write the index; `-` for standard output. With --shard-by, the directory
    /// of the shards (created when missing) [default: index.scip, or scip-shards sharded].
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// One index per project (a manifest's directory) or per top-level directory, each
    /// with its directory as its root, and `shards.json` listing them.
    #[arg(long, value_name = "SPLIT")]
    pub shard_by: Option<ShardBy>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ShardBy {
    Project,
    Directory,
}

impl ShardBy {
    fn split(self) -> ScipShardBy {
        match self {
            ShardBy::Project => ScipShardBy::Project,
            ShardBy::Directory => ScipShardBy::Directory,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            ShardBy::Project => "project",
            ShardBy::Directory => "directory",
        }
    }
}

/// The manifest of a sharded export, in its output directory.
const MANIFEST: &str = "shards.json";

/// Writes the index (or the shards) and prints a one-line summary on stderr (`--json`: on
/// stdout).
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
    if let Some(by) = args.shard_by {
        let output = args
            .output
            .clone()
            .unwrap_or_else(|| PathBuf::from("scip-shards"));
        return run_sharded(g, &root, &paths, by, &output);
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from("index.scip"));
    // Refused before the index is built: a temporary file beside the output, which the
    // finished index replaces the output with (a reader never sees half an index).
    let to_stdout = output == Path::new("-");
    let staged = match to_stdout {
        true => None,
        false => Some(stage(&output)?),
    };
    let host = load_workspace_unindexed(g)?;
    let analysis = host.analysis();
    let shards = analysis.scip_shards(&paths, None).map_err(cancelled)?;
    let [shard] = &shards.map_err(|e| scip_failed(e, "-"))?[..] else {
        return Err(CliError(format!(
            "{}: an export without a split made other than one index",
            ErrorCode::Internal
        )));
    };
    let request = scip_request(&root, shard);
    let written = match staged {
        None => {
            let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
            let export = analysis
                .scip(shard, &request, &mut stdout)
                .map_err(cancelled)?;
            let export = export
                .and_then(|export| Ok(stdout.flush().map(|()| export)?))
                .map_err(|e| scip_failed(e, "standard output"))?;
            ("-".to_string(), export)
        }
        Some(file) => {
            let shown = output.display().to_string();
            let export = write_index(&analysis, shard, &request, file, &output, &shown)?;
            (shown, export)
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

/// The metadata of `shard`'s index: its directory as the project root.
fn scip_request(root: &Path, shard: &ScipShard) -> ScipRequest {
    ScipRequest {
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        arguments: std::env::args().skip(1).collect(),
        project_root: match shard.root.as_str() {
            "" => file_uri(root),
            directory => file_uri(&root.join(directory)),
        },
    }
}

/// Builds `shard`'s index into `staged` and renames it over `output` when complete.
fn write_index(
    analysis: &ide::Analysis,
    shard: &ScipShard,
    request: &ScipRequest,
    staged: tempfile::NamedTempFile,
    output: &Path,
    shown: &str,
) -> Result<ScipExport, CliError> {
    let mut buffered = std::io::BufWriter::new(staged);
    let export = analysis
        .scip(shard, request, &mut buffered)
        .map_err(cancelled)?;
    let export = export.map_err(|e| scip_failed(e, shown))?;
    let refused =
        |e: &dyn std::fmt::Display| CliError(format!("{}: {shown}: {e}", ErrorCode::WriteFailed));
    let file = buffered.into_inner().map_err(|e| refused(e.error()))?;
    file.as_file().sync_all().map_err(|e| refused(&e))?;
    file.persist(output).map_err(|e| refused(&e.error))?;
    Ok(export)
}

/// One index per shard in the directory `output`, each written atomically, then the
/// manifest; shards an earlier export listed that this one does not write are removed.
fn run_sharded(
    g: &GlobalArgs,
    root: &Path,
    paths: &[String],
    by: ShardBy,
    output: &Path,
) -> Result<(String, ExitCode), CliError> {
    if output == Path::new("-") {
        return Err(CliError(format!(
            "{}: --shard-by writes a directory of indexes, not standard output",
            ErrorCode::InvalidArgument
        )));
    }
    let (earlier, created) = prepare_shard_directory(output)?;
    let host = load_workspace_unindexed(g)?;
    let analysis = host.analysis();
    let shown = output.display().to_string();
    let shards = analysis
        .scip_shards(paths, Some(by.split()))
        .map_err(cancelled)?
        .map_err(|e| {
            // Nothing is written: the directory made for the shards goes too (it is empty).
            if created {
                let _ = std::fs::remove_dir(output);
            }
            scip_failed(e, &shown)
        })?;
    let mut listed = Vec::new();
    let mut total = ScipExport::default();
    for shard in &shards {
        let file = shard_file_name(&shard.root);
        let path = output.join(&file);
        let shown = path.display().to_string();
        let request = scip_request(root, shard);
        let export = write_index(&analysis, shard, &request, stage(&path)?, &path, &shown)?;
        total.documents += export.documents;
        total.occurrences += export.occurrences;
        total.symbols += export.symbols;
        total.bytes += export.bytes;
        listed.push(serde_json::json!({
            "root": match shard.root.as_str() { "" => ".", root => root },
            "project_root": request.project_root,
            "file": file,
            "documents": export.documents,
            "occurrences": export.occurrences,
            "symbols": export.symbols,
            "bytes": export.bytes,
        }));
    }
    let manifest = serde_json::json!({ "shard_by": by.as_str(), "shards": listed });
    let manifest_path = output.join(MANIFEST);
    let manifest_shown = manifest_path.display().to_string();
    let refused = |e: &dyn std::fmt::Display| {
        CliError(format!("{}: {manifest_shown}: {e}", ErrorCode::WriteFailed))
    };
    let mut staged = stage(&manifest_path)?;
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest is JSON");
    staged
        .write_all(format!("{text}\n").as_bytes())
        .and_then(|()| staged.as_file().sync_all())
        .map_err(|e| refused(&e))?;
    staged
        .persist(&manifest_path)
        .map_err(|e| refused(&e.error))?;
    let written: Vec<String> = shards.iter().map(|s| shard_file_name(&s.root)).collect();
    for stale in earlier.iter().filter(|name| !written.contains(name)) {
        // Listed by the earlier manifest and checked to be sextant's own when listed.
        let _ = std::fs::remove_file(output.join(stale));
    }
    let summary = format!(
        "{} shards, {} documents, {} occurrences, {} symbols, {} bytes written to {shown}",
        shards.len(),
        total.documents,
        total.occurrences,
        total.symbols,
        total.bytes
    );
    if g.json {
        let json = serde_json::json!({
            "output": shown,
            "shard_by": by.as_str(),
            "shards": manifest["shards"],
            "documents": total.documents,
            "occurrences": total.occurrences,
            "symbols": total.symbols,
            "bytes": total.bytes,
        });
        return Ok((format!("{json}\n"), ExitCode::SUCCESS));
    }
    eprintln!("sextant: {summary}");
    Ok((String::new(), ExitCode::SUCCESS))
}

/// The file of the shard rooted at `root` (workspace-relative, `""` the workspace root):
/// the root with bytes other than letters, digits, `.`, `-` and `_` percent-encoded (a
/// leading `.` or `_` too), `.scip` appended; the workspace root's shard is `_root.scip`.
/// Distinct roots give distinct names.
fn shard_file_name(root: &str) -> String {
    if root.is_empty() {
        return "_root.scip".to_string();
    }
    let mut name = String::new();
    for (i, byte) in root.bytes().enumerate() {
        match byte {
            b'.' | b'_' if i == 0 => name.push_str(&format!("%{byte:02X}")),
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'.' | b'-' | b'_' => name.push(byte as char),
            _ => name.push_str(&format!("%{byte:02X}")),
        }
    }
    name.push_str(".scip");
    name
}

/// Makes `output` a directory shards may be written into, and returns the shard files an
/// earlier export's manifest there lists and whether the directory was made now:
/// `WRITE_REFUSED` when it is not a directory, or holds anything but sextant's own (its
/// manifest, indexes sextant wrote, temporary files an interrupted export left), since the
/// export replaces what it finds there.
fn prepare_shard_directory(output: &Path) -> Result<(Vec<String>, bool), CliError> {
    let refused = |reason: String| {
        CliError(format!(
            "{}: {}: {reason}",
            ErrorCode::WriteRefused,
            output.display()
        ))
    };
    match std::fs::symlink_metadata(output) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(output).map_err(|e| refused(e.to_string()))?;
            return Ok((Vec::new(), true));
        }
        Err(e) => return Err(refused(e.to_string())),
        Ok(_) if !output.is_dir() => return Err(refused("is not a directory".into())),
        Ok(_) => {}
    }
    let entries = std::fs::read_dir(output).map_err(|e| refused(e.to_string()))?;
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| refused(e.to_string()))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    let foreign = |name: &str| {
        refused(format!(
            "holds {name}, which is not a shard of an earlier export (shards go into a new \
             directory or one sextant wrote them into)"
        ))
    };
    let mut earlier = Vec::new();
    for name in &names {
        let path = output.join(name);
        let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if !regular {
            return Err(foreign(name));
        }
        if name == MANIFEST {
            earlier = listed_shards(&path).ok_or_else(|| foreign(name))?;
        } else if name.ends_with(".scip") {
            let sextants = std::fs::File::open(&path)
                .map(std::io::BufReader::new)
                .is_ok_and(|mut file| ide::scip_written_by_sextant(&mut file));
            if !sextants {
                return Err(foreign(name));
            }
        } else if !(name.starts_with('.') && name.ends_with(".tmp")) {
            return Err(foreign(name));
        }
    }
    // Only a listed file that is still sextant's own index is ever removed.
    earlier.retain(|name| names.contains(name) && name.ends_with(".scip"));
    Ok((earlier, false))
}

/// The shard files a manifest sextant wrote lists, or `None` when `path` is not one.
fn listed_shards(path: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(path).ok()?;
    let manifest: serde_json::Value = serde_json::from_str(&text).ok()?;
    manifest.get("shard_by")?.as_str()?;
    manifest
        .get("shards")?
        .as_array()?
        .iter()
        .map(|shard| {
            let file = shard.get("file")?.as_str()?;
            (!file.contains('/')).then(|| file.to_string())
        })
        .collect()
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
    fn shard_files_are_named_after_their_roots() {
        assert_eq!(shard_file_name(""), "_root.scip");
        assert_eq!(shard_file_name("py"), "py.scip");
        assert_eq!(shard_file_name("crates/my_geo"), "crates%2Fmy_geo.scip");
        assert_eq!(shard_file_name("_root"), "%5Froot.scip");
        assert_eq!(shard_file_name(".config/a b"), "%2Econfig%2Fa%20b.scip");
        assert_eq!(shard_file_name("100%"), "100%25.scip");
    }

    #[test]
    fn file_uris_are_percent_encoded() {
        assert_eq!(file_uri(Path::new("/a b/c")), "file:///a%20b/c");
        assert_eq!(file_uri(Path::new("/x/y_z.1")), "file:///x/y_z.1");
    }
}
