//! SX003 in JavaScript, TypeScript and TSX: relative or `paths`-mapped imports that lead to
//! no workspace file.

use std::{collections::HashSet, sync::Arc};

use crate::{
    checks::{CheckContext, Diagnostic, registry::ids, sx005_undefined_name::ecmascript::is_bound},
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::{self, EcmascriptModules, FileImports, ImportSummary, ecmascript_modules},
        names::{FileNames, Role},
        projects::paths,
    },
    syntax::TextRange,
};

pub(crate) fn check(ctx: &CheckContext) -> Vec<Diagnostic> {
    unresolved_imports(
        ctx.db,
        ctx.workspace,
        ctx.file,
        ctx.names(),
        &ctx.symbols().imports,
    )
}

/// Imports that name a workspace path no file is: relative specifiers (`./a`, `../b`) and
/// specifiers a tsconfig's `paths` maps, with no extension or a JavaScript or TypeScript
/// one (`./style.css` names a file sextant does not index).
fn unresolved_imports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut reported: HashSet<(TextRange, &str)> = HashSet::new();
    let modules: Arc<EcmascriptModules> = ecmascript_modules(db, workspace);
    let importer = file.path(db);
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let spec = summary.module.as_str();
        let relative =
            spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
        // A path above the workspace's root is outside what sextant can judge.
        let inside = !relative || paths::join(paths::parent(importer), spec).is_some();
        if !(relative || modules.is_path_mapped(importer, spec))
            || !inside
            || !names_a_script(spec)
            || reported.contains(&(statement, spec))
            || calls_a_local_require(names, statement)
        {
            continue;
        }
        let module_only = ImportSummary {
            module: summary.module.clone(),
            ..ImportSummary::default()
        };
        if !matches!(
            imports::resolve(db, workspace, file, &module_only),
            imports::Target::Unresolved
        ) {
            continue;
        }
        reported.insert((statement, spec));
        found.push(Diagnostic::new(
            ids::UNRESOLVED_IMPORT,
            statement,
            format!("no module '{spec}' in the workspace"),
        ));
    }
    found
}

/// Whether the statement calls a `require` the file binds itself (a bundle's module
/// wrapper `function (require, module, exports) { … }`), not Node's.
pub(crate) fn calls_a_local_require(names: &FileNames, statement: TextRange) -> bool {
    names.occurrences_named("require").any(|o| {
        let occurrence = names.occurrence(o);
        occurrence.role == Role::Call
            && statement.contains_range(occurrence.range)
            && is_bound(names, occurrence.scope, "require")
    })
}

/// Extensions of files a bundler imports that sextant does not index.
const ASSET_EXTENSIONS: &[&str] = &[
    "css", "scss", "sass", "less", "styl", "pcss", "json", "json5", "jsonc", "svg", "png", "jpg",
    "jpeg", "gif", "webp", "avif", "ico", "bmp", "wasm", "html", "htm", "txt", "md", "mdx", "yaml",
    "yml", "toml", "xml", "csv", "graphql", "gql", "vue", "svelte", "astro", "woff", "woff2",
    "ttf", "eot", "otf", "mp3", "mp4", "webm", "wav", "ogg", "node", "glsl", "frag", "vert",
    "wgsl", "hbs", "ejs", "pug", "sql", "proto",
];

/// A specifier that may name a script: its last part has no extension, or one that is not a
/// stylesheet's, an image's, JSON's… (`./user.service` is `user.service.ts`); not a
/// loader's (`./a?raw`, `text!./b`).
fn names_a_script(spec: &str) -> bool {
    if spec.contains(['?', '!', '#']) {
        return false;
    }
    let last = spec.rsplit('/').next().unwrap_or(spec);
    match last.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            !ASSET_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        }
        _ => true,
    }
}
/// `.d.ts`, `.d.mts`, `.d.cts`: declarations of what is defined elsewhere.
pub(crate) fn is_declaration_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    // `a.d.ts`, and `styles.d.css.ts` (declarations for another kind of file).
    [".ts", ".mts", ".cts"]
        .iter()
        .any(|ext| name.ends_with(ext))
        && name.contains(".d.")
}
