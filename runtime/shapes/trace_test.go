package shapes_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// coverage counts, over all values observed while running, how many
// inference claimed a rank for, how many it fully determined, and mismatches.
type coverage struct {
	values, ranked, exact, symbolic int
	mismatches                      []string
}

// TestInferredShapesMatchRuns runs every node-suite model and the bench
// models with a trace and compares each observed value with its inferred
// type: dtype, rank, every fixed dim, and symbolic dims bound consistently.
func TestInferredShapesMatchRuns(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/onnx-node/node/test_*")
	bench, _ := filepath.Glob("../../testdata/bench/test_*")
	if testing.Short() {
		dirs = dirs[:200]
		bench = nil
	}
	if len(dirs) == 0 {
		t.Fatal("no node-suite cases found")
	}
	var cov, sym coverage
	for _, d := range append(dirs, bench...) {
		traceCase(t, d, &cov, false)
		traceCase(t, d, &sym, true)
	}
	t.Logf("%d cases: %d values observed; inference gave the rank of %d (%.1f%%), every dim of %d (%.1f%%); %d mismatches",
		len(dirs)+len(bench), cov.values, cov.ranked, pct(cov.ranked, cov.values), cov.exact, pct(cov.exact, cov.values), len(cov.mismatches))
	t.Logf("with every input dim made symbolic: rank of %d (%.1f%%), every dim of %d (%.1f%%), %d of them with symbolic dims; %d mismatches",
		sym.ranked, pct(sym.ranked, sym.values), sym.exact, pct(sym.exact, sym.values), sym.symbolic, len(sym.mismatches))
	for i, m := range append(cov.mismatches, sym.mismatches...) {
		if i == 40 {
			t.Errorf("… and %d more", len(cov.mismatches)-40)
			break
		}
		t.Error(m)
	}
}

func pct(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }

