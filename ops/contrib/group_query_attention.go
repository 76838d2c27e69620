package contrib

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
	"slices"
)

// GroupQueryAttention (com.microsoft): causal attention of N query heads
// over Nkv ≤ N key/value heads (query head n reads kv head n/(N/Nkv)), with
// a key/value cache, as decoder LLMs export it.
//
//   - query (B, S, N·H) with key and value (B, S, Nkv·H), or packed (B, S,
//     (N + 2·Nkv)·H) with neither; past_key/past_value (B, Nkv, P, H), a
//     buffer of which each batch uses its first past_b rows.
//   - seqlens_k (int32, (B)) is each batch's total length minus 1 and
//     total_sequence_length (int32 scalar) the longest; present_key and
//     present_value are (B, Nkv, max(P, total_sequence_length), H): batch b's
//     past rows, then its S new ones at past_b = seqlens_k[b] + 1 − S, then
//     zeros. When S equals total_sequence_length (the first prompt) past_b is
//     0 and keys at or past seqlens_k[b] + 1 are padding.
//   - Query s of batch b sits at position past_b + s and sees the keys at or
//     before it, and, with local_window_size w ≥ 0, not before position − w.
//     Scores are scale·q·k (scale 1/√H by default), soft-capped when softcap
//     > 0, plus attention_bias ((B or 1, N or 1, S, total_sequence_length));
//     smooth_softmax adds a virtual zero score.
//   - do_rotary rotates q and the new k (RotaryEmbedding with cos_cache and
//     sin_cache of width rotary_dim/2, rotary_interleaved) at their positions,
//     or at position_ids ((B, S) int64) when given.
//
// head_sink and the qk output are declined.
func init() {
	op.Default.Register(Domain, "GroupQueryAttention", []int{1}, buildGQA)
	shapes.Register(Domain, "GroupQueryAttention", inferGQA)
}

type gqaAttrs struct {
	heads, kvHeads int
	scale, softcap float32
	window         int
	rotary, inter  bool
	smooth         bool
	nOut           int
}

func buildGQA(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	p := &gqaAttrs{
		heads:   int(a.Int("num_heads", 0)),
		kvHeads: int(a.Int("kv_num_heads", 0)),
		scale:   a.Float("scale", 0),
		softcap: a.Float("softcap", 0),
		window:  int(a.Int("local_window_size", -1)),
		rotary:  a.Int("do_rotary", 0) != 0,
		inter:   a.Int("rotary_interleaved", 0) != 0,
		smooth:  a.Int("smooth_softmax", 0) != 0,
		nOut:    len(n.Outputs),
	}
	qkOut := a.Int("qk_output", 0)
	if a.Err != nil {
		return nil, a.Err
	}
	if p.heads <= 0 || p.kvHeads <= 0 || p.heads%p.kvHeads != 0 {
		return nil, n.Errorf("num_heads (%d) must be a positive multiple of kv_num_heads (%d)", p.heads, p.kvHeads)
	}
	if p.softcap < 0 {
		return nil, n.Errorf("softcap must be ≥ 0, got %g", p.softcap)
	}
	if qkOut != 0 || n.HasOutput(3) {
		return nil, n.Errorf("the qk output is not supported")
	}
	if n.HasInput(11) {
		return nil, n.Errorf("head_sink is not supported")
	}
	if n.HasInput(3) != n.HasInput(4) {
		return nil, n.Errorf("past_key and past_value must be given together")
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return runGQA(ctx, p, ins)
	}), nil
}

