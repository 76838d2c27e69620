package gort_test

import (
	"bufio"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	_ "github.com/gort-dev/gort/ops" // the operator set, for TestOpFiles
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
)

// TestLayout holds the Layout section of docs/architecture.md to the source tree: its
// package table lists every Go package directory of the module and no
// other, and its table of import rules names exactly the packages that
// import syscall/js (in code, and in tests only) and the packages under
// runtime/ that import the operators. Imports are read from every .go file
// whatever its build constraints, so the GOOS=js files count too; and every
// file importing syscall/js must be one that only GOOS=js builds, as the
// document says.
func TestLayout(t *testing.T) {
	module := modulePath(t)
	pkgs := scanPackages(t)
	table, rules := readLayout(t)

	t.Run("table", func(t *testing.T) {
		for _, dir := range sortedKeys(pkgs) {
			if !table[dir] {
				t.Errorf(layoutDoc+" Layout table: package %s (%s) is missing", dir, strings.Join(pkgs[dir].files, ", "))
			}
		}
		for _, dir := range sortedKeys(table) {
			if _, ok := pkgs[dir]; !ok {
				t.Errorf(layoutDoc+" Layout table lists %s, which holds no Go package", dir)
			}
		}
	})

	// what imports syscall/js, or a package of the module under ops/
	isJS := func(p string) bool { return p == "syscall/js" }
	isOps := func(p string) bool { return p == module+"/ops" || strings.HasPrefix(p, module+"/ops/") }
	inRuntime := func(dir string) bool { return dir == "runtime" || strings.HasPrefix(dir, "runtime/") }
	code, tests, ops := map[string][]string{}, map[string][]string{}, map[string][]string{}
	for dir, p := range pkgs {
		for i, f := range p.files {
			test := strings.HasSuffix(f, "_test.go")
			for _, imp := range p.imports[i] {
				if isJS(imp) && !p.jsOnly[i] {
					t.Errorf("%s/%s imports syscall/js but is not limited to GOOS=js (name *_js.go or //go:build js)", dir, f)
				}
				switch {
				case isJS(imp) && !test:
					code[dir] = append(code[dir], f)
				case isJS(imp):
					tests[dir] = append(tests[dir], f)
				case isOps(imp) && !test && inRuntime(dir):
					ops[dir] = append(ops[dir], f+" imports "+imp)
				}
			}
		}
	}
	for dir := range code {
		delete(tests, dir)
	}
	t.Run("syscall-js", func(t *testing.T) {
		checkRule(t, rules, "import `syscall/js`", code)
		checkRule(t, rules, "import `syscall/js` in tests only", tests)
	})
	t.Run("runtime-ops", func(t *testing.T) {
		checkRule(t, rules, "under `runtime/`, import `ops` or a package under it", ops)
	})
}

// checkRule compares the packages the layout document gives for a rule with the ones
// found (directory → the files that make it so).
func checkRule(t *testing.T, rules map[string]map[string]bool, rule string, found map[string][]string) {
	t.Helper()
	stated, ok := rules[rule]
	if !ok {
		t.Errorf(layoutDoc+" Layout: no row %q in the import rules", rule)
		return
	}
	for _, dir := range sortedKeys(found) {
		if !stated[dir] {
			t.Errorf(layoutDoc+" rule %q: %s is not listed (%s)", rule, dir, strings.Join(found[dir], ", "))
		}
	}
	for _, dir := range sortedKeys(stated) {
		if _, ok := found[dir]; !ok {
			t.Errorf(layoutDoc+" rule %q lists %s, which does not", rule, dir)
		}
	}
}

type pkgFiles struct {
	files   []string   // names of the package's .go files
	imports [][]string // the import paths of each file
	jsOnly  []bool     // whether only GOOS=js builds the file
}

// scanPackages reads the imports of every .go file of the module, by
// directory (slash-separated, "." for the root), skipping what the go
// command skips: testdata, directories starting with "." or "_", and nested
// modules; and node_modules, which holds no Go of this module.
func scanPackages(t *testing.T) map[string]*pkgFiles {
	t.Helper()
	pkgs := map[string]*pkgFiles{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p == "." {
				return nil
			}
			if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		var imps []string
		for _, s := range f.Imports {
			v, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return err
			}
			imps = append(imps, v)
		}
		dir := filepath.ToSlash(filepath.Dir(p))
		if pkgs[dir] == nil {
			pkgs[dir] = &pkgFiles{}
		}
		pkgs[dir].files = append(pkgs[dir].files, name)
		pkgs[dir].imports = append(pkgs[dir].imports, imps)
		pkgs[dir].jsOnly = append(pkgs[dir].jsOnly, jsOnly(name, f.Comments, f.Package))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found only %d packages; is the test running in the module root?", len(pkgs))
	}
	return pkgs
}

