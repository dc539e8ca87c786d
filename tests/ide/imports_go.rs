//! `imports` on Go: single, grouped, aliased, blank and dot imports, and where each leads
//! (`semantic/imports/go.rs`).

use expect_test::{Expect, expect};

use crate::{analysis, render};

fn check(fixture: &str, expect: Expect) {
    let (db, file, _) = analysis::analysis(fixture);
    expect.assert_eq(&render::imports(&analysis::imports(&db, file)));
}

#[test]
fn single_grouped_aliased_blank_and_dot_imports() {
    check(
        r#"
        //- /cmd/server/main.go
        package main

        import "fmt"
        import f "fmt"

        import (
        	"net/http"
        	_ "embed"
        	. "strings"
        	store "example.com/shop/internal/store"
        	"example.com/shop/internal/empty"
        	`example.com/shop/pkg/api`
        	"github.com/spf13/cobra/doc"
        	"github.com/unknown/thing"
        	"example.com/shopping/x"
        )
        //- /go.mod
        module example.com/shop

        go 1.22

        require (
        	github.com/spf13/cobra v1.8.0
        	golang.org/x/sync v0.7.0 // indirect
        )
        //- /internal/store/store_test.go
        package store
        //- /internal/store/store.go
        package store
        //- /internal/store/z.go
        package store
        //- /internal/empty/only_test.go
        package empty
        //- /pkg/api/api.go
        package api
        "#,
        expect![[r#"
            3 fmt -> external (fmt)
            4 fmt as f -> external (fmt)
            7 net/http -> external (net/http)
            8 embed as _ -> external (embed)
            9 strings: * -> external (strings)
            10 example.com/shop/internal/store as store -> internal/store/store.go
            11 example.com/shop/internal/empty -> unresolved
            12 example.com/shop/pkg/api -> pkg/api/api.go
            13 github.com/spf13/cobra/doc -> external (github.com/spf13/cobra)
            14 github.com/unknown/thing -> unresolved
            15 example.com/shopping/x -> unresolved
        "#]],
    );
}

#[test]
fn the_nearest_go_mod_governs_and_replace_and_go_work_lead_into_the_workspace() {
    check(
        r#"
        //- /services/api/handler.go
        package api

        import (
        	"example.com/api/routes"
        	"example.com/lib/text"
        	"example.com/tools/gen"
        	"example.com/root/util"
        	"example.com/vendored/v2/pkg"
        )
        //- /services/api/routes/routes.go
        package routes
        //- /services/api/go.mod
        module example.com/api

        require example.com/lib v1.0.0

        replace example.com/lib => ../lib
        //- /services/lib/text/text.go
        package text
        //- /services/lib/go.mod
        module example.com/lib
        //- /tools/go.mod
        module example.com/tools
        //- /tools/gen/gen.go
        package gen
        //- /go.mod
        module example.com/root
        //- /util/util.go
        package util
        //- /go.work
        go 1.22

        use (
        	./services/api
        	./tools
        )

        replace example.com/vendored/v2 => ./third_party/vendored
        //- /third_party/vendored/pkg/pkg.go
        package pkg
        "#,
        expect![[r#"
            4 example.com/api/routes -> services/api/routes/routes.go
            5 example.com/lib/text -> services/lib/text/text.go
            6 example.com/tools/gen -> tools/gen/gen.go
            7 example.com/root/util -> unresolved
            8 example.com/vendored/v2/pkg -> third_party/vendored/pkg/pkg.go
        "#]],
    );
}

#[test]
fn without_a_go_mod_only_the_standard_library_is_known() {
    check(
        r#"
        //- /main.go
        package main

        import (
        	"os"
        	"example.com/m/x"
        	"./relative"
        )
        //- /x/x.go
        package x
        "#,
        expect![[r#"
            4 os -> external (os)
            5 example.com/m/x -> unresolved
            6 ./relative -> unresolved
        "#]],
    );
}