func runGQA(ctx *op.Context, p *gqaAttrs, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
	const name = "GroupQueryAttention"
	q, k, v, pastK, pastV, seqlens, totalT := in(ins, 0), in(ins, 1), in(ins, 2), in(ins, 3), in(ins, 4), in(ins, 5), in(ins, 6)
	cos, sin, posIDs, ab := in(ins, 7), in(ins, 8), in(ins, 9), in(ins, 10)
	if q == nil || seqlens == nil || totalT == nil {
		return nil, op.Errorf("%s needs query, seqlens_k and total_sequence_length", name)
	}
	if err := checkAttnFloat(name, q, k, v, pastK, pastV, cos, sin, ab); err != nil {
		return nil, err
	}
	N, Nkv := p.heads, p.kvHeads
	qs := q.Shape()
	if len(qs) != 3 {
		return nil, op.Errorf("%s: query must be 3-D, got %v", name, qs)
	}
	batch, s := qs[0], qs[1]
	var h int
	var qv, kv, vv headView
	qd, kd, vd := q.F32(), q.F32(), q.F32()
	if k == nil {
		if v != nil || qs[2]%(N+2*Nkv) != 0 {
			return nil, op.Errorf("%s: without key, query must be packed (B, S, (%d + 2·%d)·H), got %v", name, N, Nkv, qs)
		}
		h = qs[2] / (N + 2*Nkv)
		row := qs[2]
		qv = headView{sb: s * row, sn: h, ss: row}
		kv, vv = qv, qv
		kv.off, vv.off = N*h, (N+Nkv)*h
	} else {
		if v == nil || qs[2]%N != 0 {
			return nil, op.Errorf("%s: key needs a value, and query hidden size %d must split into %d heads", name, qs[2], N)
		}
		h = qs[2] / N
		want := []int{batch, s, Nkv * h}
		if !slices.Equal(k.Shape(), want) || !slices.Equal(v.Shape(), want) {
			return nil, op.Errorf("%s: key %v and value %v must be %v", name, k.Shape(), v.Shape(), want)
		}
		qv, kv, vv = bsnh(s, N, h), bsnh(s, Nkv, h), bsnh(s, Nkv, h)
		kd, vd = k.F32(), v.F32()
	}
	pbuf := 0
	if pastK != nil {
		want := []int{batch, Nkv, pastK.Shape()[min(2, pastK.Rank()-1)], h}
		if !slices.Equal(pastK.Shape(), want) || !slices.Equal(pastV.Shape(), want) {
			return nil, op.Errorf("%s: past_key %v and past_value %v must be (%d, %d, P, %d)", name, pastK.Shape(), pastV.Shape(), batch, Nkv, h)
		}
		pbuf = want[2]
	}
	if seqlens.DType() != tensor.Int32 || seqlens.Len() != batch || totalT.DType() != tensor.Int32 || totalT.Len() != 1 {
		return nil, op.Errorf("%s: seqlens_k must be int32 (%d) and total_sequence_length an int32 scalar, got %s%v and %s%v",
			name, batch, seqlens.DType(), seqlens.Shape(), totalT.DType(), totalT.Shape())
	}
	total := int(totalT.I32()[0])
	firstPrompt := s == total
	tp := max(pbuf, total)
	lens := seqlens.I32()
	pastOf := make([]int, batch)  // rows of the cache each batch keeps
	totalOf := make([]int, batch) // keys each batch attends over
	for b := range batch {
		t := int(lens[b]) + 1
		totalOf[b] = t
		if !firstPrompt {
			pastOf[b] = t - s
		}
		if t < 1 || t > total || pastOf[b] < 0 || pastOf[b] > pbuf || pastOf[b]+s > tp {
			return nil, op.Errorf("%s: seqlens_k[%d] = %d does not fit %d new tokens, a past of %d and total_sequence_length %d", name, b, lens[b], s, pbuf, total)
		}
	}
	bs, err := makeAttnBias(name, ab, batch, N, s, total)
	if err != nil {
		return nil, err
	}

	// Queries and new keys as (B, heads, S, H), rotated when asked.
	qb := make([]float32, batch*N*s*h)
	gather(qb, qd, qv, batch, N, s, h, s, 0, nil)
	kNew := make([]float32, batch*Nkv*s*h)
	gather(kNew, kd, kv, batch, Nkv, s, h, s, 0, nil)
	if p.rotary {
		if cos == nil || sin == nil {
			return nil, op.Errorf("%s: do_rotary needs cos_cache and sin_cache", name)
		}
		cs := cos.Shape()
		if len(cs) != 2 || !slices.Equal(sin.Shape(), cs) || 2*cs[1] > h || cs[1] == 0 {
			return nil, op.Errorf("%s: cos_cache %v and sin_cache %v must be (max_position, rotary_dim/2) with rotary_dim ≤ %d", name, cs, sin.Shape(), h)
		}
		pos := func(b, i int) int { return pastOf[b] + i }
		if posIDs != nil {
			if pos, err = positions(name, posIDs, batch, s, cs[0]); err != nil {
				return nil, err
			}
		} else {
			for b := range batch {
				if pastOf[b]+s > cs[0] {
					return nil, op.Errorf("%s: position %d is outside the cache of %d positions", name, pastOf[b]+s-1, cs[0])
				}
			}
		}
		rotateHeads(qb, bnsh(s, N, h), batch, N, s, 2*cs[1], p.inter, cos.F32(), sin.F32(), cs[1], pos)
		rotateHeads(kNew, bnsh(s, Nkv, h), batch, Nkv, s, 2*cs[1], p.inter, cos.F32(), sin.F32(), cs[1], pos)
	}

	outs := make([]*tensor.Tensor, p.nOut)
	presK := presentBuf(ctx, q.DType(), true, outs, 1, batch, Nkv, tp, h)
	presV := presentBuf(ctx, q.DType(), true, outs, 2, batch, Nkv, tp, h)
	vNew := make([]float32, batch*Nkv*s*h)
	gather(vNew, vd, vv, batch, Nkv, s, h, s, 0, nil)
	var pk, pv []float32
	if pastK != nil {
		pk, pv = pastK.F32(), pastV.F32()
	}
	fillCache(presK, pk, kNew, pastOf, Nkv, pbuf, s, tp, h)
	fillCache(presV, pv, vNew, pastOf, Nkv, pbuf, s, tp, h)

	y, yd := newF32(ctx, q.DType(), batch, s, N*h)
	outs[0] = y
	w := p.window
	row := func(b, n, i int, sc []float32) {
		pos := pastOf[b] + i
		for j := range sc {
			if j > pos || (w >= 0 && j < pos-w) {
				sc[j] = negInf32
			} else if bs != nil {
				sc[j] += bs.row(b, n, i)[j]
			}
		}
	}
	err = attendAll(ctx, yd, qb, presK, presV, batch, N, Nkv, s, tp, h, h, defaultScale(p.scale, h), float64(p.softcap), p.smooth, row,
		func(b int) int { return totalOf[b] })
	if err != nil {
		return nil, err
	}
	return outs, nil
}

