package attention_test

import (
	"math"
	"testing"

	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// refAttn is a deliberately naive Attention on 4-D row-major slices (K and V
// already include any past): scores = scale*QK^T, softcap, + bias(b,h,i,j),
// softmax (an all -inf row gives zeros), times V. It returns Y and the four
// qk_matmul_output candidates (raw, softcapped, biased, probabilities).
type refAttn struct {
	b, hq, hkv, lq, t, d, dv int
	scale, softcap           float64
	bias                     func(b, h, i, j int) float64
}

func (r refAttn) run(q, k, v []float32) (y []float64, qk [4][]float64) {
	y = make([]float64, r.b*r.hq*r.lq*r.dv)
	for m := range qk {
		qk[m] = make([]float64, r.b*r.hq*r.lq*r.t)
	}
	for b := 0; b < r.b; b++ {
		for h := 0; h < r.hq; h++ {
			kh := h / (r.hq / r.hkv)
			for i := 0; i < r.lq; i++ {
				row := make([]float64, r.t)
				for j := 0; j < r.t; j++ {
					s := 0.0
					for x := 0; x < r.d; x++ {
						s += float64(q[((b*r.hq+h)*r.lq+i)*r.d+x]) * float64(k[((b*r.hkv+kh)*r.t+j)*r.d+x])
					}
					s *= r.scale
					o := ((b*r.hq+h)*r.lq+i)*r.t + j
					qk[0][o] = s
					if r.softcap > 0 {
						s = r.softcap * math.Tanh(s/r.softcap)
					}
					qk[1][o] = s
					if r.bias != nil {
						s += r.bias(b, h, i, j)
					}
					qk[2][o] = s
					row[j] = s
				}
				mx := math.Inf(-1)
				for _, s := range row {
					mx = math.Max(mx, s)
				}
				sum := 0.0
				for j := range row {
					if mx == math.Inf(-1) {
						row[j] = 0
						continue
					}
					row[j] = math.Exp(row[j] - mx)
					sum += row[j]
				}
				for j := range row {
					if sum > 0 {
						row[j] /= sum
					}
					qk[3][((b*r.hq+h)*r.lq+i)*r.t+j] = row[j]
					for x := 0; x < r.dv; x++ {
						y[((b*r.hq+h)*r.lq+i)*r.dv+x] += row[j] * float64(v[((b*r.hkv+kh)*r.t+j)*r.dv+x])
					}
				}
			}
		}
	}
	return y, qk
}

// to3D packs a (B, H, S, D) slice as (B, S, H*D).
func to3D(x []float32, b, h, s, d int) []float32 {
	out := make([]float32, len(x))
	for bi := 0; bi < b; bi++ {
		for hi := 0; hi < h; hi++ {
			for si := 0; si < s; si++ {
				for di := 0; di < d; di++ {
					out[((bi*s+si)*h+hi)*d+di] = x[((bi*h+hi)*s+si)*d+di]
				}
			}
		}
	}
	return out
}

func to3D64(x []float64, b, h, s, d int) []float64 {
	f := make([]float32, len(x))
	for i, v := range x {
		f[i] = float32(v)
	}
	return f64s(to3D(f, b, h, s, d))
}

// concatSeq joins past (B, H, P, D) and cur (B, H, L, D) along the sequence.
func concatSeq(past, cur []float32, b, h, p, l, d int) []float32 {
	var out []float32
	for bi := 0; bi < b; bi++ {
		for hi := 0; hi < h; hi++ {
			out = append(out, past[(bi*h+hi)*p*d:(bi*h+hi+1)*p*d]...)
			out = append(out, cur[(bi*h+hi)*l*d:(bi*h+hi+1)*l*d]...)
		}
	}
	return out
}

func TestAttention(t *testing.T) {
	const B, HQ, HKV, LQ, LKV, D, DV = 2, 4, 2, 3, 5, 4, 3
	q := rnd(1, B*HQ*LQ*D)
	k := rnd(2, B*HKV*LKV*D)
	v := rnd(3, B*HKV*LKV*DV)
	q4 := tensor.Of([]int{B, HQ, LQ, D}, q)
	k4 := tensor.Of([]int{B, HKV, LKV, D}, k)
	v4 := tensor.Of([]int{B, HKV, LKV, DV}, v)
	negInf := math.Inf(-1)
	base := refAttn{b: B, hq: HQ, hkv: HKV, lq: LQ, t: LKV, d: D, dv: DV, scale: 0.5}

	// Boolean (LQ, LKV) mask with query row 1 fully masked.
	bm := []bool{
		true, false, true, true, false,
		false, false, false, false, false,
		false, true, true, false, true,
	}
	boolBias := func(b, h, i, j int) float64 {
		if bm[i*LKV+j] {
			return 0
		}
		return negInf
	}
	// Float mask of shape (HQ, LQ, LKV): broadcast over the batch.
	fm := rnd(4, HQ*LQ*LKV)
	floatBias := func(b, h, i, j int) float64 { return float64(fm[(h*LQ+i)*LKV+j]) }

	for _, tc := range []struct {
		name  string
		opset int64
		attrs []*pb.AttributeProto
		ins   []*tensor.Tensor
		ref   refAttn
	}{
		{"gqa cross", 23, nil, []*tensor.Tensor{q4, k4, v4}, refAttn{b: B, hq: HQ, hkv: HKV, lq: LQ, t: LKV, d: D, dv: DV, scale: 1 / math.Sqrt(D)}},
		{"bool mask, fully masked row", 23, []*pb.AttributeProto{fattr("scale", 0.5)},
			[]*tensor.Tensor{q4, k4, v4, tensor.Of([]int{LQ, LKV}, bm)}, func() refAttn { r := base; r.bias = boolBias; return r }()},
		{"float mask 3-D, causal", 23, []*pb.AttributeProto{fattr("scale", 0.5), iattr("is_causal", 1)},
			[]*tensor.Tensor{q4, k4, v4, tensor.Of([]int{HQ, LQ, LKV}, fm)}, func() refAttn {
				r := base
				r.bias = func(b, h, i, j int) float64 {
					if j > i {
						return negInf
					}
					return floatBias(b, h, i, j)
				}
				return r
			}()},
		{"softcap", 23, []*pb.AttributeProto{fattr("scale", 0.5), fattr("softcap", 0.4)},
			[]*tensor.Tensor{q4, k4, v4}, func() refAttn { r := base; r.softcap = 0.4; return r }()},
		{"nonpad causal", 24, []*pb.AttributeProto{fattr("scale", 0.5), iattr("is_causal", 1)},
			[]*tensor.Tensor{q4, k4, v4, nil, nil, nil, tensor.Of([]int{B}, []int64{4, 2})}, func() refAttn {
				r := base
				lens := []int{4, 2}
				r.bias = func(b, h, i, j int) float64 {
					// offset = nonpad - LQ: batch 0 sees j <= i+1, batch 1
					// j <= i-1 (row 0 empty); keys past nonpad are padding.
					if j >= lens[b] || j > i+lens[b]-LQ {
						return negInf
					}
					return 0
				}
				return r
			}()},
		{"short bool mask padded", 24, []*pb.AttributeProto{fattr("scale", 0.5)},
			[]*tensor.Tensor{q4, k4, v4, tensor.Of([]int{1, 1, LQ, 3}, []bool{true, true, false, false, true, true, true, false, true})}, func() refAttn {
				r := base
				m := []bool{true, true, false, false, true, true, true, false, true}
				r.bias = func(b, h, i, j int) float64 {
					if j >= 3 || !m[i*3+j] {
						return negInf
					}
					return 0
				}
				return r
			}()},
		{"window left 1 right 0", 25, []*pb.AttributeProto{fattr("scale", 0.5), iattr("left_window_size", 1), iattr("right_window_size", 0)},
			[]*tensor.Tensor{q4, k4, v4}, func() refAttn {
				r := base
				r.bias = func(b, h, i, j int) float64 {
					if j < i-1 || j > i {
						return negInf
					}
					return 0
				}
				return r
			}()},
		{"window right 2 with causal", 25, []*pb.AttributeProto{fattr("scale", 0.5), iattr("right_window_size", 2), iattr("is_causal", 1)},
			[]*tensor.Tensor{q4, k4, v4}, func() refAttn {
				r := base
				r.bias = func(b, h, i, j int) float64 {
					if j > i {
						return negInf
					}
					return 0
				}
				return r
			}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, _ := tc.ref.run(q, k, v)
			got := runOp(t, "Attention", tc.opset, tc.attrs, tc.ins, 1)
			expectClose(t, "Y", got[0], []int{B, HQ, LQ, DV}, want, 1e-5)
		})
	}

	t.Run("3-D inputs", func(t *testing.T) {
		r := refAttn{b: B, hq: HQ, hkv: HKV, lq: LQ, t: LKV, d: D, dv: DV, scale: 1 / math.Sqrt(D)}
		want, _ := r.run(q, k, v)
		got := runOp(t, "Attention", 23, []*pb.AttributeProto{iattr("q_num_heads", HQ), iattr("kv_num_heads", HKV)},
			[]*tensor.Tensor{
				tensor.Of([]int{B, LQ, HQ * D}, to3D(q, B, HQ, LQ, D)),
				tensor.Of([]int{B, LKV, HKV * D}, to3D(k, B, HKV, LKV, D)),
				tensor.Of([]int{B, LKV, HKV * DV}, to3D(v, B, HKV, LKV, DV)),
			}, 3)
		expectClose(t, "Y", got[0], []int{B, LQ, HQ * DV}, to3D64(want, B, HQ, LQ, DV), 1e-5)
		// Without past, present is K/V in 4-D layout.
		expectClose(t, "present_key", got[1], []int{B, HKV, LKV, D}, f64s(k), 0)
		expectClose(t, "present_value", got[2], []int{B, HKV, LKV, DV}, f64s(v), 0)
	})

	t.Run("past, causal, qk modes", func(t *testing.T) {
		const P = 2
		pk, pv := rnd(5, B*HKV*P*D), rnd(6, B*HKV*P*DV)
		kall, vall := concatSeq(pk, k, B, HKV, P, LKV, D), concatSeq(pv, v, B, HKV, P, LKV, DV)
		T := P + LKV
		mask := rnd(7, LQ*T)
		r := refAttn{b: B, hq: HQ, hkv: HKV, lq: LQ, t: T, d: D, dv: DV, scale: 0.3, softcap: 1.5,
			bias: func(b, h, i, j int) float64 {
				if j > i+P { // bottom-right causal: past keys all visible
					return negInf
				}
				return float64(mask[i*T+j])
			}}
		want, qk := r.run(q, kall, vall)
		for mode := 0; mode < 4; mode++ {
			got := runOp(t, "Attention", 23, []*pb.AttributeProto{fattr("scale", 0.3), fattr("softcap", 1.5), iattr("is_causal", 1), iattr("qk_matmul_output_mode", int64(mode))},
				[]*tensor.Tensor{q4, k4, v4, tensor.Of([]int{LQ, T}, mask),
					tensor.Of([]int{B, HKV, P, D}, pk), tensor.Of([]int{B, HKV, P, DV}, pv)}, 4)
			expectClose(t, "Y", got[0], []int{B, HQ, LQ, DV}, want, 1e-5)
			expectClose(t, "present_key", got[1], []int{B, HKV, T, D}, f64s(kall), 0)
			expectClose(t, "present_value", got[2], []int{B, HKV, T, DV}, f64s(vall), 0)
			expectClose(t, "qk_matmul_output", got[3], []int{B, HQ, LQ, T}, qk[mode], 1e-5)
		}
	})

	t.Run("float64", func(t *testing.T) {
		r := refAttn{b: B, hq: HQ, hkv: HKV, lq: LQ, t: LKV, d: D, dv: DV, scale: 1 / math.Sqrt(D)}
		want, _ := r.run(q, k, v)
		got := runOp(t, "Attention", 23, nil, []*tensor.Tensor{
			tensor.Of(q4.Shape(), f64s(q)), tensor.Of(k4.Shape(), f64s(k)), tensor.Of(v4.Shape(), f64s(v))}, 1)
		if got[0].DType() != tensor.Double {
			t.Fatalf("dtype %s, want float64", got[0].DType())
		}
		expectClose(t, "Y", got[0], []int{B, HQ, LQ, DV}, want, 1e-12)
	})

	for _, tc := range []struct {
		name  string
		opset int64
		attrs []*pb.AttributeProto
		ins   []*tensor.Tensor
	}{
		{"3-D without head counts", 23, nil, []*tensor.Tensor{
			tensor.Of([]int{B, LQ, HQ * D}, q), tensor.Of([]int{B, LKV, HKV * D}, k), tensor.Of([]int{B, LKV, HKV * DV}, v)}},
		{"short mask at 23", 23, nil, []*tensor.Tensor{q4, k4, v4, tensor.Of([]int{LQ, 3}, make([]float32, LQ*3))}},
		{"heads not a multiple", 23, nil, []*tensor.Tensor{q4, tensor.Of([]int{B, 3, 1, D}, make([]float32, B*3*D)), tensor.Of([]int{B, 3, 1, DV}, make([]float32, B*3*DV))}},
	} {
		t.Run("error/"+tc.name, func(t *testing.T) {
			if _, err := tryOp("Attention", tc.opset, tc.attrs, tc.ins, 1); err == nil {
				t.Fatal("expected an error")
			}
		})
	}
}
