package kern

import (
	"math"

	"github.com/gort-dev/gort/ops/internal/expf"
)

// Panels is a k×n matrix packed for GemvAcc: the first n/16·16 columns in
// panels of 16 columns, the rest in panels of 8, each over the full depth
// and k-major (a panel of width w starting at column j0 holds element
// (p, j0 + c) at data[j0·k + w·p + c]), columns past n zero. The GEMV then
// reads memory in order; its SIMD form keeps four accumulators on a
// 16-wide panel (see gemv16).
type Panels struct {
	k, n int
	data []float32
}

// wide is the number of columns in 16-wide panels.
func (m *Panels) wide() int { return m.n / 16 * 16 }

// Pack sets m to the k×n matrix whose element (p, j) is r[(c0+j)·k + p]:
// rows c0 to c0+n of r (rows of k values), transposed.
func (m *Panels) Pack(r []float32, k, c0, n int) {
	m.k, m.n = k, n
	size := (n + 7) / 8 * 8 * k
	if cap(m.data) < size {
		m.data = make([]float32, size)
	}
	m.data = m.data[:size]
	clear(m.data)
	w16 := m.wide()
	for j := 0; j < n; j++ {
		w := 16
		if j >= w16 {
			w = 8
		}
		j0 := j / w * w
		row := r[(c0+j)*k : (c0+j+1)*k]
		for p, x := range row {
			m.data[j0*k+p*w+j-j0] = x
		}
	}
}

// lstmUnit is the LSTM cell for one hidden unit: gi, go, gf, gc are the gate
// pre-activations, c the previous cell state, pi, po, pf the peepholes. It
// returns the new cell and hidden values (LSTMGates' scalar form). A zero
// peephole (absent ones are zero) adds nothing, even to an infinite cell,
// where 0·c would be NaN: so a model without peepholes gets the same
// results here as from the SIMD build's peephole-free gates.
func lstmUnit(gi, gO, gf, gc, c, pi, po, pf float32, inputForget bool) (float32, float32) {
	if pi != 0 {
		gi += pi * c
	}
	it := sigmoid32(gi)
	var ft float32
	if inputForget {
		ft = sigmoid32(-gi) // 1 - it, without the cancellation
	} else {
		if pf != 0 {
			gf += pf * c
		}
		ft = sigmoid32(gf)
	}
	c = ft*c + it*tanh32(gc)
	if po != 0 {
		gO += po * c
	}
	ot := sigmoid32(gO)
	return c, ot * tanh32(c)
}

// tanh32 approximates tanh in float32 by a [13/6] odd rational function on
// [-c, c], c = 7.90531110763549805 (where tanh rounds to ±1), Eigen's
// generic_fast_tanh_float. Its error against math.Tanh is at most
// tanhMaxErr over every float32 input (TestActivationBounds -exhaustive checks all 2³²).
// NaN stays NaN; ±Inf gives ±1. Each product is rounded before its sum
// (madd), as in the SIMD build, which has no fused multiply-add.
func tanh32(x float32) float32 {
	x = min(max(x, -tanhClamp), tanhClamp)
	x2 := x * x
	p := madd(x2, tanhA13, tanhA11)
	p = madd(p, x2, tanhA9)
	p = madd(p, x2, tanhA7)
	p = madd(p, x2, tanhA5)
	p = madd(p, x2, tanhA3)
	p = madd(p, x2, tanhA1)
	q := madd(x2, tanhB6, tanhB4)
	q = madd(q, x2, tanhB2)
	q = madd(q, x2, tanhB0)
	return x * p / q
}

// sigmoid32 is 1/(1+e⁻ˣ) with exp32: unlike (1 + tanh(x/2))/2 it keeps its
// relative accuracy where σ(x) is tiny, which gates multiply into results
// that the node suite compares with an absolute tolerance of 1e-7. Its
// error bound is sigmoidMaxErr, checked like tanh32's.
func sigmoid32(x float32) float32 { return 1 / (1 + exp32(-x)) }

// exp32 is Cephes' expf: e^x = 2ⁿ·e^r with n = round(x·log2 e) and
// |r| ≤ ln2/2 (r = x - n·ln2 in two parts, C1 exact in few bits), e^r by a
// degree-7 polynomial. x is clamped to [-87.3, 88.3], where 2ⁿ stays a
// normal float32 (the sigmoid only needs e^x there to be tiny or huge).
func exp32(x float32) float32 {
	x = min(max(x, expLo), expHi)
	n := float32(math.RoundToEven(float64(float32(x * expf.Log2e))))
	r := x - float32(n*expf.Ln2Hi) - float32(n*expf.Ln2Lo)
	p := madd(r, expf.P0, expf.P1)
	p = madd(p, r, expf.P2)
	p = madd(p, r, expf.P3)
	p = madd(p, r, expf.P4)
	p = madd(p, r, expf.P5)
	p = float32(p*float32(r*r)) + r + 1
	return p * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// madd is a·b + c with the product rounded to float32 (never fused).
func madd(a, b, c float32) float32 { return float32(a*b) + c }

const (
	tanhClamp = 7.90531110763549805
	tanhA1    = 4.89352455891786e-03
	tanhA3    = 6.37261928875436e-04
	tanhA5    = 1.48572235717979e-05
	tanhA7    = 5.12229709037114e-08
	tanhA9    = -8.60467152213735e-11
	tanhA11   = 2.00018790482477e-13
	tanhA13   = -2.76076847742355e-16
	tanhB0    = 4.89352518554385e-03
	tanhB2    = 2.26843463243900e-03
	tanhB4    = 1.18534705686654e-04
	tanhB6    = 1.19825839466702e-06

	expLo, expHi = -87.3, 88.3
	expMagic     = 0x1.8p23 + 127 // exp4's rounding and exponent bias
)
