//! `imports`: a file's imports and where each leads.

use expect_test::{Expect, expect};

use crate::{analysis, render};

fn check(fixture: &str, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    expect.assert_eq(&render::imports(&analysis::imports(&db, file)));
}

#[test]
fn python_absolute_imports_find_modules_packages_and_definitions() {
    check(
        r#"
        //- /app/main.py
        import os.path
        import app.util as u, json
        from app import util
        from app.util import helper, missing
        from app.models import *
        import numpy
        from os import sep
        //- /app/__init__.py
        //- /app/util.py
        def helper():
            pass
        //- /app/models/__init__.py
        class Model: pass
        "#,
        expect![[r#"
            1 os.path -> external (os)
            2 app.util as u -> app/util.py
            2 json -> external (json)
            3 app: util -> app/util.py
            4 app.util: helper -> app/util.py:1:5
            4 app.util: missing -> app/util.py
            5 app.models: * -> app/models/__init__.py
            6 numpy -> unresolved
            7 os: sep -> external (os)
        "#]],
    );
}

#[test]
fn python_relative_imports_count_dots_from_the_importing_file() {
    check(
        r#"
        //- /pkg/sub/mod.py
        from . import sibling
        from .sibling import f as g
        from .. import top
        from ..top import T
        from ...beyond import x
        from .absent import y
        //- /pkg/sub/sibling.py
        def f(): pass
        //- /pkg/__init__.py
        //- /pkg/top.py
        class T: pass
        "#,
        expect![[r#"
            1 .: sibling -> pkg/sub/sibling.py
            2 .sibling: f as g -> pkg/sub/sibling.py:1:5
            3 ..: top -> pkg/top.py
            4 ..top: T -> pkg/top.py:1:7
            5 ...beyond: x -> unresolved
            6 .absent: y -> unresolved
        "#]],
    );
}

#[test]
fn python_imports_anywhere_in_the_file_count() {
    check(
        r#"
        //- /m.py
        try:
            import tomllib
        except ImportError:
            tomllib = None

        def lazy():
            from collections import OrderedDict as OD
            return OD
        "#,
        expect![[r#"
            2 tomllib -> external (tomllib)
            7 collections: OrderedDict as OD -> external (collections)
        "#]],
    );
}
