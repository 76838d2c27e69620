package control

import (
	"slices"

	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Scan-8 batches every input along axis 0, scans axis 1 and takes an optional
// sequence_lens input; Scan-9 dropped batching for per-input and per-output
// axes and directions; Scan-11 allows negative axes (accepted here for 9 too,
// where they were simply undefined); later versions only add element types.
func init() {
	op.Register("Scan", []int{8, 9, 11, 16, 19, 21, 23, 24, 25}, buildScan)
	shapes.Register("", "Scan", inferScan)
	shapes.RegisterBody("", "Scan", scanBody)
}

type scan struct {
	n      *op.Node
	body   op.Subgraph
	nState int // N loop state variables
	nIn    int // M scan inputs
	nOut   int // K scan outputs
	v8     bool
	inAxes []int64
	inRev  []bool
	outAx  []int64
	outRev []bool
}

func buildScan(n *op.Node) (any, error) {
	body := n.Graph("body")
	if body == nil {
		return nil, n.Errorf("Scan needs the graph attribute body")
	}
	a := &op.Attribs{N: n}
	m := a.Int("num_scan_inputs", -1)
	s := &scan{n: n, body: body, v8: n.Version < 9, nIn: int(m)}
	if a.Err != nil {
		return nil, a.Err
	}
	if m < 1 {
		return nil, n.Errorf("Scan needs num_scan_inputs ≥ 1, got %d", m)
	}
	s.nState = len(body.InputNames()) - s.nIn
	s.nOut = len(body.OutputNames()) - s.nState
	if s.nState < 0 || s.nOut < 0 {
		return nil, n.Errorf("Scan body has %d inputs and %d outputs, which does not fit num_scan_inputs=%d", len(body.InputNames()), len(body.OutputNames()), m)
	}
	wantIn := s.nState + s.nIn
	if s.v8 {
		wantIn++ // sequence_lens
	}
	if len(n.Inputs) != wantIn {
		return nil, n.Errorf("Scan has %d inputs; its body needs %d", len(n.Inputs), wantIn)
	}
	if len(n.Outputs) > s.nState+s.nOut {
		return nil, n.Errorf("Scan has %d outputs; its body yields %d", len(n.Outputs), s.nState+s.nOut)
	}
	flags := func(name string, count int) ([]int64, error) {
		v := a.Ints(name)
		if v == nil {
			return make([]int64, count), a.Err
		}
		if len(v) != count {
			return nil, n.Errorf("attribute %s has %d entries, expected %d", name, len(v), count)
		}
		return v, a.Err
	}
	dirs := func(name string, count int) ([]bool, error) {
		v, err := flags(name, count)
		if err != nil {
			return nil, err
		}
		out := make([]bool, count)
		for i, d := range v {
			if d != 0 && d != 1 {
				return nil, n.Errorf("attribute %s must hold 0 or 1, got %d", name, d)
			}
			out[i] = d == 1
		}
		return out, nil
	}
	var err error
	if s.v8 {
		if s.inRev, err = dirs("directions", s.nIn); err != nil {
			return nil, err
		}
		return valueKernel(s.run8), nil
	}
	if s.inAxes, err = flags("scan_input_axes", s.nIn); err != nil {
		return nil, err
	}
	if s.inRev, err = dirs("scan_input_directions", s.nIn); err != nil {
		return nil, err
	}
	if s.outAx, err = flags("scan_output_axes", s.nOut); err != nil {
		return nil, err
	}
	if s.outRev, err = dirs("scan_output_directions", s.nOut); err != nil {
		return nil, err
	}
	return valueKernel(s.run9), nil
}

// iterate runs the body length times over the scan inputs (each scanned
// along axes[j]) and returns the final states and each scan output's
// per-iteration values.
func (s *scan) iterate(ctx *op.Context, states []tensor.Value, inputs []*tensor.Tensor, axes []int, length int) ([]tensor.Value, [][]*tensor.Tensor, error) {
	states = append([]tensor.Value(nil), states...)
	outs := make([][]*tensor.Tensor, s.nOut)
	args := make([]tensor.Value, s.nState+s.nIn)
	for t := 0; t < length; t++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		copy(args, states)
		for j, in := range inputs {
			idx := t
			if s.inRev[j] {
				idx = length - 1 - t
			}
			args[s.nState+j] = sliceAt(ctx, in, axes[j], idx)
		}
		res, err := ctx.RunSubgraph(s.body, args)
		if err != nil {
			return nil, nil, err
		}
		if err := checkOutputs(res, s.nState+s.nOut, "the Scan body"); err != nil {
			return nil, nil, err
		}
		for j := 0; j < s.nState; j++ {
			if _, err := asTensor(res[j], "Scan state "+itoa(j)); err != nil {
				return nil, nil, err
			}
		}
		copy(states, res[:s.nState])
		for k := range outs {
			v, err := asTensor(res[s.nState+k], "Scan output "+itoa(k))
			if err != nil {
				return nil, nil, err
			}
			if len(outs[k]) > 0 {
				if f := outs[k][0]; !slices.Equal(f.Shape(), v.Shape()) || f.DType() != v.DType() {
					return nil, nil, op.Errorf("scan output %d is %s%v in iteration %d but %s%v in iteration 0", k, v.DType(), v.Shape(), t, f.DType(), f.Shape())
				}
			}
			outs[k] = append(outs[k], v)
		}
	}
	return states, outs, nil
}