// fillCache writes GroupQueryAttention's present (B, Nkv, tp, H): per batch
// b its first pastOf[b] rows of past (B, Nkv, pbuf, H; nil when none), then
// the s new rows of cur (B, Nkv, s, H), then zeros.
func fillCache(dst, past, cur []float32, pastOf []int, heads, pbuf, s, tp, h int) {
	clear(dst)
	for b, pb := range pastOf {
		for n := range heads {
			bn := b*heads + n
			d := dst[bn*tp*h:][:tp*h]
			if past != nil {
				copy(d, past[bn*pbuf*h:][:pb*h])
			}
			copy(d[pb*h:], cur[bn*s*h:][:s*h])
		}
	}
}

// inferGQA: output (B, S, N·H); the presents' length depends on
// total_sequence_length's value, so it is left unknown.
func inferGQA(c *shapes.Ctx) {
	setElems(c)
	for i := 0; i < c.NumOut(); i++ {
		c.Set(i, nil, "the present length is total_sequence_length's value")
	}
	q := c.Shape(0)
	heads, kvHeads := c.AttrInt("num_heads", 0), c.AttrInt("kv_num_heads", 0)
	if q == nil || len(q) != 3 || heads <= 0 || kvHeads <= 0 {
		return
	}
	hidden := q[2]
	if !c.Has(1) {
		hidden = shapes.DimMul(shapes.DimDiv(q[2], shapes.Known(heads+2*kvHeads)), shapes.Known(heads))
	}
	c.Set(0, []graph.Dim{q[0], q[1], hidden}, "")
}
