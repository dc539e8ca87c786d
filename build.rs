//! Embeds every `queries/<lang>/<name>.scm` file into the binary, so that adding a query
//! file needs no Rust change. The generated table is `OUT_DIR/embedded_queries.rs`.
//!
//! Also stamps the build (`SEXTANT_BUILD_STAMP`): a hash of everything an analysis result
//! can depend on (sources, queries, the grammar registry, the lock file), so that the
//! persistent cache never serves a record an older or different build wrote.

use std::{
    env,
    fmt::Write,
    fs,
    hash::{DefaultHasher, Hash, Hasher},
    path::{Path, PathBuf},
};

fn main() {
    let manifest = env::var("CARGO_MANIFEST_DIR").unwrap();
    let queries = Path::new(&manifest).join("queries");
    println!("cargo::rerun-if-changed={}", queries.display());
    println!("cargo::rerun-if-changed=grammars/languages.toml");

    let mut entries = Vec::new();
    if let Ok(langs) = fs::read_dir(&queries) {
        for lang in langs.flatten() {
            let lang_dir = lang.path();
            if !lang_dir.is_dir() {
                continue;
            }
            println!("cargo::rerun-if-changed={}", lang_dir.display());
            for file in fs::read_dir(&lang_dir).unwrap().flatten() {
                let path = file.path();
                if path.extension().is_some_and(|e| e == "scm") {
                    let lang_id = lang.file_name().to_string_lossy().into_owned();
                    let name = path.file_stem().unwrap().to_string_lossy().into_owned();
                    entries.push((lang_id, name, path));
                }
            }
        }
    }
    entries.sort();

    let mut out = String::from(
        "/// (language id, query name, query source) for every file under `queries/`.\n\
         pub static EMBEDDED_QUERIES: &[(&str, &str, &str)] = &[\n",
    );
    for (lang, name, path) in &entries {
        writeln!(
            out,
            "    ({lang:?}, {name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    fs::write(
        Path::new(&env::var("OUT_DIR").unwrap()).join("embedded_queries.rs"),
        out,
    )
    .unwrap();

    stamp_build(Path::new(&manifest));
}

/// Sets `SEXTANT_BUILD_STAMP` to a hash of the files that decide what analysis computes.
fn stamp_build(manifest: &Path) {
    let inputs = [
        "src",
        "queries",
        "grammars",
        "vendor",
        "build.rs",
        "Cargo.lock",
    ];
    let mut files = Vec::new();
    for input in inputs {
        let path = manifest.join(input);
        println!("cargo::rerun-if-changed={}", path.display());
        collect_files(&path, &mut files);
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in &files {
        file.strip_prefix(manifest)
            .unwrap_or(file)
            .hash(&mut hasher);
        fs::read(file).unwrap_or_default().hash(&mut hasher);
    }
    println!(
        "cargo::rustc-env=SEXTANT_BUILD_STAMP={:016x}",
        hasher.finish()
    );
}

fn collect_files(path: &Path, files: &mut Vec<PathBuf>) {
    match fs::read_dir(path) {
        Ok(entries) => {
            for entry in entries.flatten() {
                collect_files(&entry.path(), files);
            }
        }
        Err(_) if path.is_file() => files.push(path.to_path_buf()),
        Err(_) => {}
    }
}
