package nn

// The kernel-conformance test: every float32 kernel behind Conv,
// ConvTranspose, Gemm and MatMul (the packed GEMM, segmented im2col, the
// direct depthwise path, the segmented col2im) against a naive float64
// reference, on asymmetric shapes chosen to hit every tail (rows not a
// multiple of the micro-tile's 4, columns not a multiple of 8, odd depths for
// the k-unrolled loop, depths over one 256-deep block, more than one
// 128-row block, more than one pixel segment), with weights given at run
// time and pre-packed at build (Node.Consts), and with every fused epilogue
// (Node.Fused) checked bit for bit against the separate ops.
//
// `make test-wasm` runs it in WebAssembly with GOEXPERIMENT=simd (the SIMD
// micro-kernels) and without (the scalar ones); `go test` runs it natively.

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"testing"

	_ "github.com/gort-dev/gort/ops/elementwise" // Add and the activations, for the unfused reference
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// kspec is one node to build: attributes, which inputs are constant for the
// session (pre-packed at build) and the fused epilogue.
type kspec struct {
	opType string
	opset  int
	at     attrs
	consts []bool
	fused  *op.Fusion
}

// build makes the kernel for spec with len(in) inputs (the residual, when
// fused, being the last of in).
func (s kspec) build(t *testing.T, in []*tensor.Tensor) op.Kernel {
	t.Helper()
	res := op.Default.Resolve("", s.opType, s.opset)
	if res.Builder == nil {
		t.Fatalf("resolve %s-%d: %s", s.opType, s.opset, res.Problem)
	}
	n := &op.Node{Name: s.opType, OpType: s.opType, Version: res.Version, Opset: s.opset, Attrs: map[string]*pb.AttributeProto{},
		Outputs: []string{"y"}, Fused: s.fused}
	for i, x := range in {
		n.Inputs = append(n.Inputs, fmt.Sprint("in", i))
		var c *tensor.Tensor
		if i < len(s.consts) && s.consts[i] {
			c = x
		}
		n.Consts = append(n.Consts, c)
	}
	for k, v := range s.at {
		a := &pb.AttributeProto{Name: k}
		switch v := v.(type) {
		case int:
			a.Type, a.I = pb.AttributeProto_INT, int64(v)
		case []int:
			a.Type = pb.AttributeProto_INTS
			for _, x := range v {
				a.Ints = append(a.Ints, int64(x))
			}
		case float32:
			a.Type, a.F = pb.AttributeProto_FLOAT, v
		case string:
			a.Type, a.S = pb.AttributeProto_STRING, []byte(v)
		default:
			t.Fatalf("attribute %s: unsupported %T", k, v)
		}
		n.Attrs[k] = a
	}
	k, err := res.Builder(n)
	if err != nil {
		t.Fatalf("build %s: %v", s.opType, err)
	}
	return k.(op.Kernel)
}

// run builds and runs spec once, rounding a float16/bfloat16 output as the
// executor does after every op.
func (s kspec) run(t *testing.T, in ...*tensor.Tensor) *tensor.Tensor {
	t.Helper()
	out, err := s.build(t, in).Run(&op.Context{Ctx: context.Background()}, in)
	if err != nil {
		t.Fatalf("run %s: %v", s.opType, err)
	}
	roundOut(out[0])
	return out[0]
}

func roundOut(y *tensor.Tensor) {
	if dt := y.DType(); dt == tensor.Float16 || dt == tensor.BFloat16 {
		tensor.RoundTo(dt, y.F32())
	}
}

// ref is a float64 reference result with, per element, the sum of the
// magnitudes of its terms (for the float32 rounding tolerance).
type ref struct {
	shape    []int
	val, mag []float64
}

func newRef(shape ...int) *ref {
	n := tensor.MustSize(shape)
	return &ref{shape: shape, val: make([]float64, n), mag: make([]float64, n)}
}

func (r *ref) add(i int, v float64) {
	r.val[i] += v
	r.mag[i] += math.Abs(v)
}

// check compares got with the reference: float32 accumulation of up to a few
// thousand terms stays well inside 1e-5 of the terms' magnitude.
func (r *ref) check(t *testing.T, got *tensor.Tensor) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(r.shape) {
		t.Fatalf("shape %v, want %v", got.Shape(), r.shape)
	}
	var g []float64
	switch d := got.Data().(type) {
	case []float32:
		g = make([]float64, len(d))
		for i, v := range d {
			g[i] = float64(v)
		}
	case []float64:
		g = d
	}
	tol := 1e-5
	if got.DType() == tensor.Float16 {
		tol = 2e-3
	}
	for i, want := range r.val {
		if d := math.Abs(g[i] - want); !(d <= tol*(r.mag[i]+math.Abs(want))+1e-6) {
			t.Fatalf("element %d = %v, want %v (|terms| %v)", i, g[i], want, r.mag[i])
		}
	}
}

// act64 applies a fusable activation in float64 to the reference.
func (r *ref) act(f *op.Fusion, res *tensor.Tensor) {
	if f == nil {
		return
	}
	if res != nil {
		rv, _ := res.Float64s()
		for i, v := range rv {
			r.add(i, v)
		}
	}
	for i, x := range r.val {
		al, be := float64(f.Alpha), float64(f.Beta)
		switch f.Activation {
		case op.Activation("Relu"):
			x = math.Max(x, 0)
		case op.Activation("Clip"):
			x = math.Min(math.Max(x, al), be)
		case op.Activation("LeakyRelu"):
			if x < 0 {
				x *= al
			}
		case op.Activation("Sigmoid"):
			x = 1 / (1 + math.Exp(-x))
		case op.Activation("HardSigmoid"):
			x = math.Max(0, math.Min(1, al*x+be))
		case op.Activation("HardSwish"):
			x *= math.Max(0, math.Min(1, x/6+0.5))
		case op.Activation("Tanh"):
			x = math.Tanh(x)
		case op.Activation("Gelu"):
			x = 0.5 * x * (1 + math.Erf(x/math.Sqrt2))
		case op.Activation("Gelu/tanh"):
			x = 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
		default:
			if f.Activation != op.ActNone {
				panic("no reference for activation " + string(f.Activation))
			}
		}
		r.val[i] = x
	}
}