// jsOnly reports whether only GOOS=js builds a file: its name ends in _js
// or _js_wasm (before _test), or its //go:build line is false whenever js
// is.
func jsOnly(name string, comments []*ast.CommentGroup, pkg token.Pos) bool {
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".go"), "_test")
	if strings.HasSuffix(base, "_js") || strings.HasSuffix(base, "_js_wasm") {
		return true
	}
	for _, g := range comments {
		if g.Pos() >= pkg {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			expr, err := constraint.Parse(c.Text)
			if err != nil {
				return false
			}
			return !expr.Eval(func(tag string) bool { return tag != "js" })
		}
	}
	return false
}

// layoutDoc holds the package table and the import rules, under "## Layout".
const layoutDoc = "docs/architecture.md"

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	parens     = regexp.MustCompile(`\([^()]*\)`)
	pkgPath    = regexp.MustCompile(`^[a-z0-9_]+(/[a-z0-9_]+)*$`)
)

// readLayout parses the Layout section of layoutDoc: the package table
// (header "| path | what |"; its first cell names packages in backticks,
// a file such as `gort.go` standing for its directory, and text in
// parentheses is commentary) and the import rules table (header
// "| rule | packages | why |": the second cell names the packages).
func readLayout(t *testing.T) (table map[string]bool, rules map[string]map[string]bool) {
	t.Helper()
	f, err := os.Open(layoutDoc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	table, rules = map[string]bool{}, map[string]map[string]bool{}
	var section, header string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
			continue
		}
		if section != "Layout" {
			continue
		}
		if !strings.HasPrefix(line, "|") {
			header = ""
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if header == "" {
			header = strings.Join(cells, "|")
			continue
		}
		if strings.HasPrefix(cells[0], "---") {
			continue
		}
		switch header {
		case "path|what":
			for _, p := range packagesIn(t, parens.ReplaceAllString(cells[0], "")) {
				if strings.HasSuffix(p, ".go") {
					p = path.Dir(p)
				}
				table[p] = true
			}
		case "rule|packages|why":
			set := map[string]bool{}
			for _, p := range packagesIn(t, cells[1]) {
				set[p] = true
			}
			rules[cells[0]] = set
		default:
			t.Fatalf(layoutDoc+" Layout: a table with the unknown header %q", header)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(table) == 0 || len(rules) == 0 {
		t.Fatalf(layoutDoc+": no package table (%d rows) or no import rules (%d rows) under ## Layout", len(table), len(rules))
	}
	return table, rules
}

// packagesIn returns the backticked paths of a cell, each required to be
// one (so a typo cannot hide as prose).
func packagesIn(t *testing.T, cell string) []string {
	t.Helper()
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(cell, -1) {
		p := strings.TrimSuffix(m[1], "/")
		if !pkgPath.MatchString(strings.TrimSuffix(p, ".go")) {
			t.Errorf(layoutDoc+" Layout: %q in a package cell is not a package path", m[1])
			continue
		}
		out = append(out, p)
	}
	return out
}

// TestOpFiles holds ops/doc.go's rules to the source: every version of an
// op is registered in one file (a file may register several ops), and the
// op's shape rule (shapes.Register), subgraph typing (shapes.RegisterBody)
// and constant-folding exception (shapes.NoFold) are bound in that same
// file. It reads the registrations the operator packages write:
// op.Register, op.Default.Register and the shapes functions with the op's
// name as a string literal, a local helper named reg called with one, and
// a for loop over a literal list or map of names whose body registers; it
// fails if the registry holds an op, or a shape rule, registered in
// another form.
func TestOpFiles(t *testing.T) {
	files := map[string]map[string]bool{}      // domain/op → files
	shapeFiles := map[string]map[string]bool{} // domain/op → files binding its shape rules
	fset := token.NewFileSet()
	err := filepath.WalkDir("ops", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		add := func(to map[string]map[string]bool, domain string, name ast.Expr) {
			lit, ok := name.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return
			}
			v, _ := strconv.Unquote(lit.Value)
			k := domain + "/" + v
			if to[k] == nil {
				to[k] = map[string]bool{}
			}
			to[k][filepath.ToSlash(p)] = true
		}
		// a local reg helper registers an op, and its shape rule when its body binds one
		regShapes := false
		ast.Inspect(f, func(n ast.Node) bool {
			if a, ok := n.(*ast.AssignStmt); ok && len(a.Lhs) == 1 && len(a.Rhs) == 1 && types.ExprString(a.Lhs[0]) == "reg" {
				if fl, ok := a.Rhs[0].(*ast.FuncLit); ok {
					regShapes = registers(fl.Body, shapesRegister)
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				switch fn := types.ExprString(n.Fun); {
				case fn == "reg" && len(n.Args) > 0:
					add(files, `""`, n.Args[0])
					if regShapes {
						add(shapeFiles, `""`, n.Args[0])
					}
				case fn == "op.Register" && len(n.Args) > 0:
					add(files, `""`, n.Args[0])
				case fn == "op.Default.Register" && len(n.Args) > 1:
					add(files, types.ExprString(n.Args[0]), n.Args[1])
				case shapesRegister[fn] && len(n.Args) > 1:
					add(shapeFiles, types.ExprString(n.Args[0]), n.Args[1])
				}
			case *ast.RangeStmt:
				list, ok := n.X.(*ast.CompositeLit)
				if !ok {
					return true
				}
				ops, rules := registers(n.Body, opRegister), registers(n.Body, shapesRegister)
				for _, e := range list.Elts {
					if kv, ok := e.(*ast.KeyValueExpr); ok {
						e = kv.Key
					}
					if ops {
						add(files, `""`, e)
					}
					if rules {
						add(shapeFiles, `""`, e)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for k := range files {
		read[k[strings.LastIndex(k, "/")+1:]] = true
	}
	for _, d := range op.Default.Domains() {
		for _, name := range op.Default.Ops(d) {
			if !read[name] {
				t.Errorf("%s (domain %q) is registered in a form this test does not read", name, d)
			}
		}
	}
	for _, k := range sortedKeys(files) {
		if len(files[k]) > 1 {
			t.Errorf("%s is registered in several files: %s", k, strings.Join(sortedKeys(files[k]), ", "))
		}
	}
	readRule := map[string]bool{}
	for _, k := range sortedKeys(shapeFiles) {
		readRule[k[strings.LastIndex(k, "/")+1:]] = true
		if !slices.Equal(sortedKeys(shapeFiles[k]), sortedKeys(files[k])) {
			t.Errorf("%s: its shape rules are bound in %s, the op is registered in %s", k,
				strings.Join(sortedKeys(shapeFiles[k]), ", "), strings.Join(sortedKeys(files[k]), ", "))
		}
	}
	rules := 0
	for _, d := range op.Default.Domains() {
		for _, name := range op.Default.Ops(d) {
			if shapes.Lookup(d, name) == nil {
				continue
			}
			rules++
			if !readRule[name] {
				t.Errorf("the shape rule of %s (domain %q) is registered in a form this test does not read", name, d)
			}
		}
	}
	if rules < 150 {
		t.Errorf("only %d ops have a shape rule; the ops register them with shapes.Register", rules)
	}
}

var (
	opRegister     = map[string]bool{"op.Register": true}
	shapesRegister = map[string]bool{"shapes.Register": true, "shapes.RegisterBody": true, "shapes.NoFold": true}
)

// registers reports whether a block calls one of fns.
func registers(b *ast.BlockStmt, fns map[string]bool) bool {
	found := false
	ast.Inspect(b, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok && fns[types.ExprString(c.Fun)] {
			found = true
		}
		return !found
	})
	return found
}

// TestShapesHoldNoOpNames: runtime/shapes is the inference engine and a
// library of shape algebra; what each op does is said in the op's own file
// (TestOpFiles), so the package's source names no op: no string literal in
// it equals the name of a registered op.
func TestShapesHoldNoOpNames(t *testing.T) {
	names := map[string]bool{}
	for _, d := range op.Default.Domains() {
		for _, name := range op.Default.Ops(d) {
			names[name] = true
		}
	}
	paths, err := filepath.Glob("runtime/shapes/*.go")
	if err != nil || len(paths) == 0 {
		t.Fatalf("runtime/shapes: %v", err)
	}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if v, _ := strconv.Unquote(lit.Value); names[v] {
					t.Errorf("%s: the op name %s; bind what the op does in its own file under ops/", fset.Position(lit.Pos()), lit.Value)
				}
			}
			return true
		})
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// modulePath reads the module path from go.mod.
func modulePath(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	t.Fatal("go.mod: no module line")
	return ""
}
