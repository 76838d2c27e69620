package plan_test

import (
	"context"

	gort "github.com/gort-dev/gort/runtime"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	tm "github.com/gort-dev/gort/runtime/internal/testmodel"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// qdqCase describes a QDQ model: the float input is quantized, then each
// layer is DequantizeLinear → op → [Relu] → QuantizeLinear, and the last
// layer's output is dequantized.
type qdqCase struct {
	name string
	// op is "Conv", "MatMul" or "Gemm"; act and wt are the activations'
	// and the weights' types.
	op      string
	act, wt tensor.DType
	x       []int // input shape
	// Conv: M output channels, kernel kh×kw, group, strides, pads; MatMul
	// and Gemm: N output columns (Gemm's B is N×K with transB).
	m, kh, kw, group int
	strides, pads    []int64
	transB           bool
	perChannel       bool
	// bias: "" none, "float" a float32 constant, "int32" a
	// DequantizeLinear of int32 with scale sx·sw, "int32odd" with
	// another scale.
	bias   string
	relu   bool
	layers int
	// noZP leaves the weights' zero point out.
	noZP bool
	// breaks the group: "scale" (x's scale is a graph input), "twice" (the
	// op's float output is also a graph output), "int16" (the output
	// zero point is int16), "reluZP" (a Relu with an output zero point
	// above the type's least value).
	breaks string
}

func quantValue(dt tensor.DType, v int) *tensor.Tensor {
	switch dt {
	case tensor.Uint8:
		return tensor.Of([]int{}, []uint8{uint8(v)})
	case tensor.Int8:
		return tensor.Of([]int{}, []int8{int8(v)})
	case tensor.Int16:
		return tensor.Of([]int{}, []int16{int16(v)})
	}
	panic(dt)
}

func randQuant(r *rand.Rand, dt tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	switch d := t.Data().(type) {
	case []uint8:
		for i := range d {
			d[i] = uint8(r.IntN(256))
		}
	case []int8:
		for i := range d {
			d[i] = int8(r.IntN(255) - 127)
		}
	}
	return t
}

// zeroPoints returns n zero points of dt, near the middle of its range.
func zeroPoints(r *rand.Rand, dt tensor.DType, n int) *tensor.Tensor {
	t := tensor.New(dt, n)
	switch d := t.Data().(type) {
	case []uint8:
		for i := range d {
			d[i] = uint8(120 + r.IntN(16))
		}
	case []int8:
		for i := range d {
			d[i] = int8(r.IntN(9) - 4)
		}
	}
	return t
}

// build writes the model; it returns the output scale (one quantization
// step of the output).
func (c qdqCase) build(r *rand.Rand) (*tm.Model, float32) {
	opset := 13
	if c.breaks == "int16" {
		opset = 21
	}
	m := tm.New(opset)
	m.Input("x", tensor.Float, anys(c.x)...)
	mid := func(dt tensor.DType) int {
		if dt == tensor.Uint8 {
			return 128
		}
		return 0
	}
	sxName := "sx0"
	if c.breaks == "scale" {
		m.Input("sx0", tensor.Float)
	} else {
		m.Init("sx0", tensor.Of([]int{}, []float32{1.0 / 100}))
	}
	m.Init("zx0", quantValue(c.act, mid(c.act)+3))
	m.Node("QuantizeLinear", []string{"x", sxName, "zx0"}, []string{"xq0"})
	in := c.x[1]
	if c.op != "Conv" {
		in = c.x[len(c.x)-1]
	}
	layers := max(c.layers, 1)
	var sy float32
	for l := range layers {
		p := func(s string) string { return s + string(rune('0'+l)) }
		next := func(s string) string { return s + string(rune('1'+l)) }
		m.Node("DequantizeLinear", []string{p("xq"), p("sx"), p("zx")}, []string{p("xf")}).Name = p("dqx")
		var wShape []int
		axis, channels := 0, c.m
		switch c.op {
		case "Conv":
			wShape = []int{c.m, in / max(c.group, 1), c.kh, c.kw}
		case "MatMul":
			wShape, axis = []int{in, c.m}, 1
		case "Gemm":
			wShape, axis = []int{in, c.m}, 1
			if c.transB {
				wShape, axis = []int{c.m, in}, 0
			}
		}
		m.Init(p("wq"), randQuant(r, c.wt, wShape...))
		nScales := 1
		if c.perChannel {
			nScales = channels
		}
		sw := tensor.New(tensor.Float, nScales)
		for i := range sw.F32() {
			sw.F32()[i] = (0.5 + r.Float32()) / 400
		}
		if !c.perChannel {
			sw = tensor.Of([]int{}, sw.F32())
		}
		m.Init(p("sw"), sw)
		dqwIn := []string{p("wq"), p("sw")}
		if !c.noZP {
			zw := zeroPoints(r, c.wt, nScales)
			if !c.perChannel {
				v, _ := zw.Float64s()
				zw = quantValue(c.wt, int(v[0]))
			}
			m.Init(p("zw"), zw)
			dqwIn = append(dqwIn, p("zw"))
		}
		m.Node("DequantizeLinear", dqwIn, []string{p("wf")}, tm.Int("axis", int64(axis))).Name = p("dqw")
		opIn := []string{p("xf"), p("wf")}
		sx := float32(1.0 / 100)
		if l > 0 {
			sx = sy
		}
		switch c.bias {
		case "float":
			b := randTensor(r, c.m)
			m.Init(p("b"), b)
			opIn = append(opIn, p("b"))
		case "int32", "int32odd":
			bq := tensor.New(tensor.Int32, c.m)
			for i := range bq.I32() {
				bq.I32()[i] = int32(r.IntN(20001) - 10000)
			}
			bs := tensor.New(tensor.Float, c.m)
			for i := range bs.F32() {
				bs.F32()[i] = sx * sw.F32()[min(i, sw.Len()-1)]
				if c.bias == "int32odd" {
					bs.F32()[i] *= 0.7
				}
			}
			m.Init(p("bq"), bq)
			m.Init(p("bs"), bs)
			m.Node("DequantizeLinear", []string{p("bq"), p("bs")}, []string{p("b")}, tm.Int("axis", 0)).Name = p("dqb")
			opIn = append(opIn, p("b"))
		}
		var attrs []*pb.AttributeProto
		if c.op == "Conv" {
			attrs = append(attrs, tm.Ints("kernel_shape", int64(c.kh), int64(c.kw)))
			if c.group > 1 {
				attrs = append(attrs, tm.Int("group", int64(c.group)))
			}
			if c.strides != nil {
				attrs = append(attrs, tm.Ints("strides", c.strides...))
			}
			if c.pads != nil {
				attrs = append(attrs, tm.Ints("pads", c.pads...))
			}
		}
		if c.op == "Gemm" && c.transB {
			attrs = append(attrs, tm.Int("transB", 1))
		}
		m.Node(c.op, opIn, []string{p("y")}, attrs...).Name = p("op")
		yName := p("y")
		if c.relu {
			m.Node("Relu", []string{yName}, []string{p("r")}).Name = p("relu")
			yName = p("r")
		}
		// The output scale: about the spread of the op's values.
		sy = float32(0.02 * math.Sqrt(float64(in*c.kh*max(c.kw, 1)/max(c.group, 1))) / 10)
		m.Init(next("sx"), tensor.Of([]int{}, []float32{sy}))
		zy := mid(c.act) - 5
		if c.relu {
			zy = 0
			if c.act == tensor.Int8 {
				zy = -128
			}
		}
		if c.breaks == "reluZP" {
			zy = mid(c.act) + 10
		}
		zyT := quantValue(c.act, zy)
		if c.breaks == "int16" {
			zyT = quantValue(tensor.Int16, zy)
		}
		m.Init(next("zx"), zyT)
		m.Node("QuantizeLinear", []string{yName, next("sx"), next("zx")}, []string{next("xq")}).Name = p("q")
		if c.breaks == "twice" {
			m.Output(p("y"), tensor.Float)
		}
		if c.breaks == "int16" {
			m.Node("DequantizeLinear", []string{next("xq"), next("sx"), next("zx")}, []string{"out"})
			m.Output("out", tensor.Float)
			return m, sy
		}
		in = c.m
	}
	last := string(rune('0' + layers))
	m.Node("DequantizeLinear", []string{"xq" + last, "sx" + last, "zx" + last}, []string{"out"})
	m.Output("out", tensor.Float)
	return m, sy
}

func anys(v []int) []any {
	out := make([]any, len(v))
	for i, d := range v {
		out[i] = d
	}
	return out
}

// TestQDQ runs QDQ models with rewrites off and on: every group must run
// as one integer op (QLinearConv, QLinearMatMul), and each output be
// within one quantization step of the float path's (which rounds the
// float32 accumulation and the division by the scale differently), or
// the group must stay as written with identical results.
func TestQDQ(t *testing.T) {
	u8, i8 := tensor.Uint8, tensor.Int8
	cases := []qdqCase{
		{name: "conv u8/i8 per-tensor", op: "Conv", act: u8, wt: i8, x: []int{2, 4, 7, 5}, m: 6, kh: 3, kw: 3, pads: []int64{1, 1, 1, 1}},
		{name: "conv u8/u8 per-channel bias", op: "Conv", act: u8, wt: u8, x: []int{2, 4, 7, 5}, m: 6, kh: 3, kw: 2, perChannel: true, bias: "float", strides: []int64{2, 1}, pads: []int64{1, 0, 1, 1}},
		{name: "conv i8/i8 groups int32 bias", op: "Conv", act: i8, wt: i8, x: []int{3, 6, 9, 6}, m: 4, kh: 3, kw: 3, group: 2, perChannel: true, bias: "int32", pads: []int64{1, 1, 1, 1}},
		{name: "conv depthwise odd bias scale", op: "Conv", act: u8, wt: i8, x: []int{1, 4, 6, 9}, m: 4, kh: 3, kw: 3, group: 4, perChannel: true, bias: "int32odd", strides: []int64{2, 2}},
		{name: "conv relu u8 two layers", op: "Conv", act: u8, wt: i8, x: []int{2, 3, 8, 5}, m: 5, kh: 1, kw: 1, bias: "float", relu: true, layers: 2},
		{name: "conv relu i8 no zero point", op: "Conv", act: i8, wt: i8, x: []int{2, 3, 5, 8}, m: 5, kh: 3, kw: 1, perChannel: true, relu: true, noZP: true, pads: []int64{1, 0, 1, 0}},
		{name: "matmul u8 batched", op: "MatMul", act: u8, wt: i8, x: []int{2, 3, 5, 8}, m: 6, kh: 1},
		{name: "matmul i8 per-column two layers", op: "MatMul", act: i8, wt: i8, x: []int{7, 8}, m: 6, kh: 1, perChannel: true, layers: 2},
		{name: "gemm transB per-row", op: "Gemm", act: u8, wt: u8, x: []int{5, 8}, m: 6, kh: 1, transB: true, perChannel: true},
		{name: "gemm", op: "Gemm", act: i8, wt: i8, x: []int{5, 8}, m: 3, kh: 1},
	}
	negative := []qdqCase{
		{name: "scale not constant", breaks: "scale", op: "Conv", act: u8, wt: i8, x: []int{2, 4, 7, 5}, m: 6, kh: 3, kw: 3},
		{name: "float output read twice", breaks: "twice", op: "Conv", act: u8, wt: i8, x: []int{2, 4, 7, 5}, m: 6, kh: 3, kw: 3},
		{name: "int16 output", breaks: "int16", op: "Conv", act: u8, wt: i8, x: []int{2, 4, 7, 5}, m: 6, kh: 3, kw: 3},
		{name: "relu not absorbed", breaks: "reluZP", relu: true, op: "Conv", act: u8, wt: i8, x: []int{2, 4, 7, 5}, m: 6, kh: 3, kw: 3},
		{name: "gemm with C", op: "Gemm", act: u8, wt: i8, x: []int{5, 8}, m: 6, kh: 1, bias: "float"},
	}
	for i, c := range append(cases, negative...) {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(i), 9))
			m, sy := c.build(r)
			feeds := map[string]tensor.Value{"x": randTensor(r, c.x...)}
			if c.breaks == "scale" {
				feeds["sx0"] = tensor.Of([]int{}, []float32{1.0 / 100})
			}
			want, _ := run(t, m.Bytes(), plan.Disabled, feeds)
			got, s := run(t, m.Bytes(), plan.All, feeds)
			fused := 0
			for _, f := range s.Plan().Report.Fused {
				if strings.Contains(f, "(QDQ ") {
					fused++
				}
			}
			g, w := got["out"].(*tensor.Tensor).F32(), want["out"].(*tensor.Tensor).F32()
			steps, differ := 0.0, 0
			for j := range g {
				d := math.Abs(float64(g[j])-float64(w[j])) / float64(sy)
				steps = math.Max(steps, d)
				if d > 0 {
					differ++
				}
			}
			if i >= len(cases) {
				if fused != 0 {
					t.Errorf("rewrote %v, want no QDQ group", s.Plan().Report.Fused)
				}
				if steps != 0 {
					t.Errorf("results differ by %g steps", steps)
				}
				return
			}
			if fused != max(c.layers, 1) {
				t.Errorf("fused %v, want %d QDQ groups", s.Plan().Report.Fused, max(c.layers, 1))
			}
			for _, st := range s.Plan().Steps {
				if op := st.Node.OpType; op == c.op || op == "DequantizeLinear" && st.Node.Name != "" && strings.HasPrefix(st.Node.Name, "dqw") {
					t.Errorf("step %s (%s) is left", st.Node.Name, op)
				}
			}
			if steps > 1.00001 {
				t.Errorf("results differ by %g quantization steps, want at most 1", steps)
			}
			lo, hi := slices.Min(w), slices.Max(w)
			ends := 0
			for _, v := range w {
				if v == hi || v == lo && !c.relu { // Relu's zeros are the least value
					ends++
				}
			}
			if ends > len(w)/4 {
				t.Errorf("%d of %d outputs at the ends of the range: a weak test", ends, len(w))
			}
			t.Logf("%d of %d outputs differ (by one step); %d at the range's ends", differ, len(g), ends)
		})
	}
}

// BenchmarkQDQ times three QDQ Conv layers (64 channels, 56×56, 3×3,
// uint8 activations, int8 per-channel weights, int32 bias, Relu) as the
// float path runs them (Basic: the weights' DequantizeLinear folded, each
// layer dequantize, Conv, Relu, quantize) and as integer ops (All).
func BenchmarkQDQ(b *testing.B) {
	c := qdqCase{op: "Conv", act: tensor.Uint8, wt: tensor.Int8, x: []int{1, 64, 56, 56}, m: 64, kh: 3, kw: 3, pads: []int64{1, 1, 1, 1}, perChannel: true, bias: "int32", relu: true, layers: 3}
	r := rand.New(rand.NewPCG(1, 2))
	m, _ := c.build(r)
	feeds := map[string]tensor.Value{"x": randTensor(r, c.x...)}
	for _, level := range []plan.Level{plan.Basic, plan.All} {
		b.Run(level.String(), func(b *testing.B) {
			s, err := gort.Load(m.Bytes(), &gort.Options{Optimization: level})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := s.Run(context.Background(), feeds); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
