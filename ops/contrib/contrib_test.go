package contrib_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/ops/opsutil"
	"github.com/gort-dev/gort/runtime/tensor"
)

// randT is a float32 tensor of the shape with values uniform in [-scale,
// scale) + offset, from a fixed seed.
func randT(r *rand.Rand, scale, offset float64, shape ...int) *tensor.Tensor {
	v := make([]float32, opsutil.Product(shape))
	for i := range v {
		v[i] = float32((r.Float64()*2-1)*scale + offset)
	}
	return tensor.Of(shape, v)
}

func f64(t *tensor.Tensor) []float64 {
	if t == nil {
		return nil
	}
	v, _ := t.Float64s()
	return v
}

func of(shape []int, v []float64) *tensor.Tensor {
	f := make([]float32, len(v))
	for i, x := range v {
		f[i] = float32(x)
	}
	return tensor.Of(shape, f)
}

// Naive references, in float64.
func refGelu(x float64) float64 { return 0.5 * x * (1 + math.Erf(x/math.Sqrt2)) }
func refFastGelu(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(0.7978845608028654*(x+0.044715*x*x*x)))
}
func refQuickGelu(alpha float64) func(float64) float64 {
	return func(x float64) float64 { return x / (1 + math.Exp(-alpha*x)) }
}

func TestGelus(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	shapes := [][]int{{2, 3, 5}, {3, 7}, {1, 4, 9}, {2, 1, 3, 11}}
	type tc struct {
		op    string
		attrs optest.A
		bias  bool
		f     func(float64) float64
	}
	cases := []tc{
		{"Gelu", nil, false, refGelu},
		{"BiasGelu", nil, true, refGelu},
		{"FastGelu", nil, false, refFastGelu},
		{"FastGelu", nil, true, refFastGelu},
		{"QuickGelu", nil, false, refQuickGelu(1.702)},
		{"QuickGelu", optest.A{"alpha": float32(0.9)}, false, refQuickGelu(float64(float32(0.9)))},
		{"QuickGelu", optest.A{"alpha": float32(-1.3)}, false, refQuickGelu(float64(float32(-1.3)))},
	}
	for _, c := range cases {
		for _, s := range shapes {
			t.Run(fmt.Sprintf("%s/bias=%v/%v/%v", c.op, c.bias, c.attrs, s), func(t *testing.T) {
				x := randT(r, 4, 0, s...)
				ins := []*tensor.Tensor{x}
				h := s[len(s)-1]
				var b []float64
				if c.bias {
					bt := randT(r, 1, 0, h)
					ins = append(ins, bt)
					b = f64(bt)
				}
				xv := f64(x)
				want := make([]float64, len(xv))
				for i, v := range xv {
					if b != nil {
						v = float64(float32(v) + float32(b[i%h]))
					}
					want[i] = c.f(v)
				}
				got := optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: c.op, Opset: 1, Attrs: c.attrs, In: ins})
				optest.Expect(t, c.op, got[0], of(s, want))
			})
		}
	}
}

func TestGeluDouble(t *testing.T) {
	x := tensor.Of([]int{2, 3}, []float64{-3, -1, -0.25, 0, 0.5, 2.5})
	b := tensor.Of([]int{3}, []float64{0.1, -0.2, 0.3})
	got := optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "BiasGelu", Opset: 1, In: []*tensor.Tensor{x, b}})
	want := make([]float64, 6)
	for i, v := range x.F64() {
		want[i] = refGelu(v + b.F64()[i%3])
	}
	optest.Expect(t, "BiasGelu double", got[0], tensor.Of([]int{2, 3}, want))
}

func TestBiasAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range [][]int{{2, 3, 5}, {3, 1, 7}, {1, 4, 2}} {
		x, skip, bias := randT(r, 2, 0, s...), randT(r, 2, 0, s...), randT(r, 1, 0, s[2])
		xv, sv, bv := f64(x), f64(skip), f64(bias)
		want := make([]float64, len(xv))
		for i := range xv {
			want[i] = xv[i] + bv[i%s[2]] + sv[i]
		}
		got := optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "BiasAdd", Opset: 1, In: []*tensor.Tensor{x, bias, skip}})
		optest.Expect(t, fmt.Sprint("BiasAdd", s), got[0], of(s, want))
	}
	x := randT(r, 1, 0, 2, 3)
	if _, err := optest.Run(optest.Call{Domain: contrib.Domain, Op: "BiasAdd", Opset: 1, In: []*tensor.Tensor{x, randT(r, 1, 0, 3), x}}); err == nil {
		t.Error("BiasAdd accepted a rank-2 X")
	}
}

// refNorm normalises rows of length h of s (two-pass, float64): it returns
// y, and per row the mean (0 for rms) and 1/√(var+eps).
func refNorm(s []float64, h int, eps float64, rms bool, gamma, beta []float64) (y, mean, inv []float64) {
	y = make([]float64, len(s))
	for r := 0; r*h < len(s); r++ {
		row := s[r*h : (r+1)*h]
		var m float64
		if !rms {
			for _, v := range row {
				m += v
			}
			m /= float64(h)
		}
		var q float64
		for _, v := range row {
			q += (v - m) * (v - m)
		}
		iv := 1 / math.Sqrt(q/float64(h)+eps)
		for j, v := range row {
			y[r*h+j] = (v - m) * iv * gamma[j]
			if beta != nil {
				y[r*h+j] += beta[j]
			}
		}
		mean, inv = append(mean, m), append(inv, iv)
	}
	return
}

