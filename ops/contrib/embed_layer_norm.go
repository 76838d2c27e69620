package contrib

import (
	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/ops/nn"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
	"slices"
)

// EmbedLayerNormalization(input_ids, segment_ids?, word_embedding,
// position_embedding, segment_embedding?, gamma, beta, mask?,
// position_ids?): the embedding layer of BERT-like models. For each token
// (b, s) the row s = word_embedding[input_ids[b, s]] +
// position_embedding[p] (+ segment_embedding[segment_ids[b, s]]) is summed
// in the embeddings' type, then normalised by nn.NormRow with gamma and
// beta (H) and epsilon (default 1e-12). p is s, or position_ids[b, s] for
// (B, S) position ids, position_ids[0, s] for (1, S). Outputs: output
// (B, S, H); mask_index (int32 (B)): the number of mask elements equal to
// 1 in each batch row, 0 without a mask; embedding_sum (B, S, H): the rows
// before normalisation. The segment term needs both segment_ids and
// segment_embedding (onnxruntime's kernel ignores a segment_embedding
// without ids). mask_index_type only steers onnxruntime's shape inference;
// the kernel always writes mask_index. An id outside its table is an
// error, as in onnxruntime's CPU kernel (which also reads a negative
// position id out of bounds: gort refuses it).
func init() {
	op.Default.Register(Domain, "EmbedLayerNormalization", []int{1}, buildEmbedLayerNorm)
	shapes.Register(Domain, "EmbedLayerNormalization", inferEmbedLayerNorm)
}

const eln = "EmbedLayerNormalization"

func buildEmbedLayerNorm(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	eps := float64(a.Float("epsilon", 1e-12))
	a.Int("mask_index_type", 1)
	if a.Err != nil {
		return nil, a.Err
	}
	if eps < 0 {
		return nil, n.Errorf("%s: epsilon must be ≥ 0, got %g", eln, eps)
	}
	return op.KernelFunc(func(ctx *op.Context, ins []*tensor.Tensor) ([]*tensor.Tensor, error) {
		ids, segIDs, word, pos := in(ins, 0), in(ins, 1), in(ins, 2), in(ins, 3)
		segEmb, gamma, beta, mask, posIDs := in(ins, 4), in(ins, 5), in(ins, 6), in(ins, 7), in(ins, 8)
		if ids == nil || word == nil || pos == nil || gamma == nil || beta == nil {
			return nil, op.Errorf("%s needs input_ids, word_embedding, position_embedding, gamma and beta", eln)
		}
		if err := checkFloat(eln, word, pos, segEmb, gamma, beta); err != nil {
			return nil, err
		}
		is := ids.Shape()
		if len(is) != 2 {
			return nil, op.Errorf("%s: input_ids must have rank 2 (B, S), got %v", eln, is)
		}
		bsz, seq := is[0], is[1]
		for _, p := range []struct {
			what string
			t    *tensor.Tensor
		}{{"input_ids", ids}, {"segment_ids", segIDs}, {"mask", mask}, {"position_ids", posIDs}} {
			if p.t != nil && p.t.DType() != tensor.Int32 {
				return nil, op.Errorf("%s: %s must be int32, got %s", eln, p.what, p.t.DType())
			}
		}
		for _, p := range []struct {
			what string
			t    *tensor.Tensor
		}{{"segment_ids", segIDs}, {"mask", mask}} {
			if p.t != nil && !slices.Equal(p.t.Shape(), is) {
				return nil, op.Errorf("%s: %s of shape %v must have input_ids' shape %v", eln, p.what, p.t.Shape(), is)
			}
		}
		if posIDs != nil {
			ps := posIDs.Shape()
			if len(ps) != 2 || ps[1] != seq || (ps[0] != bsz && ps[0] != 1) {
				return nil, op.Errorf("%s: position_ids of shape %v must be (%d, %d) or (1, %d)", eln, ps, bsz, seq, seq)
			}
		}
		if word.Rank() != 2 {
			return nil, op.Errorf("%s: word_embedding must have rank 2, got %v", eln, word.Shape())
		}
		h := word.Shape()[1]
		for _, p := range []struct {
			what string
			t    *tensor.Tensor
		}{{"position_embedding", pos}, {"segment_embedding", segEmb}} {
			if p.t != nil && (p.t.Rank() != 2 || p.t.Shape()[1] != h) {
				return nil, op.Errorf("%s: %s must have shape (n, %d), got %v", eln, p.what, h, p.t.Shape())
			}
		}
		if err := checkVector(eln, "gamma", gamma, h); err != nil {
			return nil, err
		}
		if err := checkVector(eln, "beta", beta, h); err != nil {
			return nil, err
		}
		if segIDs != nil && segEmb == nil {
			return nil, op.Errorf("%s: segment_ids given without segment_embedding", eln)
		}
		if segIDs == nil {
			segEmb = nil // onnxruntime ignores a table without ids
		}
		// Resolve every token's three table rows first: an id out of range
		// fails before any output is written.
		rows := make([]int, 3*bsz*seq)
		tables := []struct {
			what string
			t    *tensor.Tensor
		}{{"input_ids", word}, {"position_ids", pos}, {"segment_ids", segEmb}}
		for t := 0; t < bsz*seq; t++ {
			r := rows[3*t : 3*t+3]
			r[0] = int(ids.I32()[t])
			r[1] = t % seq
			if posIDs != nil {
				r[1] = int(posIDs.I32()[t%posIDs.Len()])
			}
			r[2] = -1
			if segIDs != nil {
				r[2] = int(segIDs.I32()[t])
			}
			for k := 0; k < 3; k++ {
				if k == 2 && segIDs == nil {
					continue
				}
				if lim := tables[k].t.Shape()[0]; r[k] < 0 || r[k] >= lim {
					what := tables[k].what
					if k == 1 && posIDs == nil {
						what = "position (sequence index)"
					}
					return nil, op.Errorf("%s: %s[%d, %d] = %d is outside [0, %d)", eln, what, t/seq, t%seq, r[k], lim)
				}
			}
		}
		y := ctx.New(word.DType(), bsz, seq, h)
		maskIndex := ctx.New(tensor.Int32, bsz)
		var sum *tensor.Tensor
		if n.HasOutput(2) {
			sum = ctx.New(word.DType(), bsz, seq, h)
		}
		if word.DType() == tensor.Double {
			var sv []float64
			if sum != nil {
				sv = sum.F64()
			}
			embedNorm(y.F64(), sv, rows, word.F64(), pos.F64(), f64s(segEmb), gamma.F64(), beta.F64(), h, eps)
		} else {
			var sv []float32
			if sum != nil {
				sv = sum.F32()
			}
			embedNorm(y.F32(), sv, rows, word.F32(), pos.F32(), f32s(segEmb), gamma.F32(), beta.F32(), h, eps)
		}
		if mask != nil {
			mi, mv := maskIndex.I32(), mask.I32()
			for b := 0; b < bsz; b++ {
				c := int32(0)
				for _, v := range mv[b*seq : (b+1)*seq] {
					if v == 1 {
						c++
					}
				}
				mi[b] = c
			}
		}
		outs := []*tensor.Tensor{y, maskIndex, sum}
		return outs[:min(len(outs), len(n.Outputs))], nil
	}), nil
}

