//! `check` on Go: unused local variables (SX007, the compiler's "declared and not used"),
//! firing where `go build` reports them (each fixture checked against Go 1.19) and quiet on
//! the idioms that look unused but are not.

use expect_test::expect;

use crate::diagnostics::check;

#[test]
fn unused_variables_are_reported_as_the_go_compiler_does() {
    // `go build -gcflags=-e` reports exactly these 13 (an assignment is not a use; a struct
    // literal's key `x:` is a field, not the variable `x`; a type switch's variable unused in
    // every clause).
    check(
        r#"
        //- /fire/fire.go
        package fire

        type point struct{ x, y int }

        func work() (int, error) { return 0, nil }

        func fire(xs []int, v interface{}, ch chan int) {
        	declared := 1
        	var typed int
        	var assigned = 2
        	onlyWritten := 0
        	onlyWritten = 3
        	n, err := work()
        	n2, err := work()
        	for i, x := range xs {
        	}
        	switch s := v.(type) {
        	case int:
        	case string:
        	}
        	select {
        	case got := <-ch:
        	}
        	x := 1
        	_ = point{x: 1}
        	if inner := 1; n > 0 {
        	}
        	go func() {
        		closure := 0
        	}()
        	shadowed := 1
        	{
        		shadowed := 2
        		_ = shadowed
        	}
        	_ = err
        }
        "#,
        expect![[r#"
            fire/fire.go:8:2: SX007 local variable 'declared' is assigned to but never used
            fire/fire.go:9:6: SX007 local variable 'typed' is assigned to but never used
            fire/fire.go:10:6: SX007 local variable 'assigned' is assigned to but never used
            fire/fire.go:11:2: SX007 local variable 'onlyWritten' is assigned to but never used
            fire/fire.go:14:2: SX007 local variable 'n2' is assigned to but never used
            fire/fire.go:15:6: SX007 local variable 'i' is assigned to but never used
            fire/fire.go:15:9: SX007 local variable 'x' is assigned to but never used
            fire/fire.go:17:9: SX007 local variable 's' is assigned to but never used
            fire/fire.go:22:7: SX007 local variable 'got' is assigned to but never used
            fire/fire.go:24:2: SX007 local variable 'x' is assigned to but never used
            fire/fire.go:26:5: SX007 local variable 'inner' is assigned to but never used
            fire/fire.go:29:3: SX007 local variable 'closure' is assigned to but never used
            fire/fire.go:31:2: SX007 local variable 'shadowed' is assigned to but never used
        "#]],
    );
}

#[test]
fn unused_variables_stay_quiet_on_go_idioms() {
    // Compiles with Go 1.19: closures, `x.f = …`, `*p = …`, `x[i] = …`, `&x`, deferred
    // calls, `x++` and `x += 1` (the compiler counts them as uses), a type switch's variable
    // used in one clause, map keys, named results, labels, method values.
    check(
        r#"
        //- /quiet/quiet.go
        package quiet

        import "fmt"

        type point struct{ x, y int }

        type table map[string]int

        func (p *point) move() {}

        func work() (int, error) { return 0, nil }

        func quiet(xs []int, v interface{}, m map[string]int) (total int, err error) {
        	captured := 0
        	func() { fmt.Println(captured) }()
        	var p point
        	p.x = 1
        	q := &point{}
        	q.y = 2
        	var taken int
        	ptr := &taken
        	*ptr = 3
        	buf := make([]int, 4)
        	buf[0] = 1
        	deferred := "done"
        	defer fmt.Println(deferred)
        	switch s := v.(type) {
        	case int:
        		total += s
        	case string:
        	}
        	for _, _ = range xs {
        	}
        	_ = 0
        	x := 1
        	{
        		x := 2
        		_ = x
        	}
        	_ = x
        	counter := 0
        	counter++
        	sum := 0
        	sum += 1
        	key := "k"
        	_ = table{key: 1}
        	_ = map[string]int{key: 2}
        	_ = []point{{x: 1}}
        	y := 1
        	_ = point{x: y}
        	method := p.move
        	method()
        	total, err = work()
        	n, err := work()
        	_ = n
        loop:
        	for {
        		goto done
        	}
        	goto loop
        done:
        	var closure func()
        	closure = func() { closure() }
        	(func() {})()
        	recv := make(chan int)
        	select {
        	case got, ok := <-recv:
        		_, _ = got, ok
        	}
        	return
        }
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn unused_variables_follow_go_scopes() {
    // As `go build` reports them: a write in a closure, `(x) = …`, `for k = range` and an
    // assignment in a type switch's clause are not uses; a constant hides an outer variable;
    // the keys of a (generic, local, elided) struct literal are fields; a function literal at
    // package level has locals too.
    check(
        r#"
        //- /scope/scope.go
        package scope

        type pair[T any] struct{ first, second T }

        var handler = func() {
        	pending := 0
        	pending = 1
        }

        func scopes(v interface{}, xs map[string]int) {
        	var parens int
        	(parens) = 2
        	switch s := v.(type) {
        	case int:
        	case error:
        		s = nil
        	}
        	var outer int
        	func() {
        		outer = 1
        	}()
        	var k string
        	for k = range xs {
        	}
        	hidden := 1
        	{
        		const hidden = 2
        		_ = hidden
        	}
        	first := 1
        	_ = pair[int]{first: 2}
        	type local struct{ second int }
        	second := 1
        	_ = []local{{second: 3}}
        	_ = &local{second: 4}
        }
        "#,
        expect![[r#"
            scope/scope.go:6:2: SX007 local variable 'pending' is assigned to but never used
            scope/scope.go:11:6: SX007 local variable 'parens' is assigned to but never used
            scope/scope.go:13:9: SX007 local variable 's' is assigned to but never used
            scope/scope.go:18:6: SX007 local variable 'outer' is assigned to but never used
            scope/scope.go:22:6: SX007 local variable 'k' is assigned to but never used
            scope/scope.go:25:2: SX007 local variable 'hidden' is assigned to but never used
            scope/scope.go:30:2: SX007 local variable 'first' is assigned to but never used
            scope/scope.go:33:2: SX007 local variable 'second' is assigned to but never used
        "#]],
    );
}

#[test]
fn unused_variables_stay_quiet_where_a_literal_type_is_unknown() {
    // `Options` is declared in another file: the key `verbose` may be a field (Go reports the
    // variable) or a map key (a use), so sextant says nothing.
    check(
        r#"
        //- /opts/a.go
        package opts

        func build() interface{} {
        	verbose := true
        	return Options{verbose: false}
        }
        //- /opts/b.go
        package opts

        type Options struct{ verbose bool }
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn impossible_calls_are_reported_as_the_go_compiler_does() {
    // `go build -gcflags=-e` reports these 14 "too many arguments" / "not enough
    // arguments": unnamed parameters count one each, a variadic one takes none or more, type
    // parameters are not arguments, a function of another file of the package is judged, a
    // package function named `print` hides the builtin, `f(g())` passes each of `g`'s
    // results (a conversion gives one), and a local name's scope starts after its
    // declaration (`two, other := two(1)` calls the package's `two`).
    check(
        r#"
        //- /fire/a.go
        package fire

        func pair(a, b int) int { return a + b }

        func unnamed(int, string) {}

        func rest(first int, more ...string) {}

        func generic[T any](x, y T) {}

        func print(s string) {}

        func calls() {
        	pair(1, 2, 3)
        	pair(1)
        	unnamed(1)
        	rest()
        	generic[int](1)
        	generic(1, 2, 3)
        	other(1)
        	print("a", "b")
        	pair(
        		1,
        	)
        	go pair()
        	other(two())
        	pair(int(1))
        	pair(two())
        }

        func two() (int, int) { return 1, 2 }

        func scopes() {
        	unnamed(1)
        	unnamed := 1
        	two, other := two(1)
        	_, _, _ = unnamed, two, other
        }
        //- /fire/b.go
        package fire

        func other(a, b, c int) {}
        "#,
        expect![[r#"
            fire/a.go:14:2: SX010 too many arguments in call to 'pair': it takes 2, 3 given
            fire/a.go:15:2: SX010 not enough arguments in call to 'pair': it takes 2, 1 given
            fire/a.go:16:2: SX010 not enough arguments in call to 'unnamed': it takes 2, 1 given
            fire/a.go:17:2: SX010 not enough arguments in call to 'rest': it takes at least 1, 0 given
            fire/a.go:18:2: SX010 not enough arguments in call to 'generic': it takes 2, 1 given
            fire/a.go:19:2: SX010 too many arguments in call to 'generic': it takes 2, 3 given
            fire/a.go:20:2: SX010 not enough arguments in call to 'other': it takes 3, 1 given
            fire/a.go:21:2: SX010 too many arguments in call to 'print': it takes 1, 2 given
            fire/a.go:22:2: SX010 not enough arguments in call to 'pair': it takes 2, 1 given
            fire/a.go:25:5: SX010 not enough arguments in call to 'pair': it takes 2, 0 given
            fire/a.go:26:2: SX010 not enough arguments in call to 'other': it takes 3, 2 given
            fire/a.go:27:2: SX010 not enough arguments in call to 'pair': it takes 2, 1 given
            fire/a.go:34:2: SX010 not enough arguments in call to 'unnamed': it takes 2, 1 given
            fire/a.go:36:16: SX010 too many arguments in call to 'two': it takes 0, 1 given
        "#]],
    );
}

#[test]
fn impossible_calls_stay_quiet_where_go_spreads_or_the_callee_is_not_certain() {
    // Compiles with Go 1.19 (but for `plat`): variadic calls, `f(g())` spreading two
    // results, `xs...`, a closure and a parameter hiding a package function, methods,
    // conversions, builtins, another package's function. `plat` has two declarations for two
    // platforms that disagree, so its call is not judged (wrong on Linux, right on Windows).
    check(
        r#"
        //- /quiet/a.go
        package quiet

        import "strings"

        type celsius float64

        type thing struct{}

        func (thing) method(a int) {}

        func two() (int, int) { return 1, 2 }

        func pair(a, b int) {}

        func rest(first int, more ...string) {}

        func quiet(xs []string, t thing) {
        	rest(1, "a", "b", "c")
        	rest(1)
        	pair(two())
        	rest(1, xs...)
        	t.method(1)
        	_ = celsius(1)
        	_ = len(xs)
        	_ = append(xs, "a", "b")
        	_ = strings.Repeat("a", 2)
        	plat(1, 2, 3)
        	func() {
        		pair := func(a int) {}
        		pair(1)
        	}()
        }

        func hidden(rest func()) {
        	rest()
        }
        //- /quiet/p_linux.go
        package quiet

        func plat(a int) {}
        //- /quiet/p_windows.go
        package quiet

        func plat(a, b int) {}
        "#,
        expect![[r#""#]],
    );
}

#[test]
fn impossible_calls_in_tests_see_the_package_and_an_external_test_package_its_own() {
    // As `go test -gcflags=-e` reports them: a `_test.go` file of the package sees the
    // package's functions and its own; a `package x_test` file sees only its package's.
    check(
        r#"
        //- /tpkg/a.go
        package tpkg

        func Area(w, h int) int { return w * h }
        //- /tpkg/a_test.go
        package tpkg

        func helper(a int) {}

        func check() {
        	Area(1)
        	helper(1, 2)
        }
        //- /tpkg/b_test.go
        package tpkg_test

        func Area(a int) {}

        func other() {
        	Area(1, 2)
        	helper(1)
        }

        func helper(a, b int) {}
        "#,
        expect![[r#"
            tpkg/a_test.go:6:2: SX010 not enough arguments in call to 'Area': it takes 2, 1 given
            tpkg/a_test.go:7:2: SX010 too many arguments in call to 'helper': it takes 1, 2 given
            tpkg/b_test.go:6:2: SX010 too many arguments in call to 'Area': it takes 1, 2 given
            tpkg/b_test.go:7:2: SX010 not enough arguments in call to 'helper': it takes 2, 1 given
        "#]],
    );
}
