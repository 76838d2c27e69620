package contrib

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Attention (com.microsoft), the BERT/GPT-2 attention with its input
// projection: q, k, v = input·weights + bias split at qkv_hidden_sizes
// (three equal parts by default), N heads each.
//
//   - input (B, S, H_in), weights (H_in, Dq + Dk + Dv), bias (Dq + Dk + Dv,
//     optional); past (2, B, N, P, h) holds the cached keys and values (then
//     q, k and v must share one head size) and present (2, B, N, P + S, h)
//     is past followed by the new ones.
//   - mask_index (int32): (B) end positions, (2B) ends then starts, (B, T)
//     or (B, S, T) 0/1 masks, or (B, 1, M, M) with M ≥ T (rows P..P+S,
//     Megatron GPT-2; onnxruntime's CPU kernel refuses it); unidirectional
//     leaves out key j > P + i. Keys a mask excludes get mask_filter_value
//     (−10000) added (see ortMask). attention_bias is (B or 1, N or 1, S, T).
//   - scale 0 means 1/√(Dq/N).
//
// do_rotary and past_present_share_buffer (with past_sequence_length) are
// declined, as onnxruntime's CPU kernel declines rotary; the (3B + 2) mask
// index of the CUDA kernel too.
func init() {
	op.Default.Register(Domain, "Attention", []int{1}, buildContribAttention)
	shapes.Register(Domain, "Attention", inferContribAttention)
}

type bertAttrs struct {
	heads   int
	sizes   []int64
	causal  bool
	filter  float32
	scale   float32
	nOut    int
	present bool
}

func buildContribAttention(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	p := &bertAttrs{
		heads:  int(a.Int("num_heads", 0)),
		sizes:  a.Ints("qkv_hidden_sizes"),
		causal: a.Int("unidirectional", 0) != 0,
		filter: a.Float("mask_filter_value", -10000),
		scale:  a.Float("scale", 0),
		nOut:   len(n.Outputs),
	}
	rotary := a.Int("do_rotary", 0) != 0
	a.Int("rotary_embedding_dim", 0)
	share := a.Int("past_present_share_buffer", 0) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	if p.heads <= 0 {
		return nil, n.Errorf("num_heads must be positive, got %d", p.heads)
	}
	if p.sizes != nil && len(p.sizes) != 3 {
		return nil, n.Errorf("qkv_hidden_sizes must have 3 values, got %v", p.sizes)
	}
	for _, s := range p.sizes {
		if s <= 0 || int(s)%p.heads != 0 {
			return nil, n.Errorf("qkv_hidden_sizes %v must be positive multiples of num_heads %d", p.sizes, p.heads)
		}
	}
	if rotary {
		return nil, n.Errorf("do_rotary is not supported (onnxruntime's CPU kernel declines it too: use MultiHeadAttention with RotaryEmbedding)")
	}
	if share || n.HasInput(6) {
		return nil, n.Errorf("past_present_share_buffer and past_sequence_length are not supported")
	}
	p.present = n.HasOutput(1)
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return runContribAttention(ctx, p, ins)
	}), nil
}

