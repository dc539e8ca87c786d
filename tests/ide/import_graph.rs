//! `import_graph`: dependencies and dependents with depths, cycles, packages, limits.

use expect_test::{Expect, expect};
use sextant::ide::{Direction, Granularity, GraphQuery, ImportGraphView};

use crate::analysis::{self, TestDb};

/// Nodes with their depth, edges as `from -> to [lines]`, cycles, then the totals and flags.
fn render(view: &ImportGraphView) -> String {
    let mut out = String::new();
    for node in &view.nodes {
        let depth = node.depth.map(|d| format!(" @{d}")).unwrap_or_default();
        let external = if node.external { " (external)" } else { "" };
        out += &format!("{}{depth}{external}\n", node.path);
    }
    for edge in &view.edges {
        let lines = if edge.lines.is_empty() {
            String::new()
        } else {
            format!(" {:?}", edge.lines)
        };
        out += &format!(
            "{} -> {}{lines}\n",
            view.nodes[edge.from as usize].path, view.nodes[edge.to as usize].path
        );
    }
    for cycle in &view.cycles {
        out += &format!("cycle: {}\n", cycle.join(", "));
    }
    if !view.shortest_cycle.is_empty() {
        out += &format!("shortest: {}\n", view.shortest_cycle.join(" -> "));
    }
    out += &format!(
        "total: {} nodes, {} edges",
        view.node_total, view.edge_total
    );
    if view.truncated {
        out += ", truncated";
    }
    if view.cycles_truncated {
        out += ", cycles truncated";
    }
    out + "\n"
}

fn graph(db: &TestDb, start: Option<&str>, query: GraphQuery) -> String {
    let query = GraphQuery {
        file: start.map(|path| db.file(path)),
        ..query
    };
    render(&analysis::import_graph(db, &query))
}

fn check(fixture: &str, start: Option<&str>, query: GraphQuery, expect: Expect) {
    let (db, _, _) = analysis::analysis(fixture);
    expect.assert_eq(&graph(&db, start, query));
}

const CYCLE: &str = r#"
//- /a.py
import b
//- /b.py
import c
//- /c.py
import os

import a
//- /d.py
import a
"#;

const DIAMOND: &str = r#"
//- /top.py
import left
from right import f
//- /left.py
from bottom import g
//- /right.py
import bottom
def f(): pass
//- /bottom.py
def g(): pass
"#;