// kt makes a tensor of dtype dt with values uniform in [-1, 1) (rounded to
// float16 when dt is Float16).
func kt(r *rand.Rand, dt tensor.DType, shape ...int) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	switch d := t.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = r.Float32()*2 - 1
		}
		tensor.RoundTo(dt, d)
	case []float64:
		for i := range d {
			d[i] = r.Float64()*2 - 1
		}
	}
	return t
}

func f64(t *tensor.Tensor) []float64 {
	v, _ := t.Float64s()
	return v
}

// The fusions every op is checked with: each activation, with and without
// a residual.
var testFusions = func() []*op.Fusion {
	var fs []*op.Fusion
	for _, a := range []struct {
		act         op.Activation
		alpha, beta float32
	}{
		{op.ActNone, 0, 0}, {op.Activation("Relu"), 0, 0}, {op.Activation("Clip"), -0.5, 0.75}, {op.Activation("LeakyRelu"), 0.1, 0},
		{op.Activation("Sigmoid"), 0, 0}, {op.Activation("HardSigmoid"), 0.3, 0.4}, {op.Activation("HardSwish"), 0, 0}, {op.Activation("Tanh"), 0, 0},
		{op.Activation("Gelu"), 0, 0}, {op.Activation("Gelu/tanh"), 0, 0},
	} {
		for _, res := range []bool{false, true} {
			if a.act == op.ActNone && !res {
				continue
			}
			fs = append(fs, &op.Fusion{Activation: a.act, Alpha: a.alpha, Beta: a.beta, Residual: res})
		}
	}
	return fs
}()

// unfused computes act(y + res) with the separate ops, rounding after each as
// the executor would.
func unfused(t *testing.T, y *tensor.Tensor, f *op.Fusion, res *tensor.Tensor) *tensor.Tensor {
	t.Helper()
	if res != nil {
		y = kspec{opType: "Add", opset: 14}.run(t, y, res)
	}
	switch f.Activation {
	case op.ActNone:
		return y
	case op.Activation("Clip"):
		lo, hi := tensor.New(y.DType()), tensor.New(y.DType())
		switch d := lo.Data().(type) {
		case []float32:
			d[0], hi.F32()[0] = f.Alpha, f.Beta
		case []float64:
			d[0], hi.F64()[0] = float64(f.Alpha), float64(f.Beta)
		}
		return kspec{opType: "Clip", opset: 13}.run(t, y, lo, hi)
	case op.Activation("LeakyRelu"):
		return kspec{opType: "LeakyRelu", opset: 16, at: attrs{"alpha": f.Alpha}}.run(t, y)
	case op.Activation("HardSigmoid"):
		return kspec{opType: "HardSigmoid", opset: 22, at: attrs{"alpha": f.Alpha, "beta": f.Beta}}.run(t, y)
	case op.Activation("Gelu"):
		return kspec{opType: "Gelu", opset: 20}.run(t, y)
	case op.Activation("Gelu/tanh"):
		return kspec{opType: "Gelu", opset: 20, at: attrs{"approximate": "tanh"}}.run(t, y)
	}
	return kspec{opType: string(f.Activation), opset: 14}.run(t, y)
}

// sameBits fails unless a and b hold identical values (NaNs match NaNs).
func sameBits(t *testing.T, got, want *tensor.Tensor) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) || got.DType() != want.DType() {
		t.Fatalf("fused %s%v, unfused %s%v", got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, w := f64(got), f64(want)
	for i := range g {
		if g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) || math.Signbit(g[i]) != math.Signbit(w[i]) {
			t.Fatalf("element %d: fused %v, unfused %v", i, g[i], w[i])
		}
	}
}

// checkKernel runs one op case: against the reference with weights at run
// time and pre-packed, then every fusion against the separate ops (and,
// for float32, against the reference too).
func checkKernel(t *testing.T, base kspec, in []*tensor.Tensor, constIdx int, want *ref, fusions []*op.Fusion) {
	t.Helper()
	consts := make([]bool, len(in))
	for _, packed := range []bool{false, true} {
		s := base
		if packed {
			consts[constIdx] = true
			s.consts = consts
		}
		want.check(t, s.run(t, in...))
	}
	r := rand.New(rand.NewSource(int64(len(want.val))))
	plain := base
	plain.consts = consts
	y := plain.run(t, in...)
	for _, f := range fusions {
		name := string(f.Activation)
		if f.Residual {
			name += "+residual"
		}
		t.Run(name, func(t *testing.T) {
			s := plain
			s.fused = f
			fin := in
			var res *tensor.Tensor
			if f.Residual {
				res = kt(r, y.DType(), y.Shape()...)
				fin = append(append([]*tensor.Tensor(nil), in...), res)
			}
			got := s.run(t, fin...)
			sameBits(t, got, unfused(t, y, f, res))
			if y.DType() == tensor.Float {
				w := &ref{shape: want.shape, val: append([]float64(nil), want.val...), mag: append([]float64(nil), want.mag...)}
				w.act(f, res)
				w.check(t, got)
			}
		})
	}
}