func runContribAttention(ctx *op.Context, p *bertAttrs, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
	const name = "Attention"
	x, w, bias, mask, past, ab := in(ins, 0), in(ins, 1), in(ins, 2), in(ins, 3), in(ins, 4), in(ins, 5)
	if x == nil || w == nil {
		return nil, op.Errorf("%s needs input and weights", name)
	}
	if err := checkAttnFloat(name, x, w, bias, past, ab); err != nil {
		return nil, err
	}
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 3 || len(ws) != 2 || ws[0] != xs[2] {
		return nil, op.Errorf("%s: input %v and weights %v must be (B, S, H_in) and (H_in, D)", name, xs, ws)
	}
	batch, s, hin, dtot := xs[0], xs[1], xs[2], ws[1]
	N := p.heads
	dq, dk, dv := dtot/3, dtot/3, dtot/3
	if p.sizes != nil {
		dq, dk, dv = int(p.sizes[0]), int(p.sizes[1]), int(p.sizes[2])
	}
	if dq+dk+dv != dtot || dq != dk || dq%N != 0 || dv%N != 0 {
		return nil, op.Errorf("%s: weights width %d does not split into q, k, v of %d, %d, %d (q and k equal, multiples of %d heads)", name, dtot, dq, dk, dv, N)
	}
	if err := checkVector(name, "bias", bias, dtot); err != nil {
		return nil, err
	}
	h, hv := dq/N, dv/N
	pastLen := 0
	if past != nil {
		ps := past.Shape()
		if h != hv || len(ps) != 5 || ps[0] != 2 || ps[1] != batch || ps[2] != N || ps[4] != h {
			return nil, op.Errorf("%s: past %v must be (2, %d, %d, P, %d), with q, k and v of one head size", name, ps, batch, N, h)
		}
		pastLen = ps[3]
	}
	total := pastLen + s
	om, err := makeORTMask(name, mask, p.filter, p.causal, batch, s, total, pastLen, true)
	if err != nil {
		return nil, err
	}
	bs, err := makeAttnBias(name, ab, batch, N, s, total)
	if err != nil {
		return nil, err
	}

	// The projection, one GEMM for q, k and v: (B·S, H_in)·(H_in, D) + bias.
	qkv := make([]float32, batch*s*dtot)
	if bias != nil {
		bd := bias.F32()
		for r := 0; r < batch*s; r++ {
			copy(qkv[r*dtot:], bd)
		}
	}
	beta := float32(0)
	if bias != nil {
		beta = 1
	}
	kernels.Sgemm(false, false, batch*s, dtot, hin, 1, x.F32(), hin, w.F32(), dtot, beta, qkv, dtot)

	view := func(off, hh int) headView {
		return headView{off: off, sb: s * dtot, sn: hh, ss: dtot}
	}
	qd := make([]float32, batch*N*s*h)
	gather(qd, qkv, view(0, h), batch, N, s, h, s, 0, nil)
	outs := make([]*tensor.Tensor, p.nOut)
	var kd, vd []float32
	if p.present && len(outs) > 1 && h == hv {
		t, d := newF32(ctx, x.DType(), 2, batch, N, total, h)
		outs[1] = t
		kd, vd = d[:len(d)/2], d[len(d)/2:]
	} else {
		kd, vd = make([]float32, batch*N*total*h), make([]float32, batch*N*total*hv)
	}
	if past != nil {
		pd := past.F32()
		copyPast(kd, pd[:len(pd)/2], batch, N, pastLen, h, total)
		copyPast(vd, pd[len(pd)/2:], batch, N, pastLen, h, total)
	}
	gather(kd, qkv, view(dq, h), batch, N, s, h, total, pastLen, nil)
	gather(vd, qkv, view(dq+dk, hv), batch, N, s, hv, total, pastLen, nil)
	if p.present && len(outs) > 1 && outs[1] == nil {
		return nil, op.Errorf("%s: present needs q, k and v of one head size (%d ≠ %d)", name, h, hv)
	}

	y, yd := newF32(ctx, x.DType(), batch, s, dv)
	outs[0] = y
	var row func(b, n, i int, sc []float32)
	if om.active() || bs != nil {
		row = func(b, n, i int, sc []float32) {
			om.apply(b, i, sc)
			if bs != nil {
				for j, v := range bs.row(b, n, i) {
					sc[j] += v
				}
			}
		}
	}
	if err := attendAll(ctx, yd, qd, kd, vd, batch, N, N, s, total, h, hv, defaultScale(p.scale, h), 0, false, row, nil); err != nil {
		return nil, err
	}
	return outs, nil
}

// inferContribAttention: output (B, S, Dv); present (2, B, N, P + S, h).
func inferContribAttention(c *shapes.Ctx) {
	setElems(c)
	for i := 0; i < c.NumOut(); i++ {
		c.Set(i, nil, "")
	}
	x, w := c.Shape(0), c.Shape(1)
	heads := c.AttrInt("num_heads", 0)
	if x == nil || w == nil || len(x) != 3 || len(w) != 2 || heads <= 0 {
		return
	}
	dv := shapes.DimDiv(w[1], shapes.Known(3))
	if sizes, ok := c.AttrInts("qkv_hidden_sizes"); ok && len(sizes) == 3 {
		dv = shapes.Known(sizes[2])
	}
	c.Set(0, []graph.Dim{x[0], x[1], dv}, "")
	if c.NumOut() < 2 {
		return
	}
	t := x[1]
	if c.Has(4) {
		pk := c.Shape(4)
		if pk == nil || len(pk) != 5 {
			return
		}
		t = shapes.DimAdd(pk[3], x[1])
	}
	c.Set(1, []graph.Dim{shapes.Known(2), x[0], shapes.Known(heads), t, shapes.DimDiv(dv, shapes.Known(heads))}, "")
}
