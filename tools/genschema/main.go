// Command genschema writes runtime/schema/schema_gen.go: the signature of every
// operator version the pinned ONNX changelogs define (inputs and outputs with
// arity, optional and variadic; attributes with type, default and required;
// type constraints), so the model checker can hold each node to the schema of
// the version its opset selects.
//
// The changelogs (runtime/onnxpb/spec/Changelog*.md, vendored with the
// protobuf definitions) hold every version of every op, where Operators.md
// holds only the newest, so they are the single source. The output is one
// compact text table parsed at first use: Go literals of ~2,000 schemas would
// cost init code in gort.wasm.
//
// Usage (from the repository root): go run ./tools/genschema
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/format"
	"io"
	"io/fs"
	"log"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Sources are the changelogs read, in order; Output is the generated file.
var (
	Sources = []string{"runtime/onnxpb/spec/Changelog.md", "runtime/onnxpb/spec/Changelog-ml.md"}
	Output  = "runtime/schema/schema_gen.go"
)

var (
	heading    = regexp.MustCompile(`^### <a name="([^"]+)-(\d+)"></a>\*\*[^*]+\*\*( \(deprecated\))?`)
	arity      = regexp.MustCompile(`^#### (Inputs|Outputs)(?: \((\d+) - (\d+|&#8734;)\))?\s*$`)
	paramEntry = regexp.MustCompile(`^<dt><tt>([^<]+)</tt>(?: \(([^)]*)\))? : (.+)</dt>$`)
	attrEntry  = regexp.MustCompile(`^<dt><tt>([^<]+)</tt> : ([a-z_ ]+?)(?: \((required|default is (.*))\))?</dt>$`)
	constraint = regexp.MustCompile(`^<dt><tt>([^<]+)</tt> : (.*)</dt>$`)
)