// convCase is an N-D Conv/ConvTranspose geometry (1 to 3 spatial dims).
type convCase struct {
	name                string
	n, c, m, group      int
	in, kernel          []int
	strides, dil, pads  []int // pads: begin..., end...
	outPad              []int // ConvTranspose only
	bias                bool
	fuse                bool // run every fusion on this case
	dtype               tensor.DType
	convOnly, convTOnly bool
}

var convCases = []convCase{
	{name: "3x3-pad-bias", n: 2, c: 3, m: 5, group: 1, in: []int{9, 11}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true},
	{name: "3x3-deep-tails", n: 1, c: 37, m: 13, group: 1, in: []int{7, 9}, kernel: []int{3, 3}, pads: []int{1, 0, 1, 2}}, // im2col (M too small for Winograd), K=333: two k blocks
	{name: "5x3-stride-dil", n: 2, c: 4, m: 6, group: 2, in: []int{13, 10}, kernel: []int{5, 3}, strides: []int{2, 3}, dil: []int{1, 2}, pads: []int{2, 1, 0, 3}, bias: true},
	{name: "pointwise", n: 3, c: 6, m: 9, group: 1, in: []int{5, 7}, kernel: []int{1, 1}, bias: true, fuse: true},
	{name: "pointwise-stride2", n: 1, c: 5, m: 7, group: 1, in: []int{9, 9}, kernel: []int{1, 1}, strides: []int{2, 2}},
	{name: "pointwise-many-rows", n: 1, c: 3, m: 133, group: 1, in: []int{3, 5}, kernel: []int{1, 1}, bias: true}, // > 128 rows
	// The last two or three rows of a block swept across its column panels
	// (a plain B read in place, and im2col panels), epilogues fused.
	{name: "pointwise-row-edge", n: 2, c: 20, m: 38, group: 2, in: []int{5, 11}, kernel: []int{1, 1}, bias: true, fuse: true},
	{name: "3x3-row-edge-deep", n: 1, c: 70, m: 135, group: 1, in: []int{6, 13}, kernel: []int{3, 3}, strides: []int{2, 1}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true, convOnly: true}, // K=630: three k blocks; 135 = 128 + 7 rows
	{name: "depthwise", n: 2, c: 6, m: 6, group: 6, in: []int{11, 14}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true},
	{name: "depthwise-s2-5x5", n: 1, c: 4, m: 4, group: 4, in: []int{12, 13}, kernel: []int{5, 5}, strides: []int{2, 2}, pads: []int{2, 1, 2, 2}},
	{name: "depthwise-x2-dil", n: 1, c: 3, m: 6, group: 3, in: []int{10, 23}, kernel: []int{3, 3}, dil: []int{2, 3}, pads: []int{0, 3, 1, 2}, bias: true},
	{name: "depthwise-1x1", n: 2, c: 5, m: 5, group: 5, in: []int{6, 7}, kernel: []int{1, 1}, bias: true},
	{name: "depthwise-s2", n: 1, c: 3, m: 3, group: 3, in: []int{13, 12}, kernel: []int{3, 3}, strides: []int{2, 2}, pads: []int{1, 0, 1, 1}, fuse: true},
	{name: "depthwise-narrow", n: 1, c: 2, m: 2, group: 2, in: []int{4, 2}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}},
	{name: "single-channel", n: 2, c: 1, m: 3, group: 1, in: []int{6, 7}, kernel: []int{2, 3}, pads: []int{0, 1, 1, 0}},
	{name: "grouped", n: 2, c: 8, m: 12, group: 4, in: []int{6, 9}, kernel: []int{3, 2}, pads: []int{1, 0, 0, 1}, bias: true},
	{name: "7x7-s2-stem", n: 1, c: 3, m: 6, group: 1, in: []int{20, 37}, kernel: []int{7, 7}, strides: []int{2, 2}, pads: []int{3, 3, 3, 3}, fuse: true},
	{name: "11x11-s4-wide", n: 1, c: 3, m: 5, group: 1, in: []int{37, 71}, kernel: []int{11, 11}, strides: []int{4, 4}, pads: []int{2, 5, 2, 5}, bias: true}, // strided im2col: full panels, border runs, panels wrapping rows
	{name: "many-pixels", n: 1, c: 2, m: 3, group: 1, in: []int{45, 47}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true},                           // > 1 segment
	{name: "winograd", n: 2, c: 65, m: 67, group: 1, in: []int{9, 11}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true, convOnly: true},
	{name: "winograd-odd-pads", n: 1, c: 64, m: 68, group: 1, in: []int{8, 13}, kernel: []int{3, 3}, pads: []int{0, 2, 1, 0}, convOnly: true},
	{name: "winograd-wide", n: 1, c: 72, m: 64, group: 1, in: []int{5, 150}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, convOnly: true},
	{name: "winograd-tall-deep", n: 1, c: 300, m: 69, group: 1, in: []int{40, 12}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, convOnly: true},
	// Odd widths whose last group of four tiles has a one-column tile (7 = 4 tiles, 15 = 8), at 32 channels.
	{name: "winograd-7x7", n: 2, c: 32, m: 36, group: 1, in: []int{7, 7}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true, convOnly: true},
	{name: "winograd-odd-15", n: 1, c: 40, m: 33, group: 1, in: []int{6, 15}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, convOnly: true},
	// Fused epilogues on rows of eleven tiles, even and odd widths: the
	// output transform's vectors of four tiles, the overlapping last one and
	// its lanes past the row's end.
	{name: "winograd-fused-22", n: 1, c: 33, m: 36, group: 1, in: []int{6, 22}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true, convOnly: true},
	{name: "winograd-fused-21", n: 2, c: 32, m: 34, group: 1, in: []int{5, 21}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true, convOnly: true},
	{name: "winograd-shallow", n: 1, c: 17, m: 40, group: 1, in: []int{11, 12}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, convOnly: true}, // the fewest input channels Winograd takes
	{name: "1d", n: 2, c: 4, m: 6, group: 2, in: []int{13}, kernel: []int{3}, strides: []int{2}, dil: []int{2}, pads: []int{2, 1}, bias: true, fuse: true},
	{name: "1d dense", n: 2, c: 5, m: 9, group: 1, in: []int{37}, kernel: []int{5}, strides: []int{1}, dil: []int{1}, pads: []int{2, 2}, bias: true, fuse: true},
	{name: "1d depthwise", n: 2, c: 6, m: 12, group: 6, in: []int{29}, kernel: []int{3}, strides: []int{2}, dil: []int{1}, pads: []int{1, 0}, bias: true, fuse: true},
	{name: "3d", n: 1, c: 3, m: 5, group: 1, in: []int{4, 5, 6}, kernel: []int{2, 3, 2}, strides: []int{1, 2, 1}, pads: []int{1, 0, 1, 0, 1, 1}, bias: true},
	{name: "float16", n: 1, c: 3, m: 5, group: 1, in: []int{6, 7}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true, dtype: tensor.Float16},
	{name: "float64", n: 1, c: 3, m: 5, group: 1, in: []int{6, 7}, kernel: []int{3, 3}, pads: []int{1, 1, 1, 1}, bias: true, fuse: true, dtype: tensor.Double},
	{name: "convT-outpad", n: 2, c: 4, m: 6, group: 2, in: []int{5, 7}, kernel: []int{3, 4}, strides: []int{2, 3}, dil: []int{1, 1}, pads: []int{1, 0, 0, 2}, outPad: []int{1, 2}, bias: true, fuse: true, convTOnly: true},
	{name: "convT-big", n: 1, c: 3, m: 2, group: 1, in: []int{40, 37}, kernel: []int{4, 4}, strides: []int{2, 2}, pads: []int{1, 1, 1, 1}, bias: true, convTOnly: true}, // > 1 segment
}

