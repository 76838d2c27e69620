package rnn

import (
	"sync"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/rnn/kern"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The float32 path. The generic driver (common.go) computes in float64 one
// scalar at a time, which made a 256-step LSTM cost ~25 ms in wasm. Here,
// for float32 inputs with the default activations and no clip:
//
//   - the input projection X·Wᵀ + Wb (+ Rb) of every timestep is one GEMM
//     (ops/kernels; W packed once at build when it is constant), so only
//     the recurrent part stays sequential;
//   - each step adds h·Rᵀ with a GEMV over Rᵀ (packed in 16-column panels once
//     at build when R is constant) straight into that timestep's row of the
//     projection;
//   - the gate activations are tanh32 (a rational approximation) and
//     sigmoid32 (over a polynomial exp), four lanes at a time in the SIMD
//     build (kern/simd.go), with error bounds checked on every float32;
//   - every buffer comes from a per-kernel pool: a run allocates only its
//     outputs.
//
// The results differ from the float64 path by float32 rounding and the
// activations' few-ulp errors; fast_test.go checks both paths against a
// naive float64 reference.

// fastEnabled lets tests run the generic path on float32 inputs.
var fastEnabled = true

// fast is the float32 kernel of one node.
type fast struct {
	s     *spec
	wSrc  *float32
	wPack []*kernels.PackedB // per direction: op(B) = W[d]ᵀ, k = input, n = G·H
	rSrc  *float32
	rT    [][]*kern.Panels // per direction: R[d]ᵀ as the steps read it (packR)
	pool  sync.Pool        // *scratch
}

// scratch is one run's working memory, kept between runs.
type scratch struct {
	xw, bias, h, c, p, tmp, rh, omz []float32
	rT                              []*kern.Panels
}

// grow returns buf resized to n values (contents unspecified).
func grow(buf *[]float32, n int) []float32 {
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n]
}

// newFast prepares the constant weights of n, or returns nil when the node's
// attributes rule the float32 path out (the inputs' dtypes are checked per run).
func newFast(n *op.Node, s *spec) *fast {
	if !s.defaultActs || s.clip != 0 {
		return nil
	}
	f := &fast{s: s}
	if W := n.ConstInput(1); W != nil && W.DType() == tensor.Float && W.Rank() == 3 && W.Len() > 0 {
		sh := W.Shape()
		gh, in := sh[1], sh[2]
		w := W.F32()
		for d := 0; d < sh[0]; d++ {
			f.wPack = append(f.wPack, kernels.PackB(true, in, gh, w[d*gh*in:(d+1)*gh*in], in))
		}
		f.wSrc = &w[0]
	}
	// R is packed only when its shape is consistent (a bad one is reported
	// by check at run time).
	if R := n.ConstInput(2); R != nil && R.DType() == tensor.Float && R.Rank() == 3 && R.Len() > 0 &&
		R.Shape()[1] == s.gates*R.Shape()[2] && (s.hidden == 0 || s.hidden == R.Shape()[2]) {
		sh := R.Shape()
		r := R.F32()
		for d := 0; d < sh[0]; d++ {
			f.rT = append(f.rT, s.packR(nil, r[d*sh[1]*sh[2]:(d+1)*sh[1]*sh[2]], sh[2]))
		}
		f.rSrc = &r[0]
	}
	return f
}

// same reports whether v starts at src, so a constant prepared at build is
// the input of this run.
func same(src *float32, v []float32) bool { return src != nil && len(v) > 0 && src == &v[0] }

// packR packs one direction's R ([G·H, H]) as the steps read it, reusing
// dst's buffers: Rᵀ whole, except for GRU, whose h gate is multiplied
// separately (z and r first, then h).
func (s *spec) packR(dst []*kern.Panels, r []float32, H int) []*kern.Panels {
	splits := []int{0, s.gates * H}
	if s.kind == "GRU" {
		splits = []int{0, 2 * H, 3 * H}
	}
	for len(dst) < len(splits)-1 {
		dst = append(dst, new(kern.Panels))
	}
	for i := range splits[1:] {
		dst[i].Pack(r, H, splits[i], splits[i+1]-splits[i])
	}
	return dst
}

// applies reports whether the inputs suit the float32 path.
func (f *fast) applies(in []*tensor.Tensor) bool {
	if f == nil || !fastEnabled {
		return false
	}
	for i, t := range in {
		if t != nil && i != 4 && t.DType() != tensor.Float {
			return false
		}
	}
	return true
}