func main() {
	src, err := Generate(os.DirFS("."), Sources)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(Output, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// opSchema is one "### <a name=...>" section.
type opSchema struct {
	domain, name       string
	version            int
	deprecated         bool
	minIn, maxIn       int // -1 max: unbounded
	minOut, maxOut     int
	ins, outs          []string // "name flags type"
	attrs, constraints []string
	inRange, outRange  bool
}

// Generate reads the changelogs from fsys and returns the formatted Go source.
func Generate(fsys fs.FS, paths []string) ([]byte, error) {
	var all []*opSchema
	for _, p := range paths {
		f, err := fsys.Open(p)
		if err != nil {
			return nil, err
		}
		ops, err := parse(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		all = append(all, ops...)
	}
	return render(all)
}

func parse(r io.Reader) ([]*opSchema, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var all []*opSchema
	var cur *opSchema
	section := ""
	for sc.Scan() {
		line := sc.Text()
		if m := heading.FindStringSubmatch(line); m != nil {
			name, domain := m[1], ""
			if i := strings.LastIndex(name, "."); i >= 0 {
				domain, name = name[:i], name[i+1:]
			}
			v, _ := strconv.Atoi(m[2])
			cur = &opSchema{domain: domain, name: name, version: v, deprecated: m[3] != ""}
			all = append(all, cur)
			section = ""
			continue
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(line, "#### ") {
			section = strings.TrimSpace(strings.TrimPrefix(line, "#### "))
			if m := arity.FindStringSubmatch(line); m != nil {
				section = m[1]
				if m[2] != "" {
					lo, _ := strconv.Atoi(m[2])
					hi := -1
					if m[3] != "&#8734;" {
						hi, _ = strconv.Atoi(m[3])
					}
					if section == "Inputs" {
						cur.minIn, cur.maxIn, cur.inRange = lo, hi, true
					} else {
						cur.minOut, cur.maxOut, cur.outRange = lo, hi, true
					}
				}
			}
			continue
		}
		if !strings.HasPrefix(line, "<dt><tt>") {
			continue
		}
		switch section {
		case "Inputs", "Outputs":
			m := paramEntry.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%s-%d: unparsed %s entry %q", cur.name, cur.version, section, line)
			}
			var flags []string
			for _, f := range strings.Split(m[2], ",") {
				switch strings.TrimSpace(f) {
				case "optional":
					flags = append(flags, "opt")
				case "variadic":
					flags = append(flags, "var")
				case "heterogeneous":
					flags = append(flags, "het")
				}
			}
			fl := strings.Join(flags, ",")
			if fl == "" {
				fl = "-"
			}
			p := m[1] + " " + fl + " " + strings.ReplaceAll(m[3], " ", "")
			if section == "Inputs" {
				cur.ins = append(cur.ins, p)
			} else {
				cur.outs = append(cur.outs, p)
			}
		case "Attributes":
			m := attrEntry.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%s-%d: unparsed attribute %q", cur.name, cur.version, line)
			}
			typ := attrType(m[2])
			if typ == "" {
				return nil, fmt.Errorf("%s-%d: attribute type %q", cur.name, cur.version, m[2])
			}
			a := m[1] + " " + typ
			switch {
			case m[3] == "required":
				a += " r"
			case strings.HasPrefix(m[3], "default is"):
				a += " d " + m[4]
			default:
				a += " -"
			}
			cur.attrs = append(cur.attrs, a)
		case "Type Constraints":
			m := constraint.FindStringSubmatch(line)
			if m == nil {
				return nil, fmt.Errorf("%s-%d: unparsed type constraint %q", cur.name, cur.version, line)
			}
			cur.constraints = append(cur.constraints, m[1]+" "+strings.Join(splitTypes(m[2]), " "))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, s := range all {
		if !s.inRange {
			s.minIn, s.maxIn = count(s.ins)
		}
		if !s.outRange {
			s.minOut, s.maxOut = count(s.outs)
		}
	}
	return all, nil
}

// count derives the arity of a parameter list without an explicit range:
// every non-optional parameter is required, a variadic one needs one value.
func count(ps []string) (lo, hi int) {
	for _, p := range ps {
		flags := strings.Fields(p)[1]
		hi++
		if strings.Contains(flags, "var") {
			lo++
			return lo, -1
		}
		if !strings.Contains(flags, "opt") {
			lo = hi
		}
	}
	return lo, hi
}

// attrType maps the changelog's attribute type words to AttributeProto type names.
func attrType(s string) string {
	switch s {
	case "int":
		return "INT"
	case "float":
		return "FLOAT"
	case "string":
		return "STRING"
	case "tensor":
		return "TENSOR"
	case "graph":
		return "GRAPH"
	case "sparse_tensor":
		return "SPARSE_TENSOR"
	case "type_proto":
		return "TYPE_PROTO"
	case "list of ints":
		return "INTS"
	case "list of floats":
		return "FLOATS"
	case "list of strings":
		return "STRINGS"
	case "list of tensors":
		return "TENSORS"
	case "list of graphs":
		return "GRAPHS"
	case "list of sparse_tensors":
		return "SPARSE_TENSORS"
	case "list of type_protos":
		return "TYPE_PROTOS"
	}
	return ""
}

// splitTypes splits "tensor(a), map(int64, string)" at top-level commas.
func splitTypes(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.ReplaceAll(strings.TrimSpace(s[start:i]), " ", ""))
				start = i + 1
			}
		}
	}
	if t := strings.ReplaceAll(strings.TrimSpace(s[start:]), " ", ""); t != "" {
		out = append(out, t)
	}
	return out
}

func render(all []*opSchema) ([]byte, error) {
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.domain != b.domain {
			return a.domain < b.domain
		}
		if a.name != b.name {
			return a.name < b.name
		}
		return a.version < b.version
	})
	var t strings.Builder
	for _, s := range all {
		dep := ""
		if s.deprecated {
			dep = " deprecated"
		}
		fmt.Fprintf(&t, "op %q %s %d %d %d %d %d%s\n", s.domain, s.name, s.version, s.minIn, s.maxIn, s.minOut, s.maxOut, dep)
		for _, p := range s.ins {
			t.WriteString("i " + p + "\n")
		}
		for _, p := range s.outs {
			t.WriteString("o " + p + "\n")
		}
		for _, a := range s.attrs {
			t.WriteString("a " + a + "\n")
		}
		for _, c := range s.constraints {
			t.WriteString("t " + c + "\n")
		}
	}
	if strings.Contains(t.String(), "`") {
		return nil, fmt.Errorf("a backquote in the table")
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by tools/genschema from runtime/onnxpb/spec/Changelog*.md. DO NOT EDIT.\n\n")
	b.WriteString("package schema\n\n")
	b.WriteString("// table holds every op schema of the pinned spec, in the format parse (schema.go) reads.\n")
	b.WriteString("const table = `\n" + t.String() + "`\n")
	return format.Source(b.Bytes())
}