func TestSkipLayerNorms(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	type tc struct {
		x, skip         []int
		beta, bias, rms bool
		eps             float32
		offset          float64
	}
	var cases []tc
	for _, rms := range []bool{false, true} {
		cases = append(cases,
			tc{x: []int{2, 3, 5}, skip: []int{2, 3, 5}, beta: !rms, bias: true, rms: rms, eps: 1e-5},
			tc{x: []int{2, 3, 5}, skip: []int{3, 5}, rms: rms, eps: 1e-12},
			tc{x: []int{3, 4, 7}, skip: []int{1, 4, 7}, bias: true, rms: rms},
			tc{x: []int{5, 9}, skip: []int{5, 9}, beta: !rms, rms: rms, eps: 1e-3},
			tc{x: []int{2, 7, 33}, skip: []int{2, 7, 33}, beta: !rms, bias: true, rms: rms, offset: 50},
		)
	}
	for _, c := range cases {
		op := "SkipLayerNormalization"
		if c.rms {
			op = "SkipSimplifiedLayerNormalization"
		}
		t.Run(fmt.Sprintf("%s/%v/%v/beta=%v/bias=%v", op, c.x, c.skip, c.beta, c.bias), func(t *testing.T) {
			h := c.x[len(c.x)-1]
			x, skip, gamma := randT(r, 2, c.offset, c.x...), randT(r, 2, 0, c.skip...), randT(r, 1, 1, h)
			var beta, bias *tensor.Tensor
			ins := []*tensor.Tensor{x, skip, gamma}
			if !c.rms {
				if c.beta {
					beta = randT(r, 1, 0, h)
				}
				ins = append(ins, beta)
			}
			if c.bias {
				bias = randT(r, 1, 0, h)
			}
			ins = append(ins, bias)
			attrs := optest.A{}
			eps := 1e-12
			if c.eps != 0 {
				attrs["epsilon"] = c.eps
				eps = float64(c.eps)
			}
			xv, sv, bv := f64(x), f64(skip), f64(bias)
			sum := make([]float64, len(xv))
			for i := range xv {
				s := float32(xv[i]) + float32(sv[i%len(sv)])
				if bv != nil {
					s += float32(bv[i%h])
				}
				sum[i] = float64(s)
			}
			y, mean, inv := refNorm(sum, h, eps, c.rms, f64(gamma), f64(beta))
			got := optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: op, Opset: 1, Attrs: attrs, NOut: 4, In: ins})
			stat := append(append([]int(nil), c.x[:len(c.x)-1]...), 1)
			optest.Expect(t, "output", got[0], of(c.x, y))
			optest.Expect(t, "mean", got[1], of(stat, mean))
			optest.Expect(t, "inv_std_var", got[2], of(stat, inv))
			optest.Expect(t, "input_skip_bias_sum", got[3], of(c.x, sum))
		})
	}
	if _, err := optest.Run(optest.Call{Domain: contrib.Domain, Op: "SkipLayerNormalization", Opset: 1,
		In: []*tensor.Tensor{randT(r, 1, 0, 2, 3, 5), randT(r, 1, 0, 2, 5), randT(r, 1, 0, 5)}}); err == nil {
		t.Error("a skip of shape [2 5] for input [2 3 5] was accepted")
	}
}

func TestSimplifiedLayerNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, domain := range []string{"", contrib.Domain} {
		for _, c := range []struct {
			shape []int
			axis  int
		}{{[]int{2, 3, 5}, -1}, {[]int{2, 3, 4, 5}, 2}, {[]int{3, 7}, 0}, {[]int{2, 5, 3}, -2}} {
			t.Run(fmt.Sprintf("%q/%v/axis=%d", domain, c.shape, c.axis), func(t *testing.T) {
				ax := c.axis
				if ax < 0 {
					ax += len(c.shape)
				}
				d := opsutil.Product(c.shape[ax:])
				x, scale := randT(r, 3, 0.5, c.shape...), randT(r, 1, 1, c.shape[ax:]...)
				y, _, inv := refNorm(f64(x), d, 1e-5, true, f64(scale), nil)
				got := optest.MustRun(t, optest.Call{Domain: domain, Op: "SimplifiedLayerNormalization", Opset: 1,
					Attrs: optest.A{"axis": c.axis}, NOut: 2, In: []*tensor.Tensor{x, scale}})
				stat := append([]int(nil), c.shape...)
				for i := ax; i < len(stat); i++ {
					stat[i] = 1
				}
				optest.Expect(t, "Y", got[0], of(c.shape, y))
				optest.Expect(t, "inv_std_var", got[1], of(stat, inv))
			})
		}
	}
}