func fill1(v []int, n, def int) []int {
	if v != nil {
		return v
	}
	out := make([]int, n)
	for i := range out {
		out[i] = def
	}
	return out
}

// spatial walks every index of dims (row-major), calling f with the index.
func spatial(dims []int, f func(idx []int, flat int)) {
	idx := make([]int, len(dims))
	n := tensor.MustSize(dims)
	for flat := 0; flat < n; flat++ {
		f(idx, flat)
		for d := len(dims) - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < dims[d] {
				break
			}
			idx[d] = 0
		}
	}
}

// refConv is the definition of grouped N-D convolution.
func refConv(k convCase, x, w, b []float64) *ref {
	nd := len(k.in)
	st, dl := fill1(k.strides, nd, 1), fill1(k.dil, nd, 1)
	pads := fill1(k.pads, 2*nd, 0)
	out := make([]int, nd)
	for d := range out {
		out[d] = (k.in[d]+pads[d]+pads[nd+d]-(k.kernel[d]-1)*dl[d]-1)/st[d] + 1
	}
	cg, mg := k.c/k.group, k.m/k.group
	is, os, ks := tensor.MustSize(k.in), tensor.MustSize(out), tensor.MustSize(k.kernel)
	r := newRef(append([]int{k.n, k.m}, out...)...)
	for n := 0; n < k.n; n++ {
		for m := 0; m < k.m; m++ {
			g := m / mg
			spatial(out, func(o []int, of int) {
				yi := (n*k.m+m)*os + of
				for c := 0; c < cg; c++ {
					spatial(k.kernel, func(t []int, tf int) {
						xi := 0
						for d := 0; d < nd; d++ {
							p := o[d]*st[d] - pads[d] + t[d]*dl[d]
							if p < 0 || p >= k.in[d] {
								return
							}
							xi = xi*k.in[d] + p
						}
						r.add(yi, x[(n*k.c+g*cg+c)*is+xi]*w[(m*cg+c)*ks+tf])
					})
				}
				if b != nil {
					r.add(yi, b[m])
				}
			})
		}
	}
	return r
}

// refConvT is the definition of grouped N-D transposed convolution: every
// input element scattered through the kernel.
func refConvT(k convCase, x, w, b []float64) *ref {
	nd := len(k.in)
	st, dl := fill1(k.strides, nd, 1), fill1(k.dil, nd, 1)
	pads, op := fill1(k.pads, 2*nd, 0), fill1(k.outPad, nd, 0)
	out := make([]int, nd)
	for d := range out {
		out[d] = st[d]*(k.in[d]-1) + op[d] + (k.kernel[d]-1)*dl[d] + 1 - pads[d] - pads[nd+d]
	}
	cg, mg := k.c/k.group, k.m/k.group
	is, os, ks := tensor.MustSize(k.in), tensor.MustSize(out), tensor.MustSize(k.kernel)
	r := newRef(append([]int{k.n, k.m}, out...)...)
	for n := 0; n < k.n; n++ {
		for c := 0; c < k.c; c++ {
			g := c / cg
			spatial(k.in, func(i []int, iflat int) {
				xv := x[(n*k.c+c)*is+iflat]
				for m := 0; m < mg; m++ {
					spatial(k.kernel, func(t []int, tf int) {
						yi := 0
						for d := 0; d < nd; d++ {
							p := i[d]*st[d] - pads[d] + t[d]*dl[d]
							if p < 0 || p >= out[d] {
								return
							}
							yi = yi*out[d] + p
						}
						r.add((n*k.m+g*mg+m)*os+yi, xv*w[(c*mg+m)*ks+tf])
					})
				}
			})
		}
	}
	if b != nil {
		for n := 0; n < k.n; n++ {
			for m := 0; m < k.m; m++ {
				for i := 0; i < os; i++ {
					r.add((n*k.m+m)*os+i, b[m])
				}
			}
		}
	}
	return r
}

