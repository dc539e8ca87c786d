//! `definition` and `references` in Go: block scopes and `:=`, the package block across
//! files, imports (named, dot, blank, unresolved outside the workspace), methods found by
//! their receiver's type in any file of the package, struct fields and promotion through
//! embedded fields, type parameters, predeclared names.

use expect_test::expect;

use crate::analysis;
use crate::navigation_checks::{check_definitions_snapshot as check_definitions, check_references};

const SCOPES: &str = r#"
//- /main.go
package main

var x = 0

func f(x int) int {
	y := x + 1
	if x := y * 2; x > 2 {
		return x - 1
	}
	{
		y := y + 3
		_ = y * 4
	}
	for i := 0; i < 3; i++ {
		x = i
	}
	switch v := y; v {
	case 1:
		v := "s"
		println(v)
	}
	return y - 5
}

func g() int { return x + 6 }
"#;

#[test]
fn blocks_and_short_declarations_shadow_outer_names() {
    check_definitions(
        SCOPES,
        &[
            "y := x$0 + 1",
            "return x$0 - 1",
            "y := y$0 + 3",
            "_ = y$0 * 4",
            "_$0 = y * 4",
            "x$0 = i",
            "x = i$0",
            "println(v$0)",
            "return y$0 - 5",
            "return x$0 + 6",
            "println$0(v)",
        ],
        expect![[r#"
            y := x$0 + 1 => main.go:5:8 parameter x
            return x$0 - 1 => main.go:7:5 variable x
            y := y$0 + 3 => main.go:6:2 variable y
            _ = y$0 * 4 => main.go:11:3 variable y
            _$0 = y * 4 => none
            x$0 = i => main.go:5:8 parameter x
            x = i$0 => main.go:14:6 variable i
            println(v$0) => main.go:19:3 variable v
            return y$0 - 5 => main.go:6:2 variable y
            return x$0 + 6 => main.go:3:5 variable x
            println$0(v) => external builtin external println
        "#]],
    );
}

const SHOP: &str = r#"
//- /go.mod
module example.com/shop

go 1.22

require github.com/other/thing v1.0.0
//- /main.go
package main

import (
	"fmt"
	"example.com/shop/internal/store"
	. "example.com/shop/internal/util"
	_ "example.com/shop/internal/plugin"
	"github.com/other/thing"
)

func main() {
	s := store.Open("db")
	fmt.Println(s.Name(), Version, helper())
	run(Clamp(3))
	plugin.Register()
	thing.Do()
}
//- /run.go
package main

import st "example.com/shop/internal/store"

func run(n int) { st.Open("x") }

func helper() string { return "" }
//- /internal/store/store.go
package store

type Store struct {
	name string
}

func Open(name string) *Store { return &Store{name: name} }
//- /internal/store/name.go
package store

func (s *Store) Name() string { return s.name }
//- /internal/store/store_test.go
package store_test

func Open() {}
//- /internal/util/util.go
package util

const Version = "1"

func Clamp(n int) int { return n }
//- /internal/plugin/plugin.go
package plugin

func init() {}
"#;

#[test]
fn the_package_block_spans_files_and_imports_bind_package_names() {
    check_definitions(
        SHOP,
        &[
            "store$0.Open(\"db\")",
            "store.Open$0(\"db\")",
            "s.Name$0()",
            "fmt$0.Println",
            "fmt.Println$0",
            "Version$0,",
            "helper$0())",
            "Clamp$0(3)",
            "run$0(Clamp",
            "st$0.Open",
            "st.Open$0",
            "plugin$0.Register",
            "thing$0.Do",
            "thing.Do$0",
            "return s.name$0",
        ],
        expect![[r#"
            store$0.Open("db") => internal/store/name.go:1:1 module store
            store.Open$0("db") => internal/store/store.go:7:6 function Open
            s.Name$0() => internal/store/name.go:3:17 method Name
            fmt$0.Println => external fmt external fmt
            fmt.Println$0 => external fmt external Println
            Version$0, => internal/util/util.go:3:7 variable Version
            helper$0()) => run.go:7:6 function helper
            Clamp$0(3) => internal/util/util.go:5:6 function Clamp
            run$0(Clamp => run.go:5:6 function run
            st$0.Open => internal/store/name.go:1:1 module store
            st.Open$0 => internal/store/store.go:7:6 function Open
            plugin$0.Register => none
            thing$0.Do => external github.com/other/thing external github.com/other/thing
            thing.Do$0 => external github.com/other/thing external Do
            return s.name$0 => internal/store/store.go:4:2 variable name
        "#]],
    );
}

#[test]
fn references_across_the_files_of_a_package_and_through_imports() {
    check_references(
        &SHOP.replace("func Open(name", "func Open$0(name"),
        expect![[r#"
            internal/store/store.go:7:6 definition
            main.go:12:13 call
            run.go:5:22 call
        "#]],
    );
    check_references(
        &SHOP.replace("func helper()", "func helper$0()"),
        expect![[r#"
            main.go:13:33 call
            run.go:7:6 definition
        "#]],
    );
}

const SERVER: &str = r#"
//- /server.go
package web

type Server struct {
	addr string
	Logger
}

func NewServer(addr string) *Server { return &Server{addr: addr} }

func (s *Server) Start() error {
	s.Log(s.addr)
	return s.stop()
}
//- /stop.go
package web

func (s Server) stop() error { return nil }

type Logger struct{ prefix string }

func (l *Logger) Log(msg string) { println(l.prefix + msg) }

type Runner interface {
	Run() error
}

func something() interface{ Start() error } { return nil }

func use(p *Server, r Runner) {
	a := &Server{}
	b := Server{addr: ":80"}
	c := NewServer(":81")
	var d Server
	d2 := new(Server)
	a.Start()
	b.stop()
	c.Start()
	d.Log("x")
	p.addr = "y"
	println(d2.prefix)
	r.Run()
	x := something()
	x.Start()
}
"#;

#[test]
fn methods_are_members_of_their_receivers_type_in_any_file() {
    check_definitions(
        SERVER,
        &[
            "s.Log$0(s.addr)",
            "s.Log(s.addr$0)",
            "s.stop$0()",
            "a.Start$0()",
            "b.stop$0()",
            "c.Start$0()",
            "d.Log$0(",
            "p.addr$0 =",
            "d2.prefix$0",
            "r.Run$0()",
            "x.Start$0()",
            "Server{addr$0: \":80\"}",
            "&Server{addr: addr$0}",
            "l.prefix$0 + msg",
        ],
        expect![[r#"
            s.Log$0(s.addr) => stop.go:7:18 method Log
            s.Log(s.addr$0) => server.go:4:2 variable addr
            s.stop$0() => stop.go:3:17 method stop
            a.Start$0() => server.go:10:18 method Start
            b.stop$0() => stop.go:3:17 method stop
            c.Start$0() => server.go:10:18 method Start
            d.Log$0( => stop.go:7:18 method Log
            p.addr$0 = => server.go:4:2 variable addr
            d2.prefix$0 => stop.go:5:21 variable prefix
            r.Run$0() => stop.go:10:2 function Run
            x.Start$0() => server.go:10:18 method Start (heuristic)
            Server{addr$0: ":80"} => server.go:4:2 variable addr
            &Server{addr: addr$0} => server.go:8:16 parameter addr
            l.prefix$0 + msg => stop.go:5:21 variable prefix
        "#]],
    );
}

#[test]
fn references_of_a_method_by_its_receiver_type() {
    check_references(
        &SERVER.replace("func (s *Server) Start()", "func (s *Server) Start$0()"),
        expect![[r#"
            server.go:10:18 definition
            stop.go:21:4 call
            stop.go:23:4 call
            stop.go:29:4 call?
        "#]],
    );
}

#[test]
fn type_parameters_and_predeclared_names() {
    check_definitions(
        r#"
//- /gen.go
package gen

type List[T any] struct {
	items []T
}

func (l *List[T]) Push(v T) { l.items = append(l.items, v) }

func Map[T, U any](xs []T, f func(T) U) []U {
	var out []U
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

type Strings []string

func (s Strings) Len() int { return len(s) }
"#,
        &[
            "items []T$0",
            "Push(v T$0)",
            "l.items$0 =",
            "append$0(l.items",
            "f func(T$0) U",
            "U any$0]",
            "var out []U$0",
            "f(x$0)",
            "[]string$0",
            "return len(s$0)",
        ],
        expect![[r#"
            items []T$0 => gen.go:3:11 type_parameter T
            Push(v T$0) => gen.go:7:15 type_parameter T
            l.items$0 = => gen.go:4:2 variable items
            append$0(l.items => external builtin external append
            f func(T$0) U => gen.go:9:10 type_parameter T
            U any$0] => external builtin external any
            var out []U$0 => gen.go:9:13 type_parameter U
            f(x$0) => gen.go:11:9 variable x
            []string$0 => external builtin external string
            return len(s$0) => gen.go:19:7 parameter s
        "#]],
    );
}

#[test]
fn results_elements_assertions_and_outside_types_give_members() {
    check_definitions(
        r#"
//- /go.mod
module example.com/cli

go 1.22

require github.com/spf13/pflag v1.0.9
//- /cmd.go
package cli

import flag "github.com/spf13/pflag"

type Command struct {
	children []*Command
	flags    *flag.FlagSet
}

func (c *Command) Root() *Command { return c }

func (c *Command) Children() []*Command { return c.children }

func (c *Command) Name() string { return "" }

func walk(in interface{}, extra ...*Command) {
	c := in.(*Command)
	c.Root().Name()
	for _, child := range c.Children() {
		child.Name()
	}
	for i := range extra {
		extra[i].Name()
	}
	c.flags.Lookup("x")
	f := c.flags.Lookup("v")
	f.Value()
	in.(*Command).children = nil
}
"#,
        &[
            "c.Root().Name$0()",
            "child.Name$0()",
            "extra[i].Name$0()",
            "c.flags.Lookup$0(\"x\")",
            "f.Value$0()",
            "in.(*Command).children$0",
        ],
        expect![[r#"
            c.Root().Name$0() => cmd.go:14:19 method Name
            child.Name$0() => cmd.go:14:19 method Name
            extra[i].Name$0() => cmd.go:14:19 method Name
            c.flags.Lookup$0("x") => external github.com/spf13/pflag external Lookup
            f.Value$0() => none
            in.(*Command).children$0 => cmd.go:6:2 variable children
        "#]],
    );
}

#[test]
fn hover_and_call_hierarchy_on_methods_and_functions() {
    let fixture = r#"
//- /server.go
package web

// Start serves until stopped.
func (s *Server) Start() { s.listen() }

func main() {
	NewServer().Start$0()
}
//- /types.go
package web

type Server struct{}

func NewServer() *Server { return &Server{} }

func (s *Server) listen() {}
"#;
    let (db, file, cursor) = analysis::analysis(fixture);
    let offset = cursor.unwrap().offset();
    let hover = analysis::hover(&db, file, offset).expect("a hover");
    expect![[r#"
        server.go:4 method
        func (s *Server) Start()
        Start serves until stopped.
    "#]]
    .assert_eq(&format!(
        "{}:{} {}\n{}\n{}\n",
        hover.definition.path.unwrap_or_default(),
        hover.definition.span.map_or(0, |s| s.start.line),
        hover.definition.kind,
        hover.signature.unwrap_or_default(),
        hover.documentation.unwrap_or_default()
    ));
    let render = |calls: Vec<sextant::ide::Call>| {
        calls
            .iter()
            .map(|c| {
                let at: Vec<String> = c
                    .ranges
                    .iter()
                    .map(|r| format!("{}:{}", r.start.line, r.start.column))
                    .collect();
                let item = &c.item;
                let line = item.name_span.start.line;
                format!(
                    "{} {} {}:{line} at {}\n",
                    item.kind.as_str(),
                    item.name,
                    item.path,
                    at.join(", ")
                )
            })
            .collect::<String>()
    };
    expect![[r#"
        function main server.go:6 at 7:14
    "#]]
    .assert_eq(&render(analysis::incoming_calls(&db, file, offset)));
    expect![[r#"
        method listen types.go:7 at 4:30
    "#]]
    .assert_eq(&render(analysis::outgoing_calls(&db, file, offset)));
}
