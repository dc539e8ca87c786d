//! `definition` and `references`: Python scopes, imports, members.

use expect_test::{Expect, expect};

use sextant::ide::ReferenceQuery;

use crate::navigation_checks::{check_definition, check_references};
use crate::{analysis, render};

#[test]
fn function_scopes_see_their_own_names_then_enclosing_functions_then_the_module() {
    check_definition(
        r#"
        //- /m.py
        x = 1
        def outer():
            x = 2
            def inner():
                return x$0
            return inner
        "#,
        expect![[r#"
            m.py:3:5 variable x
        "#]],
    );
}

#[test]
fn class_bodies_are_not_seen_from_their_methods() {
    check_definition(
        r#"
        //- /m.py
        size = 0
        class C:
            size = 1
            def get(self):
                return size$0
        "#,
        expect![[r#"
            m.py:1:1 variable size
        "#]],
    );
}

#[test]
fn an_exception_caught_with_as_is_an_instance_of_its_class() {
    check_definition(
        r#"
        //- /m.py
        class NannyNag(Exception):
            def get_lineno(self):
                return 1
        def check():
            try:
                pass
            except NannyNag as nag:
                return nag.get_lineno$0()
        "#,
        expect![[r#"
            m.py:2:9 function get_lineno
        "#]],
    );
}

#[test]
fn global_and_nonlocal_send_a_name_outwards() {
    check_references(
        r#"
        //- /m.py
        count = 0
        def bump():
            global count
            count$0 += 1
        def counter():
            count = 0
            def inc():
                nonlocal count
                count += 1
        "#,
        expect![[r#"
            m.py:1:1 definition
            m.py:3:12 read
            m.py:4:5 write
        "#]],
    );
}

#[test]
fn a_later_assignment_is_found_from_uses_after_it() {
    check_definition(
        r#"
        //- /m.py
        def f():
            v = 1
            print(v)
            v = 2
            return v$0
        "#,
        expect![[r#"
            m.py:4:5 variable v
        "#]],
    );
}

#[test]
fn every_assignment_that_may_hold_at_a_use_is_a_definition() {
    // A conditional assignment adds to the one before it; an unconditional one ends the
    // list; an assignment in another branch of the same `if` never reaches the use.
    check_definition(
        r#"
        //- /m.py
        def f(path, debug):
            src = path
            if debug:
                src = "/" + src
            return src$0
        "#,
        expect![[r#"
            m.py:4:9 variable src
            m.py:2:5 variable src
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        def f(self, failed):
            if failed:
                try:
                    raise ValueError
                finally:
                    self = None
            else:
                return self$0
        "#,
        expect![[r#"
            m.py:1:7 parameter self
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        def f(items):
            for i in items:
                if i:
                    seen = i
                else:
                    print(seen$0)
        "#,
        expect![[r#"
            m.py:4:13 variable seen
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        def f(data):
            try:
                value = int(data)
            except ValueError:
                value = None
            else:
                return value$0
        "#,
        expect![[r#"
            m.py:3:9 variable value
        "#]],
    );
}

#[test]
fn type_parameters_aliases_and_keyword_patterns_are_bound() {
    let fixture = r#"
        //- /m.py
        def first[T](items: list[T]) -> T:
            return items[0]
        type Pair[K] = tuple[K, K]
        class Stack[V]:
            def push(self, item: V) -> None:
                pass
        def use(p: Pair, point):
            match point:
                case Point(x=px):
                    return px
        "#;
    check_definition(
        &fixture.replace("-> T:", "-> T$0:"),
        expect![[r#"
            m.py:1:11 type_parameter T
        "#]],
    );
    check_definition(
        &fixture.replace("item: V)", "item: V$0)"),
        expect![[r#"
            m.py:4:13 type_parameter V
        "#]],
    );
    check_definition(
        &fixture.replace("p: Pair,", "p: Pair$0,"),
        expect![[r#"
            m.py:3:6 type Pair
        "#]],
    );
    check_definition(
        &fixture.replace("return px", "return px$0"),
        expect![[r#"
            m.py:9:22 variable px
        "#]],
    );
}

#[test]
fn a_package_attribute_wins_over_its_submodule_of_the_same_name() {
    check_definition(
        r#"
        //- /tool.py
        from testing import main
        main$0()
        //- /testing/__init__.py
        from .main import main
        //- /testing/main.py
        class Program: pass
        main = Program
        "#,
        expect![[r#"
            testing/main.py:2:1 variable main
        "#]],
    );
}

#[test]
fn a_modules_own_attributes_are_defined_by_the_module() {
    check_definition(
        r#"
        //- /tool.py
        def main():
            print(__file__)
        if __name__$0 == "__main__":
            main()
        "#,
        expect![[r#"
            tool.py:1:1 module tool
        "#]],
    );
}

#[test]
fn a_package_sees_the_submodules_its_relative_imports_load() {
    // `from .subprocess import *` makes `subprocess` the package's submodule, not the
    // standard library module a star import might also bring.
    check_definition(
        r#"
        //- /pkg/__init__.py
        from .events import *
        from .subprocess import *
        __all__ = events.__all__ + subprocess$0.__all__
        //- /pkg/events.py
        import subprocess
        __all__ = ("run",)
        def run(): pass
        //- /pkg/subprocess.py
        __all__ = ("spawn",)
        def spawn(): pass
        "#,
        expect![[r#"
            pkg/subprocess.py:1:1 module subprocess
        "#]],
    );
}

#[test]
fn comprehension_variables_stay_inside() {
    check_definition(
        r#"
        //- /m.py
        n = 10
        squares = [n * n for n in range(3)]
        last = n$0
        "#,
        expect![[r#"
            m.py:1:1 variable n
        "#]],
    );
}

#[test]
fn imports_are_followed_to_the_definition_through_aliases_and_packages() {
    check_definition(
        r#"
        //- /main.py
        import pkg
        pkg.h$0(3)
        //- /pkg/__init__.py
        from .util import helper as h
        //- /pkg/util.py
        def helper(x):
            return x
        "#,
        expect![[r#"
            pkg/util.py:1:5 function helper
        "#]],
    );
}

#[test]
fn builtins_and_standard_library_names_are_external() {
    check_definition(
        r#"
        //- /m.py
        import os
        print$0(os.sep)
        "#,
        expect![[r#"
            external builtins external print
        "#]],
    );
}

#[test]
fn members_resolve_on_self_on_instances_and_through_base_classes() {
    check_references(
        r#"
        //- /shapes.py
        class Base:
            def area(self):
                return 0
            def describe(self):
                return self.area()
        class Square(Base):
            def __init__(self, side):
                self.side = side
        //- /main.py
        from shapes import Square
        s = Square(2)
        s.area$0()
        def unknown(obj):
            return obj.area()
        "#,
        expect![[r#"
            main.py:3:3 call
            main.py:5:16 call?
            shapes.py:2:9 definition
            shapes.py:5:21 call
        "#]],
    );
}

#[test]
fn instance_attributes_are_members_of_their_class() {
    check_references(
        r#"
        //- /m.py
        class Counter:
            def __init__(self):
                self.total = 0
            def add(self, n):
                self.total$0 += n
                return self.total
        "#,
        expect![[r#"
            m.py:3:14 definition
            m.py:5:14 read
            m.py:6:21 read
        "#]],
    );
}

#[test]
fn references_follow_aliases_across_files() {
    check_references(
        r#"
        //- /pkg/util.py
        def helper$0(x):
            return x
        //- /pkg/__init__.py
        from .util import helper as h
        //- /main.py
        import pkg
        from pkg.util import helper
        from pkg import h as again
        pkg.h(1)
        helper(2)
        again(3)
        def helper_too(): pass
        "#,
        expect![[r#"
            main.py:2:22 import
            main.py:3:17 import
            main.py:3:22 import
            main.py:4:5 call
            main.py:5:1 call
            main.py:6:1 call
            pkg/__init__.py:1:19 import
            pkg/__init__.py:1:29 import
            pkg/util.py:1:5 definition
        "#]],
    );
}

#[test]
fn references_by_qualified_name_pick_the_module_or_class() {
    let (db, _, _) = analysis::analysis(
        r#"
        //- /a.py
        def run(): pass
        class Job:
            def run(self): pass
        //- /b.py
        import a
        a.run()
        a.Job().run()
        "#,
    );
    let query = ReferenceQuery {
        limit: 100,
        ..Default::default()
    };
    let by_module = analysis::references_by_name(&db, "a.run", &query);
    expect![[r#"
        a.py:1:5 definition
        b.py:2:3 call
    "#]]
    .assert_eq(&render::references(&by_module));
    let by_class = analysis::references_by_name(&db, "Job.run", &query);
    expect![[r#"
        a.py:3:9 definition
        b.py:3:9 call
    "#]]
    .assert_eq(&render::references(&by_class));
}

fn check_hover(fixture: &str, expect: Expect) {
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.expect("a $0 cursor").offset();
    let shown = match analysis::hover(&db, file, offset) {
        Some(h) => format!(
            "{}:{} {}\n{}\n---\n{}\n",
            h.definition.path.unwrap_or_default(),
            h.definition.span.map_or(0, |s| s.start.line),
            h.definition.kind,
            h.signature.unwrap_or_default(),
            h.documentation.unwrap_or_default()
        ),
        None => "nothing\n".to_string(),
    };
    expect.assert_eq(&shown);
}

#[test]
fn hover_shows_the_signature_and_docstring_of_what_an_import_brings() {
    check_hover(
        r#"
        //- /main.py
        from shapes import area
        area$0(2, 3)
        //- /shapes.py
        def area(w: float, h: float) -> float:
            """The area of a rectangle.

            Both sides in metres.
            """
            return w * h
        "#,
        expect![[r#"
            shapes.py:1 function
            def area(w: float, h: float) -> float
            ---
            The area of a rectangle.

            Both sides in metres.
        "#]],
    );
}

#[test]
fn hover_shows_comments_above_a_definition_and_nothing_on_a_keyword() {
    check_hover(
        r#"
        //- /m.py
        # How many tries before giving up.
        # Counted per request.
        @cached
        def retries():
            return 3
        retries$0()
        "#,
        expect![[r#"
            m.py:4 function
            def retries()
            ---
            How many tries before giving up.
            Counted per request.
        "#]],
    );
    check_hover(
        r#"
        //- /m.py
        def$0 f(): pass
        "#,
        expect![[r#"
            nothing
        "#]],
    );
}

#[test]
fn namespace_packages_without_init_files_resolve() {
    check_definition(
        r#"
        //- /main.py
        from lib import util
        util.run$0()
        //- /lib/util.py
        def run(): pass
        "#,
        expect![[r#"
            lib/util.py:1:5 function run
        "#]],
    );
}

pub(crate) fn render_calls(calls: &[sextant::ide::Call]) -> String {
    let mut out = String::new();
    for call in calls {
        let ranges: Vec<String> = call
            .ranges
            .iter()
            .map(|r| format!("{}:{}", r.start.line, r.start.column))
            .collect();
        out.push_str(&format!(
            "{} {} {}:{} at {}\n",
            call.item.kind.as_str(),
            call.item.name,
            call.item.path,
            call.item.name_span.start.line,
            ranges.join(", ")
        ));
    }
    out
}

#[test]
fn call_hierarchy_groups_calls_by_caller_and_by_callee() {
    let fixture = r#"
        //- /app.py
        from util import parse, fmt

        def load(path):
            data = parse(path)
            return parse(data)

        class Job:
            def run(self):
                return fmt(parse$0("x"))

        parse("top")
        //- /util.py
        def parse(text): return text
        def fmt(value): return str(value)
        "#;
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.unwrap().offset();
    expect![[r#"
        function load app.py:3 at 4:12, 5:12
        method run app.py:8 at 9:20
        module app.py app.py:1 at 11:1
    "#]]
    .assert_eq(&render_calls(&analysis::incoming_calls(&db, file, offset)));
    // From `run`'s name: what it calls (`str` is a builtin, not a workspace definition).
    let run = db.text(file).find("def run").unwrap() + 4;
    expect![[r#"
        function fmt util.py:2 at 9:16
        function parse util.py:1 at 9:20
    "#]]
    .assert_eq(&render_calls(&analysis::outgoing_calls(&db, file, run)));
}

#[test]
fn members_of_builtin_literals_and_written_types() {
    check_definition(
        r#"
        //- /m.py
        parts = []
        parts.append$0(1)
        "#,
        expect![[r#"
            external builtins external list.append
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        line = ", ".join$0(["a", "b"])
        "#,
        expect![[r#"
            external builtins external str.join
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        class Point:
            def norm(self):
                return 0
        def length(p: Point, q: "Point" = None):
            return p.norm$0()
        "#,
        expect![[r#"
            m.py:2:9 function norm
        "#]],
    );
}

#[test]
fn a_method_definition_also_gives_the_member_it_overrides() {
    check_definition(
        r#"
        //- /base.py
        class Codec:
            def encode(self, text):
                raise NotImplementedError
        //- /m.py
        from base import Codec
        class Utf8(Codec):
            def encode$0(self, text):
                return text
            def __init__(self):
                pass
        "#,
        expect![[r#"
            m.py:3:9 function encode
            base.py:2:9 function encode
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        class Plain:
            def __init__$0(self):
                pass
        "#,
        expect![[r#"
            m.py:2:9 function __init__
            external builtins external object.__init__
        "#]],
    );
}

#[test]
fn keyword_arguments_name_the_callees_parameters() {
    check_definition(
        r#"
        //- /warn.py
        def deprecated(name, *, remove):
            return remove
        class Point:
            def __init__(self, x=0, y=0):
                self.x = x
        //- /m.py
        import warn
        from warn import Point
        warn.deprecated("m", remove$0=(3, 13))
        Point(y=2)
        "#,
        expect![[r#"
            warn.py:1:25 parameter remove
        "#]],
    );
    check_definition(
        r#"
        //- /warn.py
        class Point:
            def __init__(self, x=0, y=0):
                self.x = x
        //- /m.py
        from warn import Point
        Point(y$0=2)
        "#,
        expect![[r#"
            warn.py:2:29 parameter y
        "#]],
    );
    check_references(
        r#"
        //- /warn.py
        def deprecated(name, *, remove$0):
            return remove
        //- /m.py
        import warn
        warn.deprecated("m", remove=(3, 13))
        "#,
        expect![[r#"
            m.py:2:22 read
            warn.py:1:25 definition
            warn.py:2:12 read
        "#]],
    );
}

#[test]
fn attributes_hold_what_is_assigned_to_them() {
    check_definition(
        r#"
        //- /m.py
        class Button:
            def pack(self):
                pass
        class Dialog:
            def __init__(self):
                self.fds = []
                self.ok = Button()
            def run(self):
                self.fds.append(1)
                self.ok.pack$0()
        "#,
        expect![[r#"
            m.py:2:9 function pack
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        class Dialog:
            def __init__(self):
                self.fds = []
            def run(self):
                self.fds.append$0(1)
        "#,
        expect![[r#"
            external builtins external list.append
        "#]],
    );
}

#[test]
fn return_annotations_and_super_calls() {
    check_definition(
        r#"
        //- /m.py
        class Codec:
            def encode(self):
                return b""
        class Utf8(Codec):
            def encode(self):
                return super().encode$0()
        "#,
        expect![[r#"
            m.py:2:9 function encode
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        class Codec:
            def encode(self):
                return b""
        def lookup(name) -> Codec:
            return Codec()
        lookup("utf-8").encode$0()
        "#,
        expect![[r#"
            m.py:2:9 function encode
        "#]],
    );
}

#[test]
fn outside_bases_are_asked_after_the_workspace_class_and_its_assignments() {
    check_definition(
        r#"
        //- /m.py
        class Fixer(object):
            def start(self):
                self.replace = {}
            def run(self):
                return self.replace$0
        "#,
        expect![[r#"
            m.py:3:14 attribute replace
        "#]],
    );
    check_definition(
        r#"
        //- /m.py
        class Registry(dict):
            def find(self, key):
                return self.get$0(key)
        "#,
        expect![[r#"
            external builtins external dict.get
        "#]],
    );
}

#[test]
fn keyword_arguments_of_outside_callables_are_external() {
    check_definition(
        r#"
        //- /m.py
        raise ImportError("no parent", name$0="pkg")
        "#,
        expect![[r#"
            external builtins external ImportError.name
        "#]],
    );
}

#[test]
fn from_imports_through_a_name_a_module_binds() {
    check_definition(
        r#"
        //- /posixpath.py
        def basename(p):
            return p
        //- /os.py
        import posixpath as path
        //- /m.py
        def f(src):
            from os.path import basename
            return basename$0(src)
        "#,
        expect![[r#"
            posixpath.py:1:5 function basename
        "#]],
    );
}

#[test]
fn a_variable_assigned_a_module_or_class_holds_its_members() {
    check_definition(
        r#"
        //- /pyclbr.py
        def _create_tree(source):
            return source
        //- /test_pyclbr.py
        import pyclbr
        def test():
            mb = pyclbr
            return mb._create_tree$0("x")
        "#,
        expect![[r#"
            pyclbr.py:1:5 function _create_tree
        "#]],
    );
    check_definition(
        r#"
        //- /shapes.py
        class Square:
            def area(self):
                return 1
        Shape = Square
        print(Shape.area$0)
        "#,
        expect![[r#"
            shapes.py:2:9 function area
        "#]],
    );
}

#[test]
fn a_package_importing_its_own_submodule_binds_the_submodule() {
    check_definition(
        r#"
        //- /pkg/__init__.py
        try:
            import _frozen_importlib_external as _external
        except ImportError:
            from . import _external
        //- /pkg/_external.py
        def calc(path):
            return path
        //- /user.py
        import pkg
        pkg._external.calc$0("x")
        "#,
        expect![[r#"
            external _frozen_importlib_external external calc
            pkg/_external.py:1:5 function calc
        "#]],
    );
}

/// Regression: finding whose `history` this is meant resolving the attributes assigned on
/// instances, which resolved `self.history` again from the start, without end, until the
/// stack overflowed (`idlelib/idle_test/test_history.py` of the standard library).
#[test]
fn an_attribute_named_like_the_attribute_holding_it_resolves_to_an_end() {
    check_definition(
        r#"
        //- /m.py
        class History:
            pass

        class T:
            @classmethod
            def setUpClass(cls):
                cls.history = History()
            def test(self):
                self.history.history = []
                self.history.history$0
        "#,
        expect![[""]],
    );
    check_definition(
        r#"
        //- /m.py
        class History:
            pass

        class T:
            @classmethod
            def setUpClass(cls):
                cls.history = History()
            def test(self):
                self.history.history = []
                self.history$0.history
        "#,
        expect![[r#"
            m.py:7:13 attribute history
        "#]],
    );
}

/// While the first index runs, a lookup by name looks in the files of the shards built so
/// far (here the one shard of every file, or none) and finds there what the whole lookup
/// finds, qualified names included, and only names spelled exactly so (`areas` and `Area`
/// are not `area`); a module path it would follow through imports is not followed, since
/// that reads every file.
#[test]
fn names_looked_up_in_the_first_shards_find_what_the_whole_lookup_finds_there() {
    use sextant::ide::NameScope;
    let (db, _, _) = analysis::analysis(
        r#"
        //- /pkg/geo.py
        class Shape:
            def area(self):
                return 0

        def area():
            return 1

        def areas():
            return 2

        class Area:
            pass
        //- /pkg/api.py
        from pkg import geo as shapes
        "#,
    );
    let found = |name: &str, scope: NameScope| -> Vec<(String, u32)> {
        analysis::definitions_named(&db, name, scope)
            .into_iter()
            .map(|d| {
                (
                    d.path.unwrap_or_default(),
                    d.span.map_or(0, |s| s.start.line),
                )
            })
            .collect()
    };
    let geo = |line: u32| ("pkg/geo.py".to_string(), line);
    for (name, expected) in [
        ("area", vec![geo(5), geo(2)]),
        ("Shape.area", vec![geo(2)]),
        ("geo.area", vec![geo(5)]),
        ("Shape", vec![geo(1)]),
        ("areas", vec![geo(8)]),
        ("Area", vec![geo(11)]),
    ] {
        assert_eq!(found(name, NameScope::Workspace), expected, "{name}");
        assert_eq!(found(name, NameScope::FirstShards(1)), expected, "{name}");
        assert_eq!(found(name, NameScope::FirstShards(0)), vec![], "{name}");
    }
    // `pkg.api.shapes.area` leads through `api`'s import of `geo`: only the whole lookup
    // follows it.
    assert_eq!(found("api.shapes.area", NameScope::Workspace), vec![geo(5)]);
    assert_eq!(found("api.shapes.area", NameScope::FirstShards(1)), vec![]);
}