// embedNorm sums each token's rows (word, position and, when seg is not
// nil, segment: rows holds their indices, three per token) into sum (a
// scratch row when sum is nil) and normalises it into y.
func embedNorm[T kernels.Float](y, sum []T, rows []int, word, pos, seg, gamma, beta []T, h int, eps float64) {
	if h == 0 {
		return
	}
	scratch := make([]T, h)
	for t := 0; 3*t < len(rows); t++ {
		r := rows[3*t : 3*t+3]
		s := scratch
		if sum != nil {
			s = sum[t*h : (t+1)*h]
		}
		w, p := word[r[0]*h:][:h], pos[r[1]*h:][:h]
		for j := range s {
			s[j] = w[j] + p[j]
		}
		if seg != nil {
			g := seg[r[2]*h:][:h]
			for j := range s {
				s[j] += g[j]
			}
		}
		nn.NormRow(y[t*h:(t+1)*h], s, eps, false, gamma, beta)
	}
}

func inferEmbedLayerNorm(c *shapes.Ctx) {
	elem := tensor.DType(0)
	if w := c.Input(2); w != nil {
		elem = w.Type.Elem
	}
	ids, w := c.Shape(0), c.Shape(2)
	var ys, ms []graph.Dim
	if len(ids) == 2 {
		ms = []graph.Dim{ids[0]}
		if len(w) == 2 {
			ys = []graph.Dim{ids[0], ids[1], w[1]}
		}
	}
	for i := 0; i < c.NumOut(); i++ {
		if i == 1 {
			c.SetElem(1, tensor.Int32)
			c.Set(1, ms, "")
			continue
		}
		if elem != 0 {
			c.SetElem(i, elem)
		}
		c.Set(i, ys, "")
	}
}
