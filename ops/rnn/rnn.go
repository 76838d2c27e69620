package rnn

import (
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
)

// RNN-1 had the output_sequence attribute (Y is computed whenever it is
// requested, so it needs no handling), 14 added layout, 22 bfloat16.
func init() {
	op.Register("RNN", []int{1, 7, 14, 22}, buildRNN)
	shapes.Register("", "RNN", shapes.RNN)
}

func buildRNN(n *op.Node) (any, error) {
	s, err := parseSpec(n, "RNN", 1, []string{"Tanh"})
	if err != nil {
		return nil, err
	}
	return kernel(n, s, rnnCell, 2), nil
}

// rnnCell: Ht = f(Xt·Wᵀ + Ht-1·Rᵀ + Wb + Rb).
func rnnCell(d *dirData, x, h, _, g []float64) {
	H := d.H
	for j := range g {
		g[j] = d.wb[j] + d.rb[j]
	}
	matvec(g, d.w, x, 0, H, d.I)
	matvec(g, d.r, h, 0, H, H)
	f := d.acts[0]
	for j := 0; j < H; j++ {
		h[j] = f(d.clipped(g[j]))
	}
}