// traceCase compares one case; with symbolic, every dim of every graph
// input is first renamed to its own symbol (in<i>_<axis>), so that the
// inferred shapes are expressions the run then binds.
func traceCase(t *testing.T, dir string, cov *coverage, symbolic bool) {
	name := filepath.Base(dir)
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		t.Fatal(err)
	}
	mp := &pb.ModelProto{}
	if err := pb.Unmarshal(data, mp); err != nil {
		t.Fatal(err)
	}
	inferred := mp
	if symbolic {
		inferred = pb.Clone(mp)
		inits := map[string]bool{}
		for _, i := range inferred.GetGraph().GetInitializer() {
			inits[i.GetName()] = true
		}
		for i, in := range inferred.GetGraph().GetInput() {
			tt := in.GetType().GetTensorType()
			if inits[in.GetName()] || tt == nil || tt.GetShape() == nil {
				continue
			}
			for a, d := range tt.GetShape().GetDim() {
				d.Value = &pb.TensorShapeProto_Dimension_DimParam{DimParam: fmt.Sprintf("in%d_%d", i, a)}
			}
		}
		// Declared intermediate and output shapes would pin the symbols; drop them.
		inferred.GetGraph().ValueInfo = nil
		for _, o := range inferred.GetGraph().GetOutput() {
			if tt := o.GetType().GetTensorType(); tt != nil {
				tt.Shape = nil
			}
		}
	}
	res := shapes.Model(inferred, nil)
	for _, p := range res.Problems {
		cov.mismatches = append(cov.mismatches, fmt.Sprintf("%s: problem %s at %s: %s", name, p.Code, p.Node, p.Msg))
	}
	s, err := runtime.Load(data, &runtime.Options{Optimization: plan.Disabled})
	if err != nil {
		return // the conformance manifest covers models gort cannot load
	}
	feeds := map[string]tensor.Value{}
	for i, in := range s.Inputs() {
		b, err := os.ReadFile(filepath.Join(dir, "test_data_set_0", fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			continue
		}
		kind := protoconv.TensorValue
		switch in.Type.Kind {
		case graph.KindSequence:
			kind = protoconv.SequenceValue
		case graph.KindOptional:
			kind = protoconv.OptionalValue
		}
		v, err := protoconv.DecodeValue(b, kind, 0)
		if err != nil {
			return
		}
		feeds[in.Name] = v
	}
	main := map[string]bool{}
	for _, n := range mp.GetGraph().GetNode() {
		for _, o := range n.GetOutput() {
			main[o] = true
		}
	}
	seen := map[string]int{}
	observed := map[string]*tensor.Tensor{}
	_, err = s.RunWith(context.Background(), feeds, nil, runtime.RunOptions{Trace: func(n *graph.Node, outs []tensor.Value) {
		for i, v := range outs {
			if i >= len(n.Outputs) || !main[n.Outputs[i]] {
				continue
			}
			seen[n.Outputs[i]]++
			if tt, ok := v.(*tensor.Tensor); ok {
				observed[n.Outputs[i]] = tt
			}
		}
	}})
	if err != nil {
		return
	}
	bind := map[string]int64{}
	// Graph inputs bind their symbolic dims first.
	for _, in := range inferred.GetGraph().GetInput() {
		f, ok := feeds[in.GetName()].(*tensor.Tensor)
		info := res.Values[in.GetName()]
		if !ok || info == nil || info.Type.Shape == nil || len(info.Type.Shape) != len(f.Shape()) {
			continue
		}
		for i, d := range info.Type.Shape {
			if d.Param != "" {
				if _, done := bind[d.Param]; !done {
					bind[d.Param] = int64(f.Shape()[i])
				}
			}
		}
	}
	names := make([]string, 0, len(observed))
	for n := range observed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, v := range names {
		if seen[v] != 1 {
			continue
		}
		got := observed[v]
		cov.values++
		info := res.Values[v]
		if info == nil || info.Type.Kind != graph.KindTensor {
			continue
		}
		if info.Type.Elem != 0 && info.Type.Elem != got.DType() {
			cov.mismatches = append(cov.mismatches, fmt.Sprintf("%s: %q inferred dtype %s, ran as %s", name, v, info.Type.Elem, got.DType()))
			continue
		}
		if info.Type.Shape == nil {
			continue
		}
		cov.ranked++
		want := got.Shape()
		if len(info.Type.Shape) != len(want) {
			cov.mismatches = append(cov.mismatches, fmt.Sprintf("%s: %q inferred %v, ran as %v", name, v, info.Type, want))
			continue
		}
		exact, sym := true, false
		for i, d := range info.Type.Shape {
			switch {
			case d.Param == "" && d.Value >= 0:
				if d.Value != int64(want[i]) {
					cov.mismatches = append(cov.mismatches, fmt.Sprintf("%s: %q inferred %v, ran as %v", name, v, info.Type, want))
					exact = false
				}
			case d.Param != "":
				sym = true
				val, ok := evalDim(d.Param, bind)
				if !ok && isIdent(d.Param) {
					bind[d.Param], val, ok = int64(want[i]), int64(want[i]), true
				}
				if !ok {
					exact = false
				} else if val != int64(want[i]) {
					cov.mismatches = append(cov.mismatches, fmt.Sprintf("%s: %q inferred %v (%s = %d), ran as %v", name, v, info.Type, d.Param, val, want))
					exact = false
				}
			default:
				exact = false
			}
		}
		if exact {
			cov.exact++
			if sym {
				cov.symbolic++
			}
		}
	}
}

func isIdent(s string) bool { return !strings.ContainsAny(s, "*+()") }

// evalDim evaluates a dim expression ("2*N*C", "(H-2)", "(N+M)") with the bound names.
func evalDim(s string, bind map[string]int64) (int64, bool) {
	e := &expr{s: s, bind: bind}
	v := e.sum()
	return v, e.ok && e.i == len(s)
}

type expr struct {
	s    string
	i    int
	bind map[string]int64
	ok   bool
}

func (e *expr) sum() int64 {
	e.ok = true
	v := e.product()
	for e.i < len(e.s) && (e.s[e.i] == '+' || e.s[e.i] == '-') {
		op := e.s[e.i]
		e.i++
		w := e.product()
		if op == '+' {
			v += w
		} else {
			v -= w
		}
	}
	return v
}

func (e *expr) product() int64 {
	v := e.factor()
	for e.i < len(e.s) && e.s[e.i] == '*' {
		e.i++
		v *= e.factor()
	}
	return v
}

func (e *expr) factor() int64 {
	if e.i < len(e.s) && e.s[e.i] == '(' {
		e.i++
		ok := e.ok
		v := e.sum()
		e.ok = e.ok && ok
		if e.i >= len(e.s) || e.s[e.i] != ')' {
			e.ok = false
			return 0
		}
		e.i++
		return v
	}
	j := e.i
	for e.i < len(e.s) && !strings.ContainsRune("+-*()", rune(e.s[e.i])) {
		e.i++
	}
	tok := e.s[j:e.i]
	if n, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return n
	}
	v, ok := e.bind[tok]
	if !ok || tok == "" {
		e.ok = false
	}
	return v
}
