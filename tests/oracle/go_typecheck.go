// Command go_typecheck type-checks package directories with go/types (the type checker `go
// vet` runs; the compiler's own is its twin) and prints every error as `path:line:column:
// message`, all of them, not only the first. Used by go_compare.py.
//
//	go run tests/oracle/go_typecheck.go ROOT IMPORTPATH...
//
// Each IMPORTPATH is a directory under ROOT holding one package's Go files. Imports are read
// from the export data of the installed toolchain, so a copied standard library package sees
// the real standard library (its `internal/…` and vendored packages included). A directory
// whose files do not parse prints `SYNTAX IMPORTPATH` instead of its errors: the type checker
// never ran on it.
package main

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// vendoring finds a vendored package under the path the standard library's own imports use.
type vendoring struct {
	inner types.ImporterFrom
}

func (v vendoring) Import(path string) (*types.Package, error) {
	return v.ImportFrom(path, "", 0)
}

func (v vendoring) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	pkg, err := v.inner.ImportFrom(path, dir, mode)
	if err == nil {
		return pkg, nil
	}
	for _, prefix := range []string{"vendor/", "cmd/vendor/"} {
		if vendored, verr := v.inner.ImportFrom(prefix+path, dir, mode); verr == nil {
			return vendored, nil
		}
	}
	return nil, err
}

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: go_typecheck ROOT IMPORTPATH...")
		os.Exit(2)
	}
	root := os.Args[1]
	imports := vendoring{importer.Default().(types.ImporterFrom)}
	for _, path := range os.Args[2:] {
		dir := filepath.Join(root, filepath.FromSlash(path))
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		sort.Strings(names)
		fset := token.NewFileSet()
		var files []*ast.File
		broken := false
		for _, name := range names {
			file, err := parser.ParseFile(fset, name, nil, parser.AllErrors)
			if err != nil {
				broken = true
				continue
			}
			files = append(files, file)
		}
		if broken {
			fmt.Printf("SYNTAX %s\n", path)
			continue
		}
		conf := types.Config{
			Importer: imports,
			Error: func(err error) {
				if e, ok := err.(types.Error); ok {
					at := e.Fset.Position(e.Pos)
					rel, _ := filepath.Rel(root, at.Filename)
					msg := strings.ReplaceAll(e.Msg, "\n", " ")
					fmt.Printf("%s:%d:%d: %s\n", filepath.ToSlash(rel), at.Line, at.Column, msg)
				}
			},
		}
		conf.Check(path, fset, files, nil)
	}
}
