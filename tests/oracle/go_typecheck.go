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
//
//	go run tests/oracle/go_typecheck.go -calls ROOT IMPORTPATH...
//
// With -calls it prints, instead of the errors, one line per call expression of the packages
// whose callee resolves (types.Info.Selections, else Uses) to a function or method declared
// under ROOT: `CALL callee:line:column site:line:column KIND`, the callee's declaration at
// its name, the site at the callee's name in the call (`f` in `f(x)`, `M` in `x.M()`, `f` in
// `f[T](x)`), paths relative to ROOT, columns in bytes, then KIND and the callee's NAME. KIND
// is `interface` when the callee is an interface's method (the call dispatches at run time),
// else `static`; an interface's method is listed wherever it is declared (`-:0:0` outside
// ROOT). A callee in another package comes from the export data, which keeps the line
// of a declaration but not its column. Used by go_calls_compare.py.
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

// calleeName is the identifier naming what a call's function expression calls, or nil.
func calleeName(fun ast.Expr) *ast.Ident {
	for {
		switch e := fun.(type) {
		case *ast.ParenExpr:
			fun = e.X
		case *ast.IndexExpr:
			fun = e.X
		case *ast.IndexListExpr:
			fun = e.X
		case *ast.Ident:
			return e
		case *ast.SelectorExpr:
			return e.Sel
		default:
			return nil
		}
	}
}

// relative is a position's file under root as a slash path, or "" outside it. A package
// imported from the toolchain's export data names its files `$GOROOT/src/…`: such a file is
// under root when root holds a copy of it.
func relative(root, file string) string {
	if strings.HasPrefix(file, "$GOROOT/src/") {
		rest := strings.TrimPrefix(file, "$GOROOT/src/")
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rest))); err != nil {
			return ""
		}
		return rest
	}
	rel, err := filepath.Rel(root, file)
	if err != nil || strings.HasPrefix(rel, "..") {
		return ""
	}
	return filepath.ToSlash(rel)
}

func printCalls(root string, fset *token.FileSet, files []*ast.File, info *types.Info) {
	for _, file := range files {
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			id := calleeName(call.Fun)
			if id == nil {
				return true
			}
			var obj types.Object
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel == id {
				if selection, ok := info.Selections[sel]; ok {
					obj = selection.Obj()
				}
			}
			if obj == nil {
				obj = info.Uses[id]
			}
			fn, ok := obj.(*types.Func)
			if !ok {
				return true
			}
			fn = fn.Origin()
			declared := fset.Position(fn.Pos())
			calleeFile := relative(root, declared.Filename)
			kind := "static"
			if recv := fn.Type().(*types.Signature).Recv(); recv != nil && types.IsInterface(recv.Type()) {
				kind = "interface"
			}
			if calleeFile == "" {
				if kind == "static" {
					return true
				}
				calleeFile, declared.Line, declared.Column = "-", 0, 0
			}
			at := fset.Position(id.Pos())
			fmt.Printf("CALL %s:%d:%d %s:%d:%d %s %s\n", calleeFile, declared.Line, declared.Column,
				relative(root, at.Filename), at.Line, at.Column, kind, fn.Name())
			return true
		})
	}
}

func main() {
	calls := len(os.Args) > 1 && os.Args[1] == "-calls"
	args := os.Args[1:]
	if calls {
		args = args[1:]
	}
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: go_typecheck [-calls] ROOT IMPORTPATH...")
		os.Exit(2)
	}
	root := args[0]
	imports := vendoring{importer.Default().(types.ImporterFrom)}
	// With -calls, one file set for the run, shared with the importer, so that the positions
	// of imported declarations can be read.
	shared := token.NewFileSet()
	if calls {
		imports = vendoring{importer.ForCompiler(shared, "gc", nil).(types.ImporterFrom)}
	}
	for _, path := range args[1:] {
		dir := filepath.Join(root, filepath.FromSlash(path))
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		sort.Strings(names)
		fset := token.NewFileSet()
		if calls {
			fset = shared
		}
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
		if calls {
			info := &types.Info{
				Uses:       map[*ast.Ident]types.Object{},
				Selections: map[*ast.SelectorExpr]*types.Selection{},
			}
			conf := types.Config{Importer: imports, Error: func(error) {}}
			conf.Check(path, fset, files, info)
			printCalls(root, fset, files, info)
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