// run computes the node for validated inputs (p holds dimensions and lens).
func (f *fast) run(ctx *op.Context, in []*tensor.Tensor, p *problem, outputs int) ([]*tensor.Tensor, error) {
	s := f.s
	H, G, D, I, B, T := p.hidden, s.gates, s.dirs, p.input, p.batch, p.seq
	N := G * H
	sc, _ := f.pool.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer f.pool.Put(sc)

	// Row t·rowT + b·rowB of X (and of xw) is timestep t of batch entry b;
	// layout 1 is used as is, without a transposed copy. Y's row of (t, d,
	// b) starts at t·yT + d·yD + b·yB. (Strides rather than closures: the
	// steps index with them, and a closure call is an indirect call.)
	rowT, rowB := B, 1
	yShape, stShape := []int{T, D, B, H}, []int{D, B, H}
	yT, yD, yB := D*B*H, B*H, H
	stAt := func(d, b int) int { return (d*B + b) * H }
	if s.layout == 1 {
		rowT, rowB = 1, T
		yShape, stShape = []int{B, T, D, H}, []int{B, D, H}
		yT, yD, yB = D*H, H, T*D*H
		stAt = func(d, b int) int { return (b*D + d) * H }
	}
	res := make([]*tensor.Tensor, outputs)
	res[0] = ctx.New(tensor.Float, yShape...)
	res[1] = ctx.New(tensor.Float, stShape...)
	if outputs > 2 {
		res[2] = ctx.New(tensor.Float, stShape...)
	}
	y, yh := res[0].F32(), res[1].F32()

	x, w, r := in[0].F32(), in[1].F32(), in[2].F32()
	xw := grow(&sc.xw, T*B*N)
	bias := grow(&sc.bias, 2*N)
	h := grow(&sc.h, H)
	c := grow(&sc.c, H)
	tmp := grow(&sc.tmp, H)
	rh := grow(&sc.rh, H)
	omz := grow(&sc.omz, H)
	for d := 0; d < D; d++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// bias[:N] goes into the projection: Wb + Rb, except GRU's Rbh,
		// which is added to the recurrent part of h (bias[N+2H:]).
		clear(bias)
		if Bt := input(in, 3); Bt != nil {
			copy(bias, Bt.F32()[d*2*N:(d+1)*2*N])
		}
		wb, rb := bias[:N], bias[N:]
		for j := range wb {
			if s.kind != "GRU" || j < 2*H {
				wb[j] += rb[j]
			}
		}
		for i := 0; i < T*B; i++ {
			copy(xw[i*N:(i+1)*N], wb)
		}
		if len(f.wPack) == D && same(f.wSrc, w) {
			kernels.SgemmPackedB(false, T*B, 1, x, I, f.wPack[d], 1, xw, N, nil)
		} else {
			kernels.Sgemm(false, true, T*B, N, I, 1, x, I, w[d*N*I:(d+1)*N*I], I, 1, xw, N)
		}
		var rT []*kern.Panels
		if len(f.rT) == D && same(f.rSrc, r) {
			rT = f.rT[d]
		} else {
			sc.rT = s.packR(sc.rT, r[d*N*H:(d+1)*N*H], H)
			rT = sc.rT
		}
		// peep stays nil without peepholes (kern.LSTMGates' faster form), except
		// for coupled input and forget gates, which take zeros.
		var peep []float32
		P := input(in, 7)
		if s.kind == "LSTM" && (P != nil || s.inputForget) {
			peep = grow(&sc.p, 3*H)
			clear(peep)
			if P != nil {
				copy(peep, P.F32()[d*3*H:(d+1)*3*H])
			}
		}
		backward := s.reverse || d == 1
		for b := 0; b < B; b++ {
			h := h // an LSTM's steps leave h in Y's rows and read it there
			clear(h)
			if h0 := input(in, 5); h0 != nil {
				copy(h, h0.F32()[stAt(d, b):])
			}
			clear(c)
			if c0 := input(in, 6); c0 != nil && s.kind == "LSTM" {
				copy(c, c0.F32()[stAt(d, b):])
			}
			L := p.lens[b]
			for k := 0; k < L; k++ {
				t := k
				if backward {
					t = L - 1 - k // reverse within the sequence's own length
				}
				row := t*rowT + b*rowB
				g := xw[row*N : (row+1)*N]
				yt := y[t*yT+d*yD+b*yB:][:H]
				switch s.kind {
				case "LSTM":
					kern.GemvAcc(g, h, rT[0])
					kern.LSTMGates(g, c, yt, peep, s.inputForget)
					h = yt
				case "GRU":
					gruStep(g, h, rT, rb[2*H:], tmp, rh, omz, s.linearBeforeReset)
					copy(yt, h)
				default:
					kern.GemvAcc(g, h, rT[0])
					kern.TanhTo(h, g)
					copy(yt, h)
				}
			}
			copy(yh[stAt(d, b):stAt(d, b)+H], h)
			if outputs > 2 {
				copy(res[2].F32()[stAt(d, b):stAt(d, b)+H], c)
			}
		}
	}
	return res, nil
}

// gruStep advances one GRU step: g holds Xt·Wᵀ + Wb (+ Rb for z and r), rbh
// is Rbh, tmp, rh and omz are scratch of H values. See gruCell for the
// equations; 1 - zt is computed as σ(-x), without the cancellation.
func gruStep(g, h []float32, rT []*kern.Panels, rbh, tmp, rh, omz []float32, linearBeforeReset bool) {
	H := len(h)
	zr := g[:2*H]
	kern.GemvAcc(zr, h, rT[0])
	for j := range omz {
		omz[j] = -zr[j]
	}
	kern.SigmoidTo(omz, omz)
	kern.SigmoidTo(zr, zr)
	z, r := zr[:H], zr[H:]
	copy(tmp, rbh)
	if linearBeforeReset {
		kern.GemvAcc(tmp, h, rT[1]) // Ht-1·Rhᵀ + Rbh
		for j := range tmp {
			tmp[j] = g[2*H+j] + r[j]*tmp[j]
		}
	} else {
		for j := range rh {
			rh[j] = r[j] * h[j]
		}
		kern.GemvAcc(tmp, rh, rT[1]) // (rt ⊙ Ht-1)·Rhᵀ + Rbh
		for j := range tmp {
			tmp[j] += g[2*H+j]
		}
	}
	kern.TanhTo(tmp, tmp)
	for j := range h {
		h[j] = omz[j]*tmp[j] + z[j]*h[j]
	}
}
