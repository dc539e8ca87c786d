//! Positions on one very long line (minified code): columns of symbols and syntax errors
//! far along the line, with characters of one to four bytes before them, are exactly what
//! counting characters from the start of the line gives. (How long they take is measured
//! by `benches/index.rs` and `benches/long_lines.py`, not asserted here.)

mod support;

use std::collections::HashMap;

use sextant::{
    ide::{OutlineNode, ParseOptions},
    syntax::LineCol,
};
use support::{FixtureFile, host};

/// The reference: the line and column of every char boundary, counted in one walk from the
/// start of the text (the text is too long to count from the start once per symbol).
fn reference_positions(text: &str) -> HashMap<usize, LineCol> {
    let mut at = HashMap::with_capacity(text.len());
    let (mut line, mut column) = (1, 1);
    for (offset, c) in text.char_indices().chain([(text.len(), '\0')]) {
        at.insert(offset, LineCol { line, column });
        if c == '\n' {
            (line, column) = (line + 1, 1);
        } else {
            column += 1;
        }
    }
    at
}

fn flatten(nodes: &[OutlineNode], out: &mut Vec<OutlineNode>) {
    for n in nodes {
        out.push(n.clone());
        flatten(&n.children, out);
    }
}

const UNITS: usize = 10_000;

/// About 1 MB on one line, strings in several scripts in every unit, and a syntax error
/// near the end.
fn minified() -> String {
    let mut text = String::from("/*😀*/");
    for i in 0..UNITS {
        text.push_str(&format!(
            "function fé{i}(a){{return 'é漢😀'+a;}}class C{i}{{m(){{return '漢';}}}}const o{i}={{k:(x)=>{{return x;}}}};"
        ));
    }
    text.push_str("let broken = ;var last='😀';");
    text
}

#[test]
fn symbol_columns_far_along_one_long_line_are_exact() {
    let text = minified();
    assert!(text.len() > 1 << 20 && !text.contains('\n'));
    let files = vec![FixtureFile {
        path: "bundle.min.js".into(),
        text: text.clone(),
        cursor: None,
    }];
    let host = host(&files);
    let reference = reference_positions(&text);
    let naive_line_col = |offset: usize| reference[&offset];
    let file = host.file("bundle.min.js").unwrap();
    let outline = host.analysis().outline(file, usize::MAX).unwrap();
    let mut symbols = Vec::new();
    flatten(&outline.symbols, &mut symbols);
    // Per unit a function, a class, its method, a constant and its method; then two bindings.
    assert_eq!(symbols.len(), UNITS * 5 + 2);
    for s in &symbols {
        for (what, span) in [("definition", s.span), ("name", s.name_span)] {
            let (start, end) = (span.byte_start as usize, span.byte_end as usize);
            assert_eq!(span.start, naive_line_col(start), "{what} {} start", s.name);
            assert_eq!(span.end, naive_line_col(end), "{what} {} end", s.name);
        }
        assert_eq!(&text[s.name_span.byte_range()], s.name);
    }
    // The last symbol, more than a megabyte along, after tens of thousands of multi-byte
    // characters.
    let last = symbols.iter().find(|s| s.name == "last").unwrap();
    let offset = text.rfind("last").unwrap();
    let column = text[..offset].chars().count() as u32 + 1;
    assert_eq!(last.name_span.start, LineCol { line: 1, column });
    assert!(column < offset as u32 - 50_000);

    let parse = host
        .analysis()
        .parse_tree(
            file,
            ParseOptions {
                max_nodes: 0,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(!parse.errors.is_empty());
    for e in &parse.errors {
        let span = e.span;
        assert_eq!(span.start, naive_line_col(span.byte_start as usize));
        assert_eq!(span.end, naive_line_col(span.byte_end as usize));
    }
}
