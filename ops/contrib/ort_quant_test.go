package contrib_test

import (
	"math/rand/v2"

	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/ops/internal/optest"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The differential cases of the quantized and fused contrib ops
// (MatMulNBits, GatherBlockQuantized, FusedMatMul, FusedConv,
// EmbedLayerNormalization, LayerNormalization, BiasSplitGelu).
func init() {
	moreDiffCases = append(moreDiffCases, matMulNBitsCases)
}

func randBytes(r *rand.Rand, shape ...int) *tensor.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]uint8, n)
	for i := range v {
		v[i] = uint8(r.IntN(256))
	}
	return tensor.Of(shape, v)
}

// matMulNBitsCases: 4 and 8 bits, block sizes 16–128, K not a multiple
// of the block size, no / packed / float zero points, bias, A of rank 1–4,
// one row (decode) and many (prefill), scales flat or 2-D. onnxruntime
// 1.23's CPU kernel refuses 2 bits and 8 bits with float zero points
// (docs/contrib.md): those are tested against the reference only
// (TestMatMulNBitsOp, kernels.TestMatMulNBits).
func matMulNBitsCases(r *rand.Rand, add func(dcase)) {
	for i := 0; i < 24; i++ {
		bits := []int{4, 4, 8, 4}[i%4]
		bs := []int{16, 32, 64, 128}[r.IntN(4)]
		k := 1 + r.IntN(3*bs)
		if i%5 == 0 {
			k = bs * (1 + r.IntN(3))
		}
		n := 1 + r.IntN(40)
		kb := (k + bs - 1) / bs
		var xs []int
		switch i % 4 {
		case 0:
			xs = []int{1, k}
		case 1:
			xs = []int{2, 1 + r.IntN(6), k}
		case 2:
			xs = []int{1 + r.IntN(9), k}
		default:
			xs = []int{2, 1, 3, k}
		}
		if i == 7 {
			xs = []int{k}
		}
		scales := randT(r, 0.05, 0.1, n*kb)
		if r.IntN(2) == 0 {
			scales = randT(r, 0.05, 0.1, n, kb)
		}
		in := []*tensor.Tensor{randT(r, 1, 0, xs...), randBytes(r, n, kb, bs*bits/8), scales}
		zk := i % 3
		if bits == 8 && zk == 2 {
			zk = 1
		}
		switch zk {
		case 1:
			in = append(in, randBytes(r, n, (kb*bits+7)/8))
		case 2:
			in = append(in, randT(r, float64(int(1)<<(bits-1)), float64(int(1)<<(bits-1)), n, kb))
		default:
			in = append(in, nil)
		}
		if i%2 == 0 {
			in = append(in, nil, randT(r, 1, 0, n))
		}
		attrs := optest.A{"K": k, "N": n, "bits": bits, "block_size": bs}
		if i%6 == 5 {
			attrs["accuracy_level"] = 1
		}
		add(dcase{domain: contrib.Domain, op: "MatMulNBits", attrs: attrs, in: in, outs: []bool{true}, tol: 4})
	}
}
