package contrib

import (
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// MultiHeadAttention (com.microsoft): attention of already projected
// queries, keys and values, N heads.
//
//   - query (B, S, D), with key (B, L, D) and value (B, L, Dv); or key and
//     value already split into heads, (B, N, L, H) and (B, N, L, Hv) (a
//     cross-attention cache: no bias nor past then); or packed KV, key (B,
//     L, N, 2, H) with no value; or packed QKV, query (B, S, N, 3, H) with
//     neither key nor value (onnxruntime's CPU kernel implements neither
//     packed form).
//   - bias (D + D + Dv) is added to q, k and v; past_key/past_value (B, N,
//     P, H) come before the new keys (T = P + L); key_padding_mask (int32)
//     is (B) key lengths, (2B) ends and starts, (B, T) or (B, S, T) 0/1;
//     attention_bias is (B or 1, N or 1, S, T); unidirectional leaves out
//     key j > P + i. Keys a mask excludes get mask_filter_value (−10000)
//     added (see ortMask).
//   - outputs: (B, S, Dv), present_key (B, N, T, H), present_value (B, N,
//     T, Hv). The qk output, past_sequence_length and cache_indirection
//     (DecoderMaskedMultiHeadAttention's buffers) are declined.
func init() {
	op.Default.Register(Domain, "MultiHeadAttention", []int{1}, buildMHA)
	shapes.Register(Domain, "MultiHeadAttention", inferMHA)
}

type mhaAttrs struct {
	heads   int
	filter  float32
	scale   float32
	causal  bool
	nOut    int
	present [2]bool
}

func buildMHA(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	p := &mhaAttrs{
		heads:  int(a.Int("num_heads", 0)),
		filter: a.Float("mask_filter_value", -10000),
		scale:  a.Float("scale", 0),
		causal: a.Int("unidirectional", 0) != 0,
		nOut:   len(n.Outputs),
	}
	if a.Err != nil {
		return nil, a.Err
	}
	if p.heads <= 0 {
		return nil, n.Errorf("num_heads must be positive, got %d", p.heads)
	}
	if n.HasOutput(3) {
		return nil, n.Errorf("the qk output is not supported")
	}
	if n.HasInput(8) || n.HasInput(9) {
		return nil, n.Errorf("past_sequence_length and cache_indirection (shared KV buffers, beam search) are not supported")
	}
	if n.HasInput(6) != n.HasInput(7) {
		return nil, n.Errorf("past_key and past_value must be given together")
	}
	p.present = [2]bool{n.HasOutput(1), n.HasOutput(2)}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		return runMHA(ctx, p, ins)
	}), nil
}

// mhaInputs are MultiHeadAttention's q, k and v as head views.
type mhaInputs struct {
	batch, s, l, d, dv, h, hv int
	q, k, v                   headView
	qs, ks, vs                []float32
	kvHeads                   bool // key and value given as (B, N, L, H)
}

