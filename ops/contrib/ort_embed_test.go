package contrib_test

import (
	"math/rand/v2"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The differential cases of EmbedLayerNormalization: batch 1–3, with and
// without segment ids, mask (with values other than 0 and 1) and
// position_ids ((B, S) and (1, S)), epsilon given or not, embedding_sum
// requested or not.
func init() {
	moreDiffCases = append(moreDiffCases, func(r *rand.Rand, add func(dcase)) {
		for i := 0; i < 12; i++ {
			b, s, h := 1+r.IntN(3), 1+r.IntN(7), 1+r.IntN(24)
			v, np, ns := 2+r.IntN(12), s+r.IntN(4), 1+r.IntN(3)
			in := []*tensor.Tensor{randIDs(r, v, b, s), nil, randT(r, 1, 0, v, h), randT(r, 1, 0, np, h), nil,
				randT(r, 1, 1, h), randT(r, 1, 0, h), nil, nil}
			if i%2 == 0 {
				in[1], in[4] = randIDs(r, ns, b, s), randT(r, 1, 0, ns, h)
			}
			if i%3 != 0 {
				in[7] = randIDs(r, 3, b, s)
			}
			switch i % 4 {
			case 1:
				in[8] = randIDs(r, np, b, s)
			case 2:
				in[8] = randIDs(r, np, 1, s)
			}
			for len(in) > 0 && in[len(in)-1] == nil {
				in = in[:len(in)-1]
			}
			attrs := optest.A{}
			if i%5 == 1 {
				attrs["epsilon"] = float32(1e-3)
			}
			add(dcase{domain: contrib.Domain, op: "EmbedLayerNormalization", attrs: attrs, in: in,
				outs: []bool{true, true, i%3 == 1}, outTypes: []tensor.DType{0, tensor.Int32, 0}})
		}
	})
}