func TestKernelConformanceConv(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	for _, k := range convCases {
		dt := k.dtype
		if dt == tensor.Undefined {
			dt = tensor.Float
		}
		at := attrs{"group": k.group, "kernel_shape": k.kernel}
		if k.strides != nil {
			at["strides"] = k.strides
		}
		if k.dil != nil {
			at["dilations"] = k.dil
		}
		if k.pads != nil {
			at["pads"] = k.pads
		}
		fusions := testFusions
		if !k.fuse {
			fusions = nil
		}
		if !k.convTOnly {
			t.Run("Conv/"+k.name, func(t *testing.T) {
				x := kt(r, dt, append([]int{k.n, k.c}, k.in...)...)
				w := kt(r, dt, append([]int{k.m, k.c / k.group}, k.kernel...)...)
				in := []*tensor.Tensor{x, w}
				var bd []float64
				if k.bias {
					b := kt(r, dt, k.m)
					in, bd = append(in, b), f64(b)
				}
				checkKernel(t, kspec{opType: "Conv", opset: 22, at: at}, in, 1, refConv(k, f64(x), f64(w), bd), fusions)
			})
		}
		if !k.convOnly {
			t.Run("ConvTranspose/"+k.name, func(t *testing.T) {
				cat := attrs{}
				for key, v := range at {
					cat[key] = v
				}
				if k.outPad != nil {
					cat["output_padding"] = k.outPad
				}
				x := kt(r, dt, append([]int{k.n, k.c}, k.in...)...)
				w := kt(r, dt, append([]int{k.c, k.m / k.group}, k.kernel...)...)
				in := []*tensor.Tensor{x, w}
				var bd []float64
				if k.bias {
					b := kt(r, dt, k.m)
					in, bd = append(in, b), f64(b)
				}
				checkKernel(t, kspec{opType: "ConvTranspose", opset: 22, at: cat}, in, 1, refConvT(k, f64(x), f64(w), bd), fusions)
			})
		}
	}
}

func TestKernelConformanceGemm(t *testing.T) {
	r := rand.New(rand.NewSource(22))
	type gcase struct {
		m, n, k     int
		ta, tb      bool
		alpha, beta float32
		cshape      []int // nil: no C
		fuse        bool
		dtype       tensor.DType
	}
	cases := []gcase{
		{m: 1, n: 1000, k: 517, tb: true, alpha: 1, beta: 1, cshape: []int{1000}, fuse: true}, // a classifier head
		{m: 7, n: 13, k: 5, alpha: 1, beta: 1, cshape: []int{1, 13}, fuse: true},
		{m: 133, n: 45, k: 300, ta: true, alpha: 0.5, beta: -2, cshape: []int{133, 45}},
		{m: 66, n: 9, k: 31, ta: true, tb: true, alpha: 1, beta: 1, cshape: []int{66, 1}, fuse: true},
		{m: 5, n: 17, k: 3, alpha: 2, beta: 0.5, cshape: []int{}},
		{m: 9, n: 10, k: 11, tb: true, alpha: 1, beta: 1},
		{m: 3, n: 4, k: 0, alpha: 1, beta: 1, cshape: []int{4}, fuse: true},
		{m: 6, n: 5, k: 7, alpha: 1, beta: 1, cshape: []int{5}, fuse: true, dtype: tensor.Float16},
		{m: 6, n: 5, k: 7, tb: true, alpha: 1, beta: 1, cshape: []int{5}, fuse: true, dtype: tensor.Double},
	}
	for i, c := range cases {
		dt := c.dtype
		if dt == tensor.Undefined {
			dt = tensor.Float
		}
		t.Run(fmt.Sprintf("%d-%dx%dx%d-%s", i, c.m, c.n, c.k, dt), func(t *testing.T) {
			as, bs := []int{c.m, c.k}, []int{c.k, c.n}
			if c.ta {
				as = []int{c.k, c.m}
			}
			if c.tb {
				bs = []int{c.n, c.k}
			}
			A, B := kt(r, dt, as...), kt(r, dt, bs...)
			in := []*tensor.Tensor{A, B}
			var cv []float64
			if c.cshape != nil {
				C := kt(r, dt, c.cshape...)
				in, cv = append(in, C), f64(C)
			}
			a, b := f64(A), f64(B)
			want := newRef(c.m, c.n)
			for i := 0; i < c.m; i++ {
				for j := 0; j < c.n; j++ {
					for p := 0; p < c.k; p++ {
						av, bv := a[i*c.k+p], b[p*c.n+j]
						if c.ta {
							av = a[p*c.m+i]
						}
						if c.tb {
							bv = b[j*c.k+p]
						}
						want.add(i*c.n+j, float64(c.alpha)*av*bv)
					}
					if cv != nil {
						ci := 0
						switch len(c.cshape) {
						case 1:
							ci = j
						case 2:
							if c.cshape[0] == c.m {
								ci += i * c.cshape[1]
							}
							if c.cshape[1] == c.n {
								ci += j
							}
						}
						want.add(i*c.n+j, float64(c.beta)*cv[ci])
					}
				}
			}
			at := attrs{"alpha": c.alpha, "beta": c.beta}
			if c.ta {
				at["transA"] = 1
			}
			if c.tb {
				at["transB"] = 1
			}
			fusions := testFusions
			if !c.fuse {
				fusions = nil
			}
			checkKernel(t, kspec{opType: "Gemm", opset: 13, at: at}, in, 1, want, fusions)
		})
	}
}

