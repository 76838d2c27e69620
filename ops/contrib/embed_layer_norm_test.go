package contrib_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// randIDs is an int32 tensor of the shape with values in [0, n).
func randIDs(r *rand.Rand, n int, shape ...int) *tensor.Tensor {
	c := 1
	for _, d := range shape {
		c *= d
	}
	v := make([]int32, c)
	for i := range v {
		v[i] = int32(r.IntN(n))
	}
	return tensor.Of(shape, v)
}

// embedLNRef is EmbedLayerNormalization in float64 from its definition.
func embedLNRef(ids, seg, word, pos, segEmb, gamma, beta, mask, posIDs *tensor.Tensor, eps float64) (y, sum []float64, mi []int32) {
	b, s := ids.Shape()[0], ids.Shape()[1]
	h := word.Shape()[1]
	w, p, g, bt := f64(word), f64(pos), f64(gamma), f64(beta)
	var se []float64
	if segEmb != nil && seg != nil {
		se = f64(segEmb)
	}
	y, sum, mi = make([]float64, b*s*h), make([]float64, b*s*h), make([]int32, b)
	for t := 0; t < b*s; t++ {
		pi := t % s
		if posIDs != nil {
			pi = int(posIDs.I32()[t%posIDs.Len()])
		}
		row := sum[t*h : (t+1)*h]
		for j := range row {
			row[j] = w[int(ids.I32()[t])*h+j] + p[pi*h+j]
			if se != nil {
				row[j] += se[int(seg.I32()[t])*h+j]
			}
		}
		mean, vr := 0.0, 0.0
		for _, v := range row {
			mean += v
		}
		mean /= float64(h)
		for _, v := range row {
			vr += (v - mean) * (v - mean)
		}
		vr /= float64(h)
		for j, v := range row {
			y[t*h+j] = (v-mean)/math.Sqrt(vr+eps)*g[j] + bt[j]
		}
	}
	if mask != nil {
		for i, v := range mask.I32() {
			if v == 1 {
				mi[i/s]++
			}
		}
	}
	return y, sum, mi
}

func TestEmbedLayerNormalization(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 16; i++ {
		b, s, h := 1+r.IntN(3), 1+r.IntN(6), 1+r.IntN(20)
		v, np, ns := 2+r.IntN(10), s+r.IntN(3), 1+r.IntN(3)
		ids, word := randIDs(r, v, b, s), randT(r, 1, 0, v, h)
		pos, gamma, beta := randT(r, 1, 0, np, h), randT(r, 1, 1, h), randT(r, 1, 0, h)
		var seg, segEmb, mask, posIDs *tensor.Tensor
		if i%2 == 0 {
			seg, segEmb = randIDs(r, ns, b, s), randT(r, 1, 0, ns, h)
		}
		if i%4 == 3 {
			segEmb = randT(r, 1, 0, ns, h) // ignored without segment_ids
		}
		if i%3 != 0 {
			mask = randIDs(r, 3, b, s) // 2s are not counted
		}
		switch i % 5 {
		case 1:
			posIDs = randIDs(r, np, b, s)
		case 2:
			posIDs = randIDs(r, np, 1, s)
		}
		eps := 1e-12
		attrs := optest.A{}
		if i%4 == 1 {
			eps = 1e-3
			attrs["epsilon"] = float32(eps)
		}
		in := []*tensor.Tensor{ids, seg, word, pos, segEmb, gamma, beta, mask, posIDs}
		outs := optest.MustRun(t, optest.Call{Domain: contrib.Domain, Op: "EmbedLayerNormalization", Opset: 1, Attrs: attrs, NOut: 3, In: in})
		wy, ws, wm := embedLNRef(ids, seg, word, pos, segEmb, gamma, beta, mask, posIDs, eps)
		if got := outs[0].Shape(); len(got) != 3 || got[0] != b || got[1] != s || got[2] != h {
			t.Fatalf("case %d: output shape %v", i, got)
		}
		for j, g := range f64(outs[0]) {
			if math.Abs(g-wy[j]) > 1e-4+1e-4*math.Abs(wy[j]) {
				t.Fatalf("case %d: output[%d] = %g, want %g", i, j, g, wy[j])
			}
		}
		for j, g := range f64(outs[2]) {
			if math.Abs(g-ws[j]) > 1e-5 {
				t.Fatalf("case %d: embedding_sum[%d] = %g, want %g", i, j, g, ws[j])
			}
		}
		for j, g := range outs[1].I32() {
			if g != wm[j] {
				t.Fatalf("case %d: mask_index[%d] = %d, want %d", i, j, g, wm[j])
			}
		}
	}
}

func TestEmbedLayerNormalizationErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	word, pos, gamma, beta := randT(r, 1, 0, 4, 3), randT(r, 1, 0, 2, 3), randT(r, 1, 1, 3), randT(r, 1, 0, 3)
	ids := func(v ...int32) *tensor.Tensor { return tensor.Of([]int{1, len(v)}, v) }
	for _, c := range []struct {
		in   []*tensor.Tensor
		want string
	}{
		{[]*tensor.Tensor{ids(0, 4), nil, word, pos, nil, gamma, beta}, "input_ids[0, 1] = 4"},
		{[]*tensor.Tensor{ids(-1), nil, word, pos, nil, gamma, beta}, "input_ids[0, 0] = -1"},
		{[]*tensor.Tensor{ids(0, 1, 2), nil, word, pos, nil, gamma, beta}, "position (sequence index)[0, 2] = 2"},
		{[]*tensor.Tensor{ids(0, 1), ids(0, 2), word, pos, randT(r, 1, 0, 2, 3), gamma, beta}, "segment_ids[0, 1] = 2"},
		{[]*tensor.Tensor{ids(0, 1), nil, word, pos, nil, gamma, beta, nil, ids(1, -1)}, "position_ids[0, 1] = -1"},
		{[]*tensor.Tensor{ids(0, 1), nil, word, pos, nil, gamma, beta, nil, ids(1)}, "position_ids of shape"},
		{[]*tensor.Tensor{ids(0, 1), nil, word, pos, nil, randT(r, 1, 0, 4), beta}, "gamma"},
		{[]*tensor.Tensor{ids(0, 1), ids(0, 1), word, pos, nil, gamma, beta}, "without segment_embedding"},
	} {
		_, err := optest.Run(optest.Call{Domain: contrib.Domain, Op: "EmbedLayerNormalization", Opset: 1, NOut: 2, In: c.in})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got error %v, want one containing %q", err, c.want)
		}
	}
}
