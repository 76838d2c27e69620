package rnn

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
)

// LSTM-1 has output_sequence (Y is computed whenever requested), 14 added
// layout, 22 bfloat16; the cell is the same throughout.
func init() {
	op.Register("LSTM", []int{1, 7, 14, 22}, buildLSTM)
	shapes.Register("", "LSTM", shapes.RNN)
}

func buildLSTM(n *op.Node) (any, error) {
	s, err := parseSpec(n, "LSTM", 4, []string{"Sigmoid", "Tanh", "Tanh"})
	if err != nil {
		return nil, err
	}
	return kernel(n, s, lstmCell, 3), nil
}

// lstmCell, gate order i, o, f, c; peepholes P in order i, o, f:
//
//	it = f(Xt·Wiᵀ + Ht-1·Riᵀ + Pi ⊙ Ct-1 + Wbi + Rbi)
//	ft = f(Xt·Wfᵀ + Ht-1·Rfᵀ + Pf ⊙ Ct-1 + Wbf + Rbf)   (1 - it with input_forget)
//	ct = g(Xt·Wcᵀ + Ht-1·Rcᵀ + Wbc + Rbc)
//	Ct = ft ⊙ Ct-1 + it ⊙ ct
//	ot = f(Xt·Woᵀ + Ht-1·Roᵀ + Po ⊙ Ct + Wbo + Rbo)
//	Ht = ot ⊙ h(Ct)
func lstmCell(d *dirData, x, h, c, g []float64) {
	H := d.H
	f, gf, hf := d.acts[0], d.acts[1], d.acts[2]
	for j := range g {
		g[j] = d.wb[j] + d.rb[j]
	}
	matvec(g, d.w, x, 0, 4*H, d.I)
	matvec(g, d.r, h, 0, 4*H, H)
	pi, po, pf := d.p[:H], d.p[H:2*H], d.p[2*H:]
	for j := 0; j < H; j++ {
		it := f(d.clipped(g[j] + pi[j]*c[j]))
		ft := f(d.clipped(g[2*H+j] + pf[j]*c[j]))
		if d.s.inputForget {
			ft = 1 - it
		}
		ct := gf(d.clipped(g[3*H+j]))
		c[j] = ft*c[j] + it*ct
		ot := f(d.clipped(g[H+j] + po[j]*c[j]))
		h[j] = ot * hf(c[j])
	}
}