func (s *scan) run9(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	states := in[:s.nState]
	for j, st := range states {
		if _, err := asTensor(st, "initial state "+itoa(j)); err != nil {
			return nil, err
		}
	}
	inputs := make([]*tensor.Tensor, s.nIn)
	axes := make([]int, s.nIn)
	length := -1
	for j := range inputs {
		t, err := asTensor(in[s.nState+j], "scan input "+itoa(j))
		if err != nil {
			return nil, err
		}
		ax, err := opsutil.NormAxis(s.inAxes[j], t.Rank())
		if err != nil {
			return nil, op.Errorf("scan input %d: %v", j, err)
		}
		if length >= 0 && t.Shape()[ax] != length {
			return nil, op.Errorf("scan input %d has length %d along its scan axis, scan input 0 has %d", j, t.Shape()[ax], length)
		}
		inputs[j], axes[j], length = t, ax, t.Shape()[ax]
	}
	final, outs, err := s.iterate(ctx, states, inputs, axes, length)
	if err != nil {
		return nil, err
	}
	res := make([]tensor.Value, s.nState+s.nOut)
	copy(res, final)
	for k, items := range outs {
		if !s.n.HasOutput(s.nState + k) {
			continue
		}
		if len(items) == 0 {
			decl := declaredOutput(s.body, s.nState+k)
			ax := int(s.outAx[k])
			if ax < 0 {
				ax += len(decl.Shape) + 1
			}
			res[s.nState+k] = emptyStacked(ctx, decl, ax)
			continue
		}
		ax, err := opsutil.NormAxis(s.outAx[k], items[0].Rank()+1)
		if err != nil {
			return nil, op.Errorf("scan output %d: %v", k, err)
		}
		var pos func(int) int
		if s.outRev[k] {
			n := len(items)
			pos = func(i int) int { return n - 1 - i }
		}
		t, err := stack(ctx, items, ax, pos)
		if err != nil {
			return nil, err
		}
		res[s.nState+k] = t
	}
	return res, nil
}

// run8 is Scan-8: every input has a batch axis 0, scan inputs are scanned
// along axis 1, and each batch entry runs its own sequence of length
// sequence_lens[b]; scan outputs are zero-padded to the longest sequence.
func (s *scan) run8(ctx *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	states := make([]*tensor.Tensor, s.nState)
	for j := range states {
		t, err := asTensor(in[1+j], "initial state "+itoa(j))
		if err != nil {
			return nil, err
		}
		if t.Rank() < 1 {
			return nil, op.Errorf("Scan-8 initial state %d needs a batch axis, got shape %v", j, t.Shape())
		}
		states[j] = t
	}
	inputs := make([]*tensor.Tensor, s.nIn)
	batch, maxLen := -1, -1
	for j := range inputs {
		t, err := asTensor(in[1+s.nState+j], "scan input "+itoa(j))
		if err != nil {
			return nil, err
		}
		if t.Rank() < 2 {
			return nil, op.Errorf("Scan-8 scan input %d needs batch and sequence axes, got shape %v", j, t.Shape())
		}
		if batch >= 0 && (t.Shape()[0] != batch || t.Shape()[1] != maxLen) {
			return nil, op.Errorf("scan input %d has shape %v; scan input 0 has batch %d and sequence length %d", j, t.Shape(), batch, maxLen)
		}
		inputs[j], batch, maxLen = t, t.Shape()[0], t.Shape()[1]
	}
	for j, st := range states {
		if st.Shape()[0] != batch {
			return nil, op.Errorf("initial state %d has batch %d, the scan inputs have %d", j, st.Shape()[0], batch)
		}
	}
	lens := make([]int, batch)
	for b := range lens {
		lens[b] = maxLen
	}
	if in[0] != nil {
		t, err := asTensor(in[0], "sequence_lens")
		if err != nil {
			return nil, err
		}
		v, err := t.Int64s()
		if err != nil || len(v) != batch {
			return nil, op.Errorf("sequence_lens must be %d integers, got %s%v", batch, t.DType(), t.Shape())
		}
		for b, l := range v {
			if l < 0 || l > int64(maxLen) {
				return nil, op.Errorf("sequence_lens[%d] = %d is outside [0, %d]", b, l, maxLen)
			}
			lens[b] = int(l)
		}
	}
	zeroAxes := make([]int, s.nIn)
	finals := make([][]*tensor.Tensor, s.nState)
	outs := make([][][]*tensor.Tensor, s.nOut) // [k][b][t]
	for k := range outs {
		outs[k] = make([][]*tensor.Tensor, batch)
	}
	for b := 0; b < batch; b++ {
		st := make([]tensor.Value, s.nState)
		for j, t := range states {
			st[j] = sliceAt(ctx, t, 0, b)
		}
		ins := make([]*tensor.Tensor, s.nIn)
		for j, t := range inputs {
			ins[j] = sliceAt(ctx, t, 0, b)
		}
		fin, o, err := s.iterate(ctx, st, ins, zeroAxes, lens[b])
		if err != nil {
			return nil, err
		}
		for j := range finals {
			finals[j] = append(finals[j], fin[j].(*tensor.Tensor))
		}
		for k := range outs {
			outs[k][b] = o[k]
		}
	}
	res := make([]tensor.Value, s.nState+s.nOut)
	for j := range finals {
		if batch == 0 {
			res[j] = states[j]
			continue
		}
		t, err := stack(ctx, finals[j], 0, nil)
		if err != nil {
			return nil, op.Errorf("final state %d: %v", j, err)
		}
		res[j] = t
	}
	for k := range outs {
		if !s.n.HasOutput(s.nState + k) {
			continue
		}
		t, err := s.padded8(ctx, k, outs[k], maxLen)
		if err != nil {
			return nil, err
		}
		res[s.nState+k] = t
	}
	return res, nil
}