func TestKernelConformanceMatMul(t *testing.T) {
	r := rand.New(rand.NewSource(23))
	cases := []struct {
		a, b []int
		fuse bool
	}{
		{a: []int{2, 3, 5, 7}, b: []int{7, 9}, fuse: true}, // folded into one tall GEMM
		{a: []int{5, 7}, b: []int{3, 7, 4}},
		{a: []int{2, 1, 5, 260}, b: []int{3, 260, 11}, fuse: true},
		{a: []int{7}, b: []int{7, 12}},
		{a: []int{3, 5, 7}, b: []int{7}},
		{a: []int{1, 33}, b: []int{33, 1}, fuse: true},
		{a: []int{130, 17}, b: []int{17, 19}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.a, c.b), func(t *testing.T) {
			A, B := kt(r, tensor.Float, c.a...), kt(r, tensor.Float, c.b...)
			p, err := planMatMul(c.a, c.b)
			if err != nil {
				t.Fatal(err)
			}
			a, b := f64(A), f64(B)
			want := newRef(p.out...)
			// Batch broadcasting by hand: index each operand's batch dims.
			nb := len(p.batch)
			pa := append(make([]int, nb-len(p.aBatch)), p.aBatch...)
			pbat := append(make([]int, nb-len(p.bBatch)), p.bBatch...)
			spatial(append(append([]int(nil), p.batch...), 1), func(idx []int, o int) {
				ia, ib := 0, 0
				for d := 0; d < nb; d++ {
					da, db := max(pa[d], 1), max(pbat[d], 1)
					ia = ia*da + idx[d]%da
					ib = ib*db + idx[d]%db
				}
				for i := 0; i < p.m; i++ {
					for j := 0; j < p.n; j++ {
						for q := 0; q < p.k; q++ {
							want.add((o*p.m+i)*p.n+j, a[(ia*p.m+i)*p.k+q]*b[(ib*p.k+q)*p.n+j])
						}
					}
				}
			})
			fusions := testFusions
			if !c.fuse {
				fusions = nil
			}
			checkKernel(t, kspec{opType: "MatMul", opset: 13}, []*tensor.Tensor{A, B}, 1, want, fusions)
		})
	}
}

// TestKernelConformanceMatMulBias: MatMul with the bias input the plan
// fuses in (runtime/plan matMulBias) against the float64 reference, bit for
// bit against MatMul then Add, and with every epilogue after the bias.
func TestKernelConformanceMatMulBias(t *testing.T) {
	r := rand.New(rand.NewSource(24))
	cases := []struct {
		a, b, bias []int
		fuse       bool
	}{
		{a: []int{1, 13, 24}, b: []int{24, 19}, bias: []int{19}, fuse: true},      // a projection, tails in M and N
		{a: []int{2, 3, 5, 260}, b: []int{260, 9}, bias: []int{1, 9}, fuse: true}, // two k blocks
		{a: []int{3, 131, 7}, b: []int{7, 33}, bias: []int{1, 1, 33}},             // > 128 rows
		{a: []int{3, 4}, b: []int{4, 5}, bias: []int{5}},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.a, c.b, c.bias), func(t *testing.T) {
			A, B, C := kt(r, tensor.Float, c.a...), kt(r, tensor.Float, c.b...), kt(r, tensor.Float, c.bias...)
			p, err := planMatMul(c.a, c.b)
			if err != nil {
				t.Fatal(err)
			}
			a, b, bias := f64(A), f64(B), f64(C)
			want := newRef(p.out...)
			rows := tensor.MustSize(p.out) / p.n
			for i := 0; i < rows; i++ {
				for j := 0; j < p.n; j++ {
					for q := 0; q < p.k; q++ {
						want.add(i*p.n+j, a[i*p.k+q]*b[q*p.n+j])
					}
					want.add(i*p.n+j, bias[j])
				}
			}
			mm := kspec{opType: "MatMul", opset: 13}
			sameBits(t, mm.run(t, A, B, C), kspec{opType: "Add", opset: 14}.run(t, mm.run(t, A, B), C))
			fusions := testFusions
			if !c.fuse {
				fusions = nil
			}
			checkKernel(t, mm, []*tensor.Tensor{A, B, C}, 1, want, fusions)
		})
	}
	// Biases the kernel refuses: one that would broadcast over rows or
	// batches, the wrong length, a dtype other than float32.
	bad := []struct {
		dt         tensor.DType
		a, b, bias []int
	}{
		{tensor.Float, []int{2, 3, 4}, []int{4, 5}, []int{3, 5}},
		{tensor.Float, []int{2, 3, 4}, []int{4, 5}, []int{2, 1, 5}},
		{tensor.Float, []int{2, 3, 4}, []int{4, 5}, []int{1, 1, 1, 5}},
		{tensor.Float, []int{2, 3, 4}, []int{4, 5}, []int{4}},
		{tensor.Float, []int{2, 3, 4}, []int{4}, []int{1}},
		{tensor.Double, []int{2, 3, 4}, []int{4, 5}, []int{5}},
	}
	for _, c := range bad {
		in := []*tensor.Tensor{kt(r, c.dt, c.a...), kt(r, c.dt, c.b...), kt(r, c.dt, c.bias...)}
		if _, err := (kspec{opType: "MatMul", opset: 13}).build(t, in).Run(&op.Context{Ctx: context.Background()}, in); err == nil {
			t.Errorf("%s %v·%v + bias %v: no error", c.dt, c.a, c.b, c.bias)
		}
	}
}

