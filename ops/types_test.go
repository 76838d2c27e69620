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

// opTypes is what the Changelog says about one op version's types: the
// type constraint of each input slot, and each constraint's element types.
type opTypes struct {
	inputs      []string            // per input slot: its constraint ("T", "T1", ...)
	variadic    bool                // the last input repeats
	constraints map[string][]string // constraint → element types ("float16", "int8", ...)
}

// input returns the constraint of input slot j ("" if none).
func (o *opTypes) input(j int) string {
	switch {
	case j < len(o.inputs):
		return o.inputs[j]
	case o.variadic && len(o.inputs) > 0:
		return o.inputs[len(o.inputs)-1]
	}
	return ""
}

// typeConstraints reads the Changelog's input and type-constraint lists,
// per "Op-version" of the default domain.
func typeConstraints(t *testing.T) map[string]*opTypes {
	b, err := os.ReadFile("../runtime/onnxpb/spec/Changelog.md")
	if err != nil {
		t.Fatal(err)
	}
	heading := regexp.MustCompile(`^### <a name="([^"]+)"></a>`)
	entry := regexp.MustCompile(`^<dt><tt>([^<]+)</tt>(?: \(([^)]*)\))? : (.*)</dt>$`)
	elem := regexp.MustCompile(`^tensor\(([a-z0-9]+)\)$`)
	out := map[string]*opTypes{}
	var cur *opTypes
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		if m := heading.FindStringSubmatch(line); m != nil {
			cur = &opTypes{constraints: map[string][]string{}}
			out[m[1]], section = cur, ""
			continue
		}
		if strings.HasPrefix(line, "#### ") {
			section = strings.Fields(line)[1]
			continue
		}
		m := entry.FindStringSubmatch(line)
		if cur == nil || m == nil {
			continue
		}
		switch section {
		case "Inputs":
			cur.inputs = append(cur.inputs, m[3])
			cur.variadic = strings.Contains(m[2], "variadic")
		case "Type":
			for _, ty := range strings.Split(m[3], ", ") {
				if e := elem.FindStringSubmatch(ty); e != nil {
					cur.constraints[m[1]] = append(cur.constraints[m[1]], e[1])
				}
			}
		}
	}
	return out
}

// addedDTypes are the element types a float32 seed can be converted to.
var addedDTypes = map[string]tensor.DType{"float16": tensor.Float16, "bfloat16": tensor.BFloat16, "double": tensor.Double,
	"int8": tensor.Int8, "int16": tensor.Int16, "int32": tensor.Int32, "int64": tensor.Int64,
	"uint8": tensor.Uint8, "uint16": tensor.Uint16, "uint32": tensor.Uint32, "uint64": tensor.Uint64}

// asDType converts a float32 tensor to dt (float16/bfloat16 rounded, as
// they are stored; integers truncated and saturated).
func asDType(x *tensor.Tensor, dt tensor.DType) *tensor.Tensor {
	if dt == tensor.Float16 || dt == tensor.BFloat16 {
		c := x.Clone()
		tensor.RoundTo(dt, c.F32())
		return c.WithDType(dt)
	}
	v, _ := x.Float64s()
	out := tensor.New(dt, x.Shape()...)
	if err := tensor.StoreFloat64s(out, v); err != nil {
		panic(err)
	}
	return out
}

// typeGaps are the (op version, constraint type) pairs of the spec that
// gort refuses, with the reason; TestSpecTypesRun fails for any other.
var typeGaps = map[string]string{
	"QuantizeLinear-19/int32": "int32 x and y_scale (type constraint T1) are not supported",
	"QuantizeLinear-21/int32": "int32 x and y_scale (type constraint T1) are not supported",
}

// typeSkipped are ops whose node-suite cases cannot be converted to another
// type and still mean the same: BitCast's output type is an attribute,
// Loop/Scan/If bodies declare their value types.
var typeSkipped = map[string]bool{"BitCast": true, "Loop": true, "Scan": true, "If": true}

// TestSpecTypesRun: for every registered op version and every float16,
// bfloat16, double or 8- to 64-bit integer type its type constraints allow
// for some inputs, a node-suite case of the op that runs at that version
// must still run with those inputs (the float32 ones among them) converted
// to that type. Cases that do not run unconverted at the version (written
// for another version's inputs or attributes) are not used.
func TestSpecTypesRun(t *testing.T) {
	tc := typeConstraints(t)
	seeds, err := loadSeeds()
	if err != nil {
		t.Fatal(err)
	}
	run := func(name string, version int, sd seed, in []*tensor.Tensor) error {
		_, err := modeltest.Run(modeltest.Node{Op: name, Opset: version, Attrs: sd.c.attrs, In: in, Fed: len(in), NOut: sd.c.nOut})
		if err != nil && strings.Contains(err.Error(), "not a tensor") {
			return nil // a sequence output
		}
		return err
	}
	checked := 0
	gapsSeen := map[string]bool{}
	for _, name := range op.Default.Ops("") {
		if typeSkipped[name] {
			continue
		}
		for _, v := range op.Default.Versions("", name) {
			cur := tc[fmt.Sprintf("%s-%d", name, v)]
			if cur == nil {
				continue
			}
			for c, types := range cur.constraints {
				for _, ty := range types {
					dt, ok := addedDTypes[ty]
					if !ok {
						continue
					}
					var last error
					ran, applicable := false, false
					for _, sd := range seeds["/"+name] {
						in := slices.Clone(sd.c.inputs)
						converted := false
						for j, x := range in {
							if cur.input(j) == c && x != nil && x.DType() == tensor.Float {
								in[j], converted = asDType(x, dt), true
							}
						}
						if !converted || run(name, v, sd, sd.c.inputs) != nil {
							continue
						}
						applicable = true
						if last = run(name, v, sd, in); last == nil {
							ran = true
							break
						}
					}
					if !applicable {
						continue
					}
					checked++
					key := fmt.Sprintf("%s-%d/%s", name, v, ty)
					_, gap := typeGaps[key]
					switch {
					case !ran && gap:
						gapsSeen[key] = true
					case !ran:
						t.Errorf("%s-%d allows %s for %s, but a node-suite case of the op does not run with it: %v", name, v, ty, c, last)
					case gap:
						t.Errorf("%s is listed in typeGaps but runs", key)
					}
				}
			}
		}
	}
	for k := range typeGaps {
		if !gapsSeen[k] {
			t.Errorf("typeGaps lists %s, which was not checked", k)
		}
	}
	t.Logf("%d (op version, type) pairs checked, %d known gaps", checked, len(gapsSeen))
}

func hasGraph(sd seed) bool {
	for _, a := range sd.c.attrs {
		if a.GetG() != nil || len(a.GetGraphs()) > 0 {
			return true
		}
	}
	return false
}
