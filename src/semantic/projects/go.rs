//! `go.mod` (module path, go version, `require`, `replace`) and `go.work` (`use`, `replace`), read
//! with the syntax of Go's `modfile`: one directive per line or a parenthesised block,
//! `//` comments, quoted or back-quoted strings.

use super::{GoModuleDetails, GoReplace, GoRequire, GoWorkDetails, Project, ProjectKind, paths};

const GO_MOD_VERBS: &[&str] = &[
    "module",
    "go",
    "toolchain",
    "godebug",
    "require",
    "exclude",
    "replace",
    "retract",
    "tool",
    "ignore",
];
const GO_WORK_VERBS: &[&str] = &["go", "toolchain", "godebug", "use", "replace"];

pub fn parse_go_mod(path: &str, text: &str) -> Project {
    let mut project = Project::new(ProjectKind::GoModule, path);
    let dir = paths::parent(path);
    let mut details = GoModuleDetails::default();
    let mut errors = Vec::new();
    let mut module = None;
    for_each_directive(
        text,
        GO_MOD_VERBS,
        &mut errors,
        |verb, args, line, errors| match verb {
            "module" => match args {
                [name] => module = Some(name.clone()),
                _ => errors.push(format!("line {line}: usage: module module/path")),
            },
            "go" => details.go_version = go_version(args, line, errors),
            "replace" => details.replace.extend(replace(dir, args, line, errors)),
            "require" => match args {
                [path, version] => details.requires.push(GoRequire {
                    path: path.clone(),
                    version: version.clone(),
                }),
                _ => errors.push(format!("line {line}: usage: require module/path v1.2.3")),
            },
            _ => {}
        },
    );
    if module.is_none() && errors.is_empty() {
        errors.push("no module directive".into());
    }
    project.name = module;
    if !errors.is_empty() {
        project.error = Some(errors.join("; "));
    }
    project.go_module = Some(details);
    project
}

pub fn parse_go_work(path: &str, text: &str) -> Project {
    let mut project = Project::new(ProjectKind::GoWork, path);
    let dir = paths::parent(path);
    let mut details = GoWorkDetails::default();
    let mut errors = Vec::new();
    for_each_directive(
        text,
        GO_WORK_VERBS,
        &mut errors,
        |verb, args, line, errors| match verb {
            "go" => details.go_version = go_version(args, line, errors),
            "use" => match args {
                [d] => details.use_dirs.push(paths::resolve_dir(dir, d)),
                _ => errors.push(format!("line {line}: usage: use local/dir")),
            },
            "replace" => details.replace.extend(replace(dir, args, line, errors)),
            _ => {}
        },
    );
    if !errors.is_empty() {
        project.error = Some(errors.join("; "));
    }
    project.go_work = Some(details);
    project
}

fn go_version(args: &[String], line: usize, errors: &mut Vec<String>) -> Option<String> {
    match args {
        [version] => Some(version.clone()),
        _ => {
            errors.push(format!("line {line}: usage: go 1.23"));
            None
        }
    }
}

/// `old [version] => new [version]`.
fn replace(dir: &str, args: &[String], line: usize, errors: &mut Vec<String>) -> Option<GoReplace> {
    let arrow = args.iter().position(|a| a == "=>");
    let (old, new) = match arrow {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (&args[..0], &args[..0]),
    };
    if !(1..=2).contains(&old.len()) || !(1..=2).contains(&new.len()) {
        errors.push(format!(
            "line {line}: usage: replace module/path [v1.2.3] => other/module v1.4 | local/dir"
        ));
        return None;
    }
    let target = &new[0];
    let local =
        target.starts_with("./") || target.starts_with("../") || target == "." || target == "..";
    Some(GoReplace {
        old: old[0].clone(),
        old_version: old.get(1).cloned(),
        new: target.clone(),
        new_version: new.get(1).cloned(),
        dir: if local {
            paths::resolve_dir(dir, target)
        } else {
            None
        },
    })
}

/// Calls `handle(verb, args, line, errors)` for each directive (block entries get their
/// block's verb); syntax errors and unknown directives go to `errors`.
fn for_each_directive(
    text: &str,
    verbs: &[&str],
    errors: &mut Vec<String>,
    mut handle: impl FnMut(&str, &[String], usize, &mut Vec<String>),
) {
    let mut block: Option<(String, usize)> = None;
    for (number, line) in text.lines().enumerate() {
        let number = number + 1;
        let tokens = match tokens(line) {
            Ok(t) => t,
            Err(e) => {
                errors.push(format!("line {number}: {e}"));
                continue;
            }
        };
        if tokens.is_empty() {
            continue;
        }
        if let Some((verb, _)) = &block {
            if tokens == [")"] {
                block = None;
            } else {
                handle(verb, &tokens, number, errors);
            }
            continue;
        }
        let verb = tokens[0].as_str();
        if !verbs.contains(&verb) {
            errors.push(format!("line {number}: unknown directive: {verb}"));
            continue;
        }
        match &tokens[1..] {
            [open] if open == "(" => block = Some((verb.to_string(), number)),
            [open, close] if open == "(" && close == ")" => {}
            args => handle(verb, args, number, errors),
        }
    }
    if let Some((verb, line)) = block {
        errors.push(format!("line {line}: {verb} block is not closed"));
    }
}