func mhaLayout(name string, heads int, q, k, v *tensor.Tensor) (*mhaInputs, error) {
	qs := q.Shape()
	if len(qs) != 3 && len(qs) != 5 {
		return nil, op.Errorf("%s: query must be (B, S, D) or packed (B, S, N, 3, H), got %v", name, qs)
	}
	m := &mhaInputs{batch: qs[0], s: qs[1], qs: q.F32()}
	switch {
	case len(qs) == 5:
		if k != nil || v != nil {
			return nil, op.Errorf("%s: a packed query (B, S, N, 3, H) takes no key or value", name)
		}
		if qs[2] != heads || qs[3] != 3 {
			return nil, op.Errorf("%s: packed query must be (B, S, %d, 3, H), got %v", name, heads, qs)
		}
		m.h, m.hv, m.l = qs[4], qs[4], qs[1]
		m.q = headView{sb: m.s * heads * 3 * m.h, sn: 3 * m.h, ss: heads * 3 * m.h}
		m.k, m.v = m.q, m.q
		m.k.off, m.v.off = m.h, 2*m.h
		m.ks, m.vs = m.qs, m.qs
	case len(qs) == 3:
		if k == nil {
			return nil, op.Errorf("%s: a 3-D query needs a key", name)
		}
		if qs[2]%heads != 0 {
			return nil, op.Errorf("%s: query hidden size %d is not a multiple of %d heads", name, qs[2], heads)
		}
		m.h = qs[2] / heads
		m.q = bsnh(m.s, heads, m.h)
		ks := k.Shape()
		m.ks = k.F32()
		switch len(ks) {
		case 5:
			if v != nil {
				return nil, op.Errorf("%s: a packed key (B, L, N, 2, H) takes no value", name)
			}
			if ks[0] != m.batch || ks[2] != heads || ks[3] != 2 || ks[4] != m.h {
				return nil, op.Errorf("%s: packed key must be (%d, L, %d, 2, %d), got %v", name, m.batch, heads, m.h, ks)
			}
			m.l, m.hv = ks[1], m.h
			m.k = headView{sb: m.l * heads * 2 * m.h, sn: 2 * m.h, ss: heads * 2 * m.h}
			m.v, m.vs = m.k, m.ks
			m.v.off = m.h
		case 3, 4:
			if v == nil || v.Rank() != len(ks) {
				return nil, op.Errorf("%s: key %v needs a value of its rank", name, ks)
			}
			vsh := v.Shape()
			m.vs = v.F32()
			if len(ks) == 3 {
				if ks[0] != m.batch || ks[2] != qs[2] || vsh[0] != m.batch || vsh[1] != ks[1] || vsh[2]%heads != 0 {
					return nil, op.Errorf("%s: key %v and value %v do not fit query %v and %d heads", name, ks, vsh, qs, heads)
				}
				m.l, m.hv = ks[1], vsh[2]/heads
				m.k, m.v = bsnh(m.l, heads, m.h), bsnh(m.l, heads, m.hv)
			} else {
				if ks[0] != m.batch || ks[1] != heads || ks[3] != m.h || vsh[0] != m.batch || vsh[1] != heads || vsh[2] != ks[2] {
					return nil, op.Errorf("%s: key %v and value %v do not fit query %v and %d heads", name, ks, vsh, qs, heads)
				}
				m.l, m.hv, m.kvHeads = ks[2], vsh[3], true
				m.k, m.v = bnsh(m.l, heads, m.h), bnsh(m.l, heads, m.hv)
			}
		default:
			return nil, op.Errorf("%s: key must be 3-D, 4-D or 5-D, got %v", name, ks)
		}
	default:
		return nil, op.Errorf("%s: query must be 3-D or 5-D, got %v", name, qs)
	}
	m.d, m.dv = heads*m.h, heads*m.hv
	return m, nil
}

func runMHA(ctx *op.Context, p *mhaAttrs, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
	const name = "MultiHeadAttention"
	q, k, v, bias, mask, ab, pastK, pastV := in(ins, 0), in(ins, 1), in(ins, 2), in(ins, 3), in(ins, 4), in(ins, 5), in(ins, 6), in(ins, 7)
	if q == nil {
		return nil, op.Errorf("%s needs a query", name)
	}
	if err := checkAttnFloat(name, q, k, v, bias, ab, pastK, pastV); err != nil {
		return nil, err
	}
	m, err := mhaLayout(name, p.heads, q, k, v)
	if err != nil {
		return nil, err
	}
	N := p.heads
	var qb, kb, vb []float32
	if bias != nil {
		if m.kvHeads {
			return nil, op.Errorf("%s: bias cannot be added to key and value given as (B, N, L, H)", name)
		}
		if err := checkVector(name, "bias", bias, 2*m.d+m.dv); err != nil {
			return nil, err
		}
		bd := bias.F32()
		qb, kb, vb = bd[:m.d], bd[m.d:2*m.d], bd[2*m.d:]
	}
	past := 0
	if pastK != nil {
		if m.kvHeads {
			return nil, op.Errorf("%s: past_key and past_value cannot extend key and value given as (B, N, L, H)", name)
		}
		ps, pv := pastK.Shape(), pastV.Shape()
		if len(ps) != 4 || len(pv) != 4 || ps[0] != m.batch || ps[1] != N || ps[3] != m.h ||
			pv[0] != m.batch || pv[1] != N || pv[2] != ps[2] || pv[3] != m.hv {
			return nil, op.Errorf("%s: past_key %v / past_value %v do not match (%d, %d, P, %d/%d)", name, ps, pv, m.batch, N, m.h, m.hv)
		}
		past = ps[2]
	}
	total := past + m.l
	if mask != nil && mask.Rank() == 2 && mask.Shape()[1] == m.l && m.l != total {
		return nil, op.Errorf("%s: a (B, L) key_padding_mask is read as (B, T); with a past (T = %d ≠ L = %d) it must cover all keys", name, total, m.l)
	}
	om, err := makeORTMask(name, mask, p.filter, p.causal, m.batch, m.s, total, past, false)
	if err != nil {
		return nil, err
	}
	bs, err := makeAttnBias(name, ab, m.batch, N, m.s, total)
	if err != nil {
		return nil, err
	}

	qd := make([]float32, m.batch*N*m.s*m.h)
	gather(qd, m.qs, m.q, m.batch, N, m.s, m.h, m.s, 0, qb)
	outs := make([]*tensor.Tensor, p.nOut)
	kd, vd := presentBuf(ctx, q.DType(), p.present[0], outs, 1, m.batch, N, total, m.h), presentBuf(ctx, q.DType(), p.present[1], outs, 2, m.batch, N, total, m.hv)
	if pastK != nil {
		copyPast(kd, pastK.F32(), m.batch, N, past, m.h, total)
		copyPast(vd, pastV.F32(), m.batch, N, past, m.hv, total)
	}
	gather(kd, m.ks, m.k, m.batch, N, m.l, m.h, total, past, kb)
	gather(vd, m.vs, m.v, m.batch, N, m.l, m.hv, total, past, vb)

	y, yd := newF32(ctx, q.DType(), m.batch, m.s, m.dv)
	outs[0] = y
	var row func(b, n, i int, sc []float32)
	if om.active() || bs != nil {
		row = func(b, n, i int, sc []float32) {
			om.apply(b, i, sc)
			if bs != nil {
				for j, x := range bs.row(b, n, i) {
					sc[j] += x
				}
			}
		}
	}
	if err := attendAll(ctx, yd, qd, kd, vd, m.batch, N, N, m.s, total, m.h, m.hv, defaultScale(p.scale, m.h), 0, false, row, nil); err != nil {
		return nil, err
	}
	return outs, nil
}

