package rnn

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
)

// GRU-1 lacks linear_before_reset (its default 0 is GRU-1's behaviour) and
// has output_sequence (Y is computed whenever requested); 3 added
// linear_before_reset, 7 dropped output_sequence, 14 added layout, 22 bfloat16.
func init() {
	op.Register("GRU", []int{1, 3, 7, 14, 22}, buildGRU)
	shapes.Register("", "GRU", shapes.RNN)
}

func buildGRU(n *op.Node) (any, error) {
	s, err := parseSpec(n, "GRU", 3, []string{"Sigmoid", "Tanh"})
	if err != nil {
		return nil, err
	}
	return kernel(n, s, gruCell, 2), nil
}

// gruCell, gate order z, r, h:
//
//	zt = f(Xt·Wzᵀ + Ht-1·Rzᵀ + Wbz + Rbz)
//	rt = f(Xt·Wrᵀ + Ht-1·Rrᵀ + Wbr + Rbr)
//	ht = g(Xt·Whᵀ + (rt ⊙ Ht-1)·Rhᵀ + Rbh + Wbh)      linear_before_reset = 0
//	ht = g(Xt·Whᵀ + rt ⊙ (Ht-1·Rhᵀ + Rbh) + Wbh)      linear_before_reset = 1
//	Ht = (1 - zt) ⊙ ht + zt ⊙ Ht-1
func gruCell(d *dirData, x, h, _, g []float64) {
	H := d.H
	f, gf := d.acts[0], d.acts[1]
	// Input part of every gate.
	for j := range g {
		g[j] = d.wb[j]
	}
	matvec(g, d.w, x, 0, 3*H, d.I)
	// Recurrent part of z and r.
	rr := d.scratchR
	for j := 0; j < 3*H; j++ {
		rr[j] = d.rb[j]
	}
	matvec(rr[:2*H], d.r, h, 0, 2*H, H)
	z, r := make([]float64, H), make([]float64, H)
	for j := 0; j < H; j++ {
		z[j] = f(d.clipped(g[j] + rr[j]))
		r[j] = f(d.clipped(g[H+j] + rr[H+j]))
	}
	cand := rr[2*H:]
	if d.s.linearBeforeReset {
		matvec(cand, d.r, h, 2*H, 3*H, H) // Ht-1·Rhᵀ + Rbh
		for j := 0; j < H; j++ {
			cand[j] = g[2*H+j] + r[j]*cand[j]
		}
	} else {
		rh := make([]float64, H)
		for j := range rh {
			rh[j] = r[j] * h[j]
		}
		matvec(cand, d.r, rh, 2*H, 3*H, H) // (rt ⊙ Ht-1)·Rhᵀ + Rbh
		for j := 0; j < H; j++ {
			cand[j] += g[2*H+j]
		}
	}
	for j := 0; j < H; j++ {
		ht := gf(d.clipped(cand[j]))
		h[j] = (1-z[j])*ht + z[j]*h[j]
	}
}