/// The tokens of one line: words, `"quoted"` (with escapes) or `` `raw` `` strings, and
/// `(`/`)`; a `//` comment ends the line.
fn tokens(line: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut chars = line.char_indices().peekable();
    while let Some(&(i, c)) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '/' if line[i..].starts_with("//") => break,
            '(' | ')' => {
                out.push(c.to_string());
                chars.next();
            }
            '"' => {
                chars.next();
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some((_, '"')) => break,
                        Some((_, '\\')) => match chars.next() {
                            Some((_, e)) => s.push(e),
                            None => return Err("unterminated string".into()),
                        },
                        Some((_, c)) => s.push(c),
                        None => return Err("unterminated string".into()),
                    }
                }
                out.push(s);
            }
            '`' => {
                chars.next();
                let mut s = String::new();
                loop {
                    match chars.next() {
                        Some((_, '`')) => break,
                        Some((_, c)) => s.push(c),
                        None => return Err("unterminated string".into()),
                    }
                }
                out.push(s);
            }
            _ => {
                let mut s = String::new();
                while let Some(&(j, c)) = chars.peek() {
                    if c.is_whitespace() || c == '(' || c == ')' || line[j..].starts_with("//") {
                        break;
                    }
                    s.push(c);
                    chars.next();
                }
                out.push(s);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_go_mod_with_replacements() {
        let text = r#"// Module comment
module github.com/acme/service

go 1.22.3

toolchain go1.22.5

require (
	github.com/acme/lib v1.4.0 // indirect
	golang.org/x/sync v0.7.0
)

replace github.com/acme/lib => ../lib

replace (
	golang.org/x/sync v0.7.0 => golang.org/x/sync v0.8.0
	"example.com/quoted" => ./third_party/quoted
)
"#;
        let p = parse_go_mod("services/api/go.mod", text);
        assert_eq!(p.error, None);
        assert_eq!(p.name.as_deref(), Some("github.com/acme/service"));
        assert_eq!(p.root, "services/api");
        let go = p.go_module.unwrap();
        assert_eq!(go.go_version.as_deref(), Some("1.22.3"));
        assert_eq!(
            go.requires,
            [
                GoRequire {
                    path: "github.com/acme/lib".into(),
                    version: "v1.4.0".into(),
                },
                GoRequire {
                    path: "golang.org/x/sync".into(),
                    version: "v0.7.0".into(),
                },
            ]
        );
        assert_eq!(
            go.replace,
            [
                GoReplace {
                    old: "github.com/acme/lib".into(),
                    old_version: None,
                    new: "../lib".into(),
                    new_version: None,
                    dir: Some("services/lib".into()),
                },
                GoReplace {
                    old: "golang.org/x/sync".into(),
                    old_version: Some("v0.7.0".into()),
                    new: "golang.org/x/sync".into(),
                    new_version: Some("v0.8.0".into()),
                    dir: None,
                },
                GoReplace {
                    old: "example.com/quoted".into(),
                    old_version: None,
                    new: "./third_party/quoted".into(),
                    new_version: None,
                    dir: Some("services/api/third_party/quoted".into()),
                },
            ]
        );
    }

    #[test]
    fn a_go_work() {
        let text = "go 1.23\n\nuse (\n\t./cmd/tool\n\t./lib // shared\n\t../outside\n)\nuse ./extra\n\nreplace example.com/x v1.0.0 => ./x\n";
        let p = parse_go_work("go.work", text);
        assert_eq!(
            (p.name.as_deref(), p.error.as_deref(), p.root.as_str()),
            (None, None, ".")
        );
        let work = p.go_work.unwrap();
        assert_eq!(work.go_version.as_deref(), Some("1.23"));
        assert_eq!(
            work.use_dirs,
            [
                Some("cmd/tool".into()),
                Some("lib".into()),
                None,
                Some("extra".into())
            ]
        );
        assert_eq!(work.replace[0].dir.as_deref(), Some("x"));
    }

    #[test]
    fn malformed_go_files() {
        let p = parse_go_mod("go.mod", "module example.com/m\nrequire (\n\tx v1\n");
        assert_eq!(p.name.as_deref(), Some("example.com/m"));
        assert_eq!(
            p.error.as_deref(),
            Some("line 2: require block is not closed")
        );
        let p = parse_go_mod("go.mod", "go 1.21\n");
        assert_eq!(p.error.as_deref(), Some("no module directive"));
        let p = parse_go_mod(
            "go.mod",
            "module \"unterminated\nfrobnicate x\nreplace a b\n",
        );
        assert_eq!(
            p.error.as_deref(),
            Some(
                "line 1: unterminated string; line 2: unknown directive: frobnicate; \
                 line 3: usage: replace module/path [v1.2.3] => other/module v1.4 | local/dir"
            )
        );
        let w = parse_go_work("go.work", "module x\nuse a b\n");
        assert_eq!(
            w.error.as_deref(),
            Some("line 1: unknown directive: module; line 2: usage: use local/dir")
        );
    }
}