// presentBuf returns the (B, N, T, H) buffer of a present output: the
// storage of output slot `at` when it is requested, scratch otherwise.
func presentBuf(ctx *op.Context, dt tensor.DType, want bool, outs []*tensor.Tensor, at, batch, heads, total, h int) []float32 {
	if want && at < len(outs) {
		t, d := newF32(ctx, dt, batch, heads, total, h)
		outs[at] = t
		return d
	}
	return make([]float32, batch*heads*total*h)
}

// inferMHA: output (B, S, Dv) and the presents (B, N, P + L, H) where the
// input shapes say them.
func inferMHA(c *shapes.Ctx) {
	q, k, v := c.Shape(0), c.Shape(1), c.Shape(2)
	heads := c.AttrInt("num_heads", 0)
	setElems(c)
	for i := 0; i < c.NumOut(); i++ {
		c.Set(i, nil, "")
	}
	if q == nil || heads <= 0 {
		return
	}
	N := shapes.Known(heads)
	var l, h, hv graph.Dim
	ok := true
	switch {
	case len(q) == 5:
		l, h, hv = q[1], q[4], q[4]
	case len(q) == 3 && k != nil && len(k) == 5:
		l, h, hv = k[1], k[4], k[4]
	case len(q) == 3 && k != nil && v != nil && len(k) == 3 && len(v) == 3:
		l, h, hv = k[1], shapes.DimDiv(q[2], N), shapes.DimDiv(v[2], N)
	case len(q) == 3 && k != nil && v != nil && len(k) == 4 && len(v) == 4:
		l, h, hv = k[2], k[3], v[3]
	default:
		ok = false
	}
	if !ok {
		return
	}
	c.Set(0, []graph.Dim{q[0], q[1], shapes.DimMul(hv, N)}, "")
	t := l
	if c.Has(6) {
		pk := c.Shape(6)
		if pk == nil || len(pk) != 4 {
			return
		}
		t = shapes.DimAdd(pk[2], l)
	}
	if c.NumOut() > 1 {
		c.Set(1, []graph.Dim{q[0], N, t, h}, "")
	}
	if c.NumOut() > 2 {
		c.Set(2, []graph.Dim{q[0], N, t, hv}, "")
	}
}

// setElems gives every output input 0's element type.
func setElems(c *shapes.Ctx) {
	if x := c.Input(0); x != nil && x.Type.Elem != 0 {
		for i := 0; i < c.NumOut(); i++ {
			c.SetElem(i, x.Type.Elem)
		}
	}
}