#[test]
fn a_cycle_through_three_files_is_one_strongly_connected_component() {
    check(
        CYCLE,
        Some("a.py"),
        GraphQuery::default(),
        expect![[r#"
            a.py @0
            b.py @1
            c.py @2
            a.py -> b.py [1]
            b.py -> c.py [1]
            c.py -> a.py [3]
            cycle: a.py, b.py, c.py
            shortest: a.py -> b.py -> c.py
            total: 3 nodes, 3 edges
        "#]],
    );
    check(
        CYCLE,
        None,
        GraphQuery::default(),
        expect![[r#"
            a.py
            b.py
            c.py
            d.py
            a.py -> b.py [1]
            b.py -> c.py [1]
            c.py -> a.py [3]
            d.py -> a.py [1]
            cycle: a.py, b.py, c.py
            total: 4 nodes, 4 edges
        "#]],
    );
    // d.py imports the cycle but is not in it.
    check(
        CYCLE,
        Some("d.py"),
        GraphQuery::default(),
        expect![[r#"
            d.py @0
            a.py @1
            b.py @2
            c.py @3
            d.py -> a.py [1]
            a.py -> b.py [1]
            b.py -> c.py [1]
            c.py -> a.py [3]
            total: 4 nodes, 4 edges
        "#]],
    );
}

#[test]
fn a_diamond_lists_the_shared_dependency_once_at_its_nearest_depth() {
    check(
        DIAMOND,
        Some("top.py"),
        GraphQuery::default(),
        expect![[r#"
            top.py @0
            left.py @1
            right.py @1
            bottom.py @2
            top.py -> left.py [1]
            top.py -> right.py [2]
            left.py -> bottom.py [1]
            right.py -> bottom.py [1]
            total: 4 nodes, 4 edges
        "#]],
    );
}

#[test]
fn depth_limits_how_far_imports_are_followed() {
    check(
        CYCLE,
        Some("d.py"),
        GraphQuery {
            depth: 1,
            ..Default::default()
        },
        expect![[r#"
            d.py @0
            a.py @1
            d.py -> a.py [1]
            total: 2 nodes, 1 edges
        "#]],
    );
    check(
        CYCLE,
        Some("d.py"),
        GraphQuery {
            depth: 0,
            ..Default::default()
        },
        expect![[r#"
            d.py @0
            total: 1 nodes, 0 edges
        "#]],
    );
}

#[test]
fn dependents_follow_imports_backwards_with_edges_still_importer_first() {
    check(
        DIAMOND,
        Some("bottom.py"),
        GraphQuery {
            direction: Direction::Dependents,
            ..Default::default()
        },
        expect![[r#"
            bottom.py @0
            left.py @1
            right.py @1
            top.py @2
            left.py -> bottom.py [1]
            right.py -> bottom.py [1]
            top.py -> left.py [1]
            top.py -> right.py [2]
            total: 4 nodes, 4 edges
        "#]],
    );
    check(
        CYCLE,
        Some("c.py"),
        GraphQuery {
            direction: Direction::Dependents,
            depth: 2,
            ..Default::default()
        },
        expect![[r#"
            c.py @0
            b.py @1
            a.py @2
            c.py -> a.py [3]
            b.py -> c.py [1]
            a.py -> b.py [1]
            cycle: a.py, b.py, c.py
            shortest: c.py -> a.py -> b.py
            total: 3 nodes, 3 edges
        "#]],
    );
}

#[test]
fn the_limit_lists_the_nearest_nodes_and_says_so() {
    check(
        DIAMOND,
        Some("top.py"),
        GraphQuery {
            limit: 2,
            ..Default::default()
        },
        expect![[r#"
            top.py @0
            left.py @1
            top.py -> left.py [1]
            total: 4 nodes, 4 edges, truncated
        "#]],
    );
    check(
        CYCLE,
        None,
        GraphQuery {
            limit: 2,
            ..Default::default()
        },
        expect![[r#"
            a.py
            b.py
            a.py -> b.py [1]
            cycle: a.py, b.py
            total: 4 nodes, 4 edges, truncated, cycles truncated
        "#]],
    );
}

#[test]
fn packages_are_directories_and_imports_inside_one_are_not_edges() {
    let fixture = r#"
        //- /app/__init__.py
        from app import models
        //- /app/main.py
        from app.models import User
        from lib.text import slug
        import json
        //- /app/models.py
        from lib import db
        class User: pass
        //- /lib/__init__.py
        //- /lib/db.py
        import app.models
        //- /lib/text.py
        import re
        //- /tools/run.py
        import app.main
        //- /setup.py
        import tools.run
    "#;
    check(
        fixture,
        Some("tools/run.py"),
        GraphQuery {
            granularity: Granularity::Package,
            ..Default::default()
        },
        expect![[r#"
            tools @0
            app @1
            lib @2
            tools -> app
            app -> lib
            lib -> app
            total: 3 nodes, 3 edges
        "#]],
    );
    check(
        fixture,
        None,
        GraphQuery {
            granularity: Granularity::Package,
            external: true,
            ..Default::default()
        },
        expect![[r#"
            .
            app
            lib
            tools
            json (external)
            re (external)
            . -> tools
            app -> lib
            lib -> app
            tools -> app
            app -> json
            lib -> re
            cycle: app, lib
            total: 4 nodes, 4 edges
        "#]],
    );
    // The same files: `app/__init__.py` importing its own package's module is a file edge.
    check(
        fixture,
        Some("app/__init__.py"),
        GraphQuery::default(),
        expect![[r#"
            app/__init__.py @0
            app/models.py @1
            lib/db.py @2
            app/__init__.py -> app/models.py [1]
            app/models.py -> lib/db.py [1]
            lib/db.py -> app/models.py [1]
            total: 3 nodes, 3 edges
        "#]],
    );
}

#[test]
fn a_file_whose_imports_are_all_external_has_external_leaves_only() {
    let fixture = r#"
        //- /tool.py
        import os, sys
        from collections import OrderedDict
        import numpy
        //- /other.py
        import tool
    "#;
    check(
        fixture,
        Some("tool.py"),
        GraphQuery::default(),
        expect![[r#"
            tool.py @0
            total: 1 nodes, 0 edges
        "#]],
    );
    check(
        fixture,
        Some("tool.py"),
        GraphQuery {
            external: true,
            ..Default::default()
        },
        expect![[r#"
            tool.py @0
            collections @1 (external)
            os @1 (external)
            sys @1 (external)
            tool.py -> collections
            tool.py -> os
            tool.py -> sys
            total: 1 nodes, 0 edges
        "#]],
    );
}

#[test]
fn a_module_importing_itself_is_a_cycle() {
    check(
        r#"
        //- /pkg/__init__.py
        from pkg import helper
        def helper(): pass
        "#,
        None,
        GraphQuery::default(),
        expect![[r#"
            pkg/__init__.py
            pkg/__init__.py -> pkg/__init__.py [1]
            cycle: pkg/__init__.py
            total: 1 nodes, 1 edges
        "#]],
    );
}

#[test]
fn the_shortest_cycle_through_the_start_is_given_beside_its_component() {
    let fixture = r#"
        //- /a.py
        import c
        import b
        //- /b.py
        import a
        //- /c.py
        import d
        //- /d.py
        import a
        //- /s.py
        import s
    "#;
    check(
        fixture,
        Some("a.py"),
        GraphQuery {
            depth: 1,
            ..Default::default()
        },
        expect![[r#"
            a.py @0
            b.py @1
            c.py @1
            a.py -> b.py [2]
            a.py -> c.py [1]
            b.py -> a.py [1]
            cycle: a.py, b.py, c.py, d.py
            shortest: a.py -> b.py
            total: 3 nodes, 3 edges
        "#]],
    );
    check(
        fixture,
        Some("s.py"),
        GraphQuery::default(),
        expect![[r#"
            s.py @0
            s.py -> s.py [1]
            cycle: s.py
            shortest: s.py
            total: 1 nodes, 1 edges
        "#]],
    );
}

#[test]
fn imports_of_the_outside_world_are_not_edges() {
    check(
        "//- /lib.rs\nuse std::fmt;\n",
        Some("lib.rs"),
        GraphQuery::default(),
        expect![[r#"
            lib.rs @0
            total: 1 nodes, 0 edges
        "#]],
    );
}