// TestKernelConformancePool checks the 2-D float32 pooling kernels against
// the generic N-D loop (which float64 inputs take): MaxPool exactly (same
// taps, same NaN handling: NaNs are sprinkled into the input), AveragePool
// within float32 rounding (it sums in float32, column by column, where the
// generic loop sums in float64; NaN windows agree).
func TestKernelConformancePool(t *testing.T) {
	r := rand.New(rand.NewSource(24))
	cases := []attrs{
		{"kernel_shape": []int{3, 3}, "strides": []int{2, 2}},
		{"kernel_shape": []int{3, 3}, "strides": []int{2, 2}, "pads": []int{1, 1, 1, 1}},
		{"kernel_shape": []int{3, 2}, "strides": []int{2, 1}, "pads": []int{1, 0, 2, 1}, "ceil_mode": 1},
		{"kernel_shape": []int{3, 3}, "strides": []int{1, 1}, "pads": []int{1, 1, 1, 1}, "count_include_pad": 1},
		{"kernel_shape": []int{2, 3}, "strides": []int{3, 2}, "dilations": []int{2, 2}, "pads": []int{0, 2, 1, 1}, "ceil_mode": 1, "count_include_pad": 1},
		{"kernel_shape": []int{5, 5}, "auto_pad": "SAME_UPPER", "strides": []int{2, 3}},
		{"kernel_shape": []int{4, 4}, "pads": []int{3, 3, 3, 3}, "strides": []int{3, 3}},
		// Strides 2 to 5 across wide rows: MaxPool's vectorised window scans
		// (stride 2; every sw-th kept for sw ≤ 4 in the SIMD build), and past.
		{"kernel_shape": []int{3, 3}, "strides": []int{2, 2}, "pads": []int{1, 1, 1, 1}},
		{"kernel_shape": []int{2, 5}, "strides": []int{1, 3}, "dilations": []int{1, 2}, "pads": []int{0, 1, 1, 2}},
		{"kernel_shape": []int{3, 4}, "strides": []int{2, 4}, "ceil_mode": 1},
		{"kernel_shape": []int{1, 3}, "strides": []int{1, 5}, "pads": []int{0, 1, 0, 1}},
		// Stride 2 with unit dilation: four outputs per vector trip.
		{"kernel_shape": []int{2, 4}, "strides": []int{1, 2}, "pads": []int{0, 3, 1, 0}},
		{"kernel_shape": []int{3, 2}, "strides": []int{2, 2}, "ceil_mode": 1},
	}
	for i, at := range cases {
		for _, opType := range []string{"MaxPool", "AveragePool"} {
			// One NaN in 8 elements reaches most windows; one in 150, with
			// as many infinities of either sign, leaves most rows clean
			// (the SIMD build's 3×3 stride-2 kernel runs those and hands
			// rows whose first kernel row holds a NaN, or an infinity
			// meeting its opposite, to the exact scan).
			for _, sc := range []struct {
				shape    []int
				nanEvery int
			}{{[]int{2, 3, 11, 13}, 8}, {[]int{1, 2, 7, 45}, 8}, {[]int{2, 3, 29, 19}, 150}} {
				shape := sc.shape
				t.Run(fmt.Sprint(opType, i, shape), func(t *testing.T) {
					x := kt(r, tensor.Float, shape...)
					xd := x.F32()
					for j := 0; j < len(xd)/sc.nanEvery; j++ {
						xd[r.Intn(len(xd))] = float32(math.NaN())
						if sc.nanEvery > 8 {
							xd[r.Intn(len(xd))] = float32(math.Inf(1 - 2*(j%2)))
						}
					}
					x64 := tensor.New(tensor.Double, x.Shape()...)
					for j, v := range xd {
						x64.F64()[j] = float64(v)
					}
					got := kspec{opType: opType, opset: 22, at: at}.run(t, x)
					want := kspec{opType: opType, opset: 22, at: at}.run(t, x64)
					w32 := tensor.New(tensor.Float, want.Shape()...)
					for j, v := range want.F64() {
						w32.F32()[j] = float32(v)
					}
					if opType == "MaxPool" {
						sameBits(t, got, w32)
						return
					}
					g, w := got.F32(), w32.F32()
					for j := range w {
						if d := math.Abs(float64(g[j]) - float64(w[j])); g[j] != w[j] && !(d <= 1e-6*(1+math.Abs(float64(w[j])))) && !(g[j] != g[j] && w[j] != w[j]) {
							t.Fatalf("element %d: %v, want %v", j, g[j], w[j])
						}
					}
				})
			}
		}
	}
}

