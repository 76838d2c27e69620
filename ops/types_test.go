package ops_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/internal/modeltest"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// typeConstraints reads, per "Op-version" of the default domain, the type
// constraints of the Changelog: constraint name → tensor element types.
func typeConstraints(t *testing.T) map[string]map[string][]string {
	b, err := os.ReadFile("../runtime/onnxpb/spec/Changelog.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`^### <a name="([^"]+)"></a>`)
	entry := regexp.MustCompile(`^<dt><tt>([^<]+)</tt> : (.*)</dt>$`)
	elem := regexp.MustCompile(`^tensor\(([a-z0-9]+)\)$`)
	out := map[string]map[string][]string{}
	var cur string
	inTypes := false
	for _, line := range strings.Split(string(b), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			cur, inTypes = m[1], false
			out[cur] = map[string][]string{}
			continue
		}
		if strings.HasPrefix(line, "#### ") {
			inTypes = line == "#### Type Constraints"
			continue
		}
		if m := entry.FindStringSubmatch(line); inTypes && m != nil {
			for _, ty := range strings.Split(m[2], ", ") {
				if e := elem.FindStringSubmatch(ty); e != nil {
					out[cur][m[1]] = append(out[cur][m[1]], e[1])
				}
			}
		}
	}
	return out
}

// floatDTypes are the float element types a float32 seed can be converted to.
var floatDTypes = map[string]tensor.DType{"float16": tensor.Float16, "bfloat16": tensor.BFloat16, "double": tensor.Double}

// asDType converts a float32 tensor to dt (float16/bfloat16 rounded, as
// they are stored).
func asDType(x *tensor.Tensor, dt tensor.DType) *tensor.Tensor {
	if dt == tensor.Double {
		v, _ := x.Float64s()
		return tensor.Of(x.Shape(), v)
	}
	c := x.Clone()
	tensor.RoundTo(dt, c.F32())
	return c.WithDType(dt)
}

// TestAddedFloatTypesRun: where a version of an op adds float16, bfloat16
// or double to a type constraint, a node-suite case of the op, converted to
// that type, must run at that version. The float32 inputs are converted all
// together or only the first, and the version passes when either runs.
func TestAddedFloatTypesRun(t *testing.T) {
	tc := typeConstraints(t)
	seeds, err := loadSeeds()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range op.Default.Ops("") {
		vs := op.Default.Versions("", name)
		for i := 1; i < len(vs); i++ {
			cur, prev := tc[fmt.Sprintf("%s-%d", name, vs[i])], tc[fmt.Sprintf("%s-%d", name, vs[i-1])]
			added := map[string]bool{}
			for c, types := range cur {
				for _, ty := range types {
					if _, ok := floatDTypes[ty]; ok && !slices.Contains(prev[c], ty) {
						added[ty] = true
					}
				}
			}
			for ty := range added {
				ss := seeds["/"+name]
				if len(ss) == 0 {
					continue
				}
				var last error
				ran, applicable := false, false
				for _, sd := range ss {
					if hasGraph(sd) && op.Default.Resolve("", name, sd.opset).Version != vs[i] {
						continue // its body was written for another opset
					}
					for _, onlyFirst := range []bool{false, true} {
						in := slices.Clone(sd.c.inputs)
						for j, x := range in {
							if x != nil && x.DType() == tensor.Float && (!onlyFirst || j == 0) {
								in[j] = asDType(x, floatDTypes[ty])
							}
						}
						_, err := modeltest.Run(modeltest.Node{Op: name, Opset: vs[i], Attrs: sd.c.attrs, In: in, Fed: len(in), NOut: sd.c.nOut})
						switch {
						case err != nil && strings.Contains(err.Error(), " requires input "):
							continue // a case of a later version, which omits an input this one needs
						case err == nil || strings.Contains(err.Error(), "not a tensor"): // a sequence output
							ran = true
						}
						applicable = true
						if ran {
							break
						}
						last = err
					}
					if ran {
						break
					}
				}
				if applicable {
					checked++
				}
				if applicable && !ran {
					t.Errorf("%s-%d adds %s, but no node-suite case of the op runs with it: %v", name, vs[i], ty, last)
				}
			}
		}
	}
	t.Logf("%d (op version, added float type) pairs checked", checked)
}

func hasGraph(sd seed) bool {
	for _, a := range sd.c.attrs {
		if a.GetG() != nil || len(a.GetGraphs()) > 0 {
			return true
		}
	}
	return false
}