// padded8 assembles Scan-8 output k as [batch, maxLen, elem...], leaving the
// steps past each batch entry's sequence length zero.
func (s *scan) padded8(ctx *op.Context, k int, perBatch [][]*tensor.Tensor, maxLen int) (*tensor.Tensor, error) {
	var first *tensor.Tensor
	for _, items := range perBatch {
		for _, it := range items {
			if first == nil {
				first = it
			} else if !slices.Equal(it.Shape(), first.Shape()) || it.DType() != first.DType() {
				return nil, op.Errorf("scan output %d is %s%v in one batch entry and %s%v in another", k, it.DType(), it.Shape(), first.DType(), first.Shape())
			}
		}
	}
	if first == nil {
		e := emptyStacked(ctx, declaredOutput(s.body, s.nState+k), 0)
		shape := append([]int{len(perBatch), maxLen}, e.Shape()[1:]...)
		return ctx.New(e.DType(), shape...), nil
	}
	shape := append([]int{len(perBatch), maxLen}, first.Shape()...)
	out := ctx.New(first.DType(), shape...)
	el := first.Len()
	for b, items := range perBatch {
		for t, it := range items {
			copyElems(out, (b*maxLen+t)*el, it, 0, el)
		}
	}
	return out, nil
}

// scanBody types the body's inputs (Scan-9 on): the states as given, each
// scan input without its scan axis.
func scanBody(c *shapes.Ctx, attr string, n int) []graph.Type {
	if attr != "body" || c.Version() < 9 {
		return nil
	}
	nScan := int(c.AttrInt("num_scan_inputs", 0))
	nState := c.NumIn() - nScan
	axes, _ := c.AttrInts("scan_input_axes")
	ts := make([]graph.Type, min(n, c.NumIn()))
	for i := range ts {
		x := c.Input(i)
		if x == nil {
			continue
		}
		t := x.Type
		if i >= nState && t.Shape != nil {
			ax := int64(0)
			if k := i - nState; k < len(axes) {
				ax = axes[k]
			}
			if ax < 0 {
				ax += int64(len(t.Shape))
			}
			if ax < 0 || ax >= int64(len(t.Shape)) {
				continue
			}
			t.Shape = append(append([]graph.Dim(nil), t.Shape[:ax]...), t.Shape[ax+1:]...)
		}
		ts[i] = t
	}
	return ts
}

// inferScan: the final states as the body gives them; each scan output
// stacks the body's values along its scan_output_axes axis.
func inferScan(c *shapes.Ctx) {
	if c.Version() < 9 {
		return
	}
	nScan := int(c.AttrInt("num_scan_inputs", 0))
	nState := c.NumIn() - nScan
	seq := shapes.Unknown()
	if nScan > 0 {
		if x := c.Shape(nState); x != nil {
			ax := int64(0)
			if axes, ok := c.AttrInts("scan_input_axes"); ok && len(axes) > 0 {
				ax = axes[0]
			}
			if ax < 0 {
				ax += int64(len(x))
			}
			if ax >= 0 && ax < int64(len(x)) {
				seq = x[ax]
			}
		}
	}
	outAxes, _ := c.AttrInts("scan_output_axes")
	for i := range c.NumOut() {
		b := c.Body("body", i)
		if b == nil || b.Type.Kind != graph.KindTensor {
			continue
		}
		if c.Out(i) != nil && c.Out(i).Type.Kind == graph.KindUnknown {
			c.Out(i).Type = graph.Type{Kind: b.Type.Kind, Elem: b.Type.Elem}
		}
		if i < nState {
			c.Set(i, b.Type.Shape, "")
			continue
		}
		if b.Type.Shape == nil {
			continue
		}
		ax := int64(0)
		if k := i - nState; k < len(outAxes) {
			ax = outAxes[k]
		}
		r := int64(len(b.Type.Shape)) + 1
		if ax < 0 {
			ax += r
		}
		if ax < 0 || ax >= r {
			continue
		}
		s := append(append(append([]graph.Dim(nil), b.Type.Shape[:ax]...), seq), b.Type.Shape[ax:]...)
		c.Set(i, s, "")
	}
}