// TestKernelConformanceBatchNorm checks the float32 inference BatchNorm
// (per-channel scale and shift) against the float64 definition.
func TestKernelConformanceBatchNorm(t *testing.T) {
	r := rand.New(rand.NewSource(25))
	const n, c, h, w = 2, 5, 3, 7
	x := kt(r, tensor.Float, n, c, h, w)
	scale, bias, mean := kt(r, tensor.Float, c), kt(r, tensor.Float, c), kt(r, tensor.Float, c)
	vr := kt(r, tensor.Float, c)
	for i, v := range vr.F32() {
		vr.F32()[i] = v*v + 0.1
	}
	want := newRef(n, c, h, w)
	xd, sd, bd, md, vd := f64(x), f64(scale), f64(bias), f64(mean), f64(vr)
	for i := range want.val {
		ch := i / (h * w) % c
		want.add(i, sd[ch]*(xd[i]-md[ch])/math.Sqrt(vd[ch]+1e-5)+bd[ch])
	}
	// Every activation fused (a residual is refused), against the reference
	// and the separate ops; parameters given at run time and constant.
	var acts []*op.Fusion
	for _, f := range testFusions {
		if !f.Residual {
			acts = append(acts, f)
		}
	}
	checkKernel(t, kspec{opType: "BatchNormalization", opset: 15}, []*tensor.Tensor{x, scale, bias, mean, vr}, 1, want, acts)
	// float16 storage: the activation as a separate pass, rounded between.
	var in16 []*tensor.Tensor
	for _, p := range []*tensor.Tensor{x, scale, bias, mean, vr} {
		p16 := tensor.New(tensor.Float16, p.Shape()...)
		copy(p16.F32(), p.F32())
		tensor.RoundTo(tensor.Float16, p16.F32())
		in16 = append(in16, p16)
	}
	y16 := kspec{opType: "BatchNormalization", opset: 15}.run(t, in16...)
	for _, f := range acts {
		got := kspec{opType: "BatchNormalization", opset: 15, fused: f}.run(t, in16...)
		sameBits(t, got, unfused(t, y16, f, nil))
	}
	res := op.Default.Resolve("", "BatchNormalization", 15)
	node := &op.Node{Name: "bn", OpType: "BatchNormalization", Version: res.Version, Opset: 15, Outputs: []string{"y"},
		Inputs: []string{"x", "s", "b", "m", "v", "r"}, Fused: &op.Fusion{Activation: op.Activation("Relu"), Residual: true}}
	if _, err := res.Builder(node); err == nil {
		t.Error("BatchNormalization accepted a fused residual")
	}
}

// TestKernelConcurrentRuns runs kernels built once (weights pre-packed)
// from several goroutines at once, as a session may: packed weights are
// shared read-only and scratch comes from pools, so every run must give the
// single-threaded result (and `go test -race` must stay quiet).
func TestKernelConcurrentRuns(t *testing.T) {
	r := rand.New(rand.NewSource(26))
	x, w, b := kt(r, tensor.Float, 2, 6, 15, 13), kt(r, tensor.Float, 8, 3, 3, 3), kt(r, tensor.Float, 8)
	conv := kspec{opType: "Conv", opset: 22, at: attrs{"group": 2, "pads": []int{1, 1, 1, 1}}, consts: []bool{false, true, true}}
	ck := conv.build(t, []*tensor.Tensor{x, w, b})
	a, bm := kt(r, tensor.Float, 37, 70), kt(r, tensor.Float, 70, 19)
	mm := kspec{opType: "MatMul", opset: 13, consts: []bool{false, true}}
	mk := mm.build(t, []*tensor.Tensor{a, bm})
	run := func(k op.Kernel, in ...*tensor.Tensor) *tensor.Tensor {
		out, err := k.Run(&op.Context{Ctx: context.Background()}, in)
		if err != nil {
			t.Error(err)
			return nil
		}
		return out[0]
	}
	wantC, wantM := run(ck, x, w, b), run(mk, a, bm)
	done := make(chan [2]*tensor.Tensor)
	for g := 0; g < 4; g++ {
		go func() {
			var c, m *tensor.Tensor
			for i := 0; i < 5; i++ {
				c, m = run(ck, x, w, b), run(mk, a, bm)
			}
			done <- [2]*tensor.Tensor{c, m}
		}()
	}
	for g := 0; g < 4; g++ {
		got := <-done
		sameBits(t, got[0], wantC)
		sameBits(t, got[1], wantM)
	}
}

// TestKernelSteadyStateAllocs: with weights packed at build and unchanged
// input shapes, a run allocates only its output (tensor, shape, data) and
// the result slice, plus at most a couple of small values, whatever the
// sizes.
func TestKernelSteadyStateAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	r := rand.New(rand.NewSource(27))
	x, w, b := kt(r, tensor.Float, 1, 32, 12, 12), kt(r, tensor.Float, 32, 32, 3, 3), kt(r, tensor.Float, 32)
	a, bm, bt, c := kt(r, tensor.Float, 8, 64), kt(r, tensor.Float, 64, 32), kt(r, tensor.Float, 32, 64), kt(r, tensor.Float, 32)
	for _, tc := range []struct {
		spec kspec
		in   []*tensor.Tensor
	}{
		{kspec{opType: "Conv", opset: 22, at: attrs{"pads": []int{1, 1, 1, 1}}, consts: []bool{false, true, true}}, []*tensor.Tensor{x, w, b}},
		{kspec{opType: "Conv", opset: 22, at: attrs{"pads": []int{1, 1, 1, 1}, "strides": []int{2, 2}}, consts: []bool{false, true, true}}, []*tensor.Tensor{x, w, b}},
		{kspec{opType: "ConvTranspose", opset: 22, consts: []bool{false, true}}, []*tensor.Tensor{x, w}},
		{kspec{opType: "MatMul", opset: 13, consts: []bool{false, true}}, []*tensor.Tensor{a, bm}},
		{kspec{opType: "Gemm", opset: 13, at: attrs{"transB": 1}, consts: []bool{false, true, true}}, []*tensor.Tensor{a, bt, c}},
		{kspec{opType: "MaxPool", opset: 22, at: attrs{"kernel_shape": []int{3, 3}, "strides": []int{2, 2}}}, []*tensor.Tensor{x}},
	} {
		k := tc.spec.build(t, tc.in)
		ctx := &op.Context{Ctx: context.Background()}
		if n := testing.AllocsPerRun(5, func() { _, _ = k.Run(ctx, tc.in) }); n > 7 {
			t.Errorf("%s: %v allocations per run", tc.spec.opType, n)
		}
	}
}
