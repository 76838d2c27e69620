package elementwise

import (
	"math"
	"strconv"
	"testing"

	"github.com/gort-dev/gort/runtime/tensor"
)

func castTo(t *testing.T, opset int, x *tensor.Tensor, to tensor.DType, extra map[string]any) *tensor.Tensor {
	t.Helper()
	kv := map[string]any{"to": int(to)}
	for k, v := range extra {
		kv[k] = v
	}
	return mustRun(t, "Cast", opset, kv, x)
}

func codes(dt tensor.DType, c ...uint8) *tensor.Tensor {
	return tensor.Must(tensor.FromSlice(dt, []int{len(c)}, c))
}

func TestCastNumeric(t *testing.T) {
	checkTensor(t, "f32→i8 truncates", castTo(t, 25, f32([]int{4}, 1.9, -1.9, 0.5, -0), tensor.Int8, nil), tensor.Int8, []int{4}, []int8{1, -1, 0, 0})
	checkTensor(t, "i16→i8 wraps", castTo(t, 25, tensor.Of([]int{2}, []int16{200, -129}), tensor.Int8, nil), tensor.Int8, []int{2}, []int8{-56, 127})
	checkTensor(t, "i32→u8 wraps", castTo(t, 25, tensor.Of([]int{2}, []int32{-1, 256}), tensor.Uint8, nil), tensor.Uint8, []int{2}, []uint8{255, 0})
	checkTensor(t, "u64→i64", castTo(t, 25, tensor.Of([]int{1}, []uint64{math.MaxUint64}), tensor.Int64, nil), tensor.Int64, []int{1}, []int64{-1})
	checkTensor(t, "i64→bool", castTo(t, 25, tensor.Of([]int{3}, []int64{0, 2, -1}), tensor.Bool, nil), tensor.Bool, []int{3}, []bool{false, true, true})
	checkTensor(t, "f32→bool", castTo(t, 25, f32([]int{3}, 0, float32(math.NaN()), -0.1), tensor.Bool, nil), tensor.Bool, []int{3}, []bool{false, true, true})
	checkTensor(t, "bool→f32", castTo(t, 25, tensor.Of([]int{2}, []bool{true, false}), tensor.Float, nil), tensor.Float, []int{2}, []float64{1, 0})
	checkTensor(t, "i64→f64", castTo(t, 25, tensor.Of([]int{1}, []int64{1 << 53}), tensor.Double, nil), tensor.Double, []int{1}, []float64{1 << 53})
	checkTensor(t, "f64→u64 large", castTo(t, 25, tensor.Of([]int{1}, []float64{1 << 63}), tensor.Uint64, nil), tensor.Uint64, []int{1}, []uint64{1 << 63})

	// float64 → float16 rounds once: 1 + 2^-11 + 2^-40 is just above the tie,
	// so it rounds up, while going through float32 would lose the 2^-40.
	h := castTo(t, 25, tensor.Of([]int{3}, []float64{1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-11, 1 + 3*0x1p-11}), tensor.Float16, nil)
	checkTensor(t, "f64→f16", h, tensor.Float16, []int{3}, []float32{1 + 0x1p-10, 1, 1 + 0x1p-9})
	b := castTo(t, 25, f32([]int{2}, 1+0x1p-8, 1+3*0x1p-8), tensor.BFloat16, nil)
	checkTensor(t, "f32→bf16 half-even", b, tensor.BFloat16, []int{2}, []float32{1, 1 + 0x1p-6})

	// Cast-1 names the dtype with a string.
	c1 := mustRun(t, "Cast", 1, map[string]any{"to": "INT32"}, f32([]int{2}, 2.5, -7))
	checkTensor(t, "Cast-1", c1, tensor.Int32, []int{2}, []int32{2, -7})
	cl := mustRun(t, "CastLike", 25, nil, tensor.Of([]int{2}, []int32{3, -4}), f32([]int{}, 0))
	checkTensor(t, "CastLike", cl, tensor.Float, []int{2}, []float64{3, -4})
}

func TestCastStrings(t *testing.T) {
	inf := float32(math.Inf(1))
	s := castTo(t, 25, f32([]int{9}, 1, 0.1, 1e-5, 1e16, 123.25, -inf, float32(math.NaN()), 1234567, -0.5), tensor.String, nil)
	checkTensor(t, "f32→string", s, tensor.String, []int{9},
		[]string{"1.0", "0.1", "1e-05", "1e+16", "123.25", "-inf", "nan", "1234567.0", "-0.5"})
	d := castTo(t, 25, tensor.Of([]int{2}, []float64{0.1, 2.5e-7}), tensor.String, nil)
	checkTensor(t, "f64→string", d, tensor.String, []int{2}, []string{"0.1", "2.5e-07"})
	i := castTo(t, 25, tensor.Of([]int{2}, []int64{-42, 7}), tensor.String, nil)
	checkTensor(t, "i64→string", i, tensor.String, []int{2}, []string{"-42", "7"})

	in := tensor.Of([]int{7}, []string{"INF", "-inf", "NaN", "1e-5", " 3.5", "+Inf", "1E8"})
	f := castTo(t, 25, in, tensor.Float, nil)
	checkTensor(t, "string→f32", f, tensor.Float, []int{7}, []float64{math.Inf(1), math.Inf(-1), math.NaN(), 1e-5, 3.5, math.Inf(1), 1e8})
	n := castTo(t, 25, tensor.Of([]int{3}, []string{"100", "-7", "300"}), tensor.Int64, nil)
	checkTensor(t, "string→i64", n, tensor.Int64, []int{3}, []int64{100, -7, 300})
	w := castTo(t, 25, tensor.Of([]int{1}, []string{"300"}), tensor.Uint8, nil)
	checkTensor(t, "string→u8 wraps", w, tensor.Uint8, []int{1}, []uint8{44})
	if _, err := runOp("Cast", 25, map[string]any{"to": int(tensor.Float)}, tensor.Of([]int{1}, []string{"hello"})); err == nil {
		t.Error("non-numeric string: no error")
	}
}

func TestCastFloat8(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	x := f32([]int{10}, 0.3, 448, 500, -500, inf, 0x1p-9, 0x1p-10, 3*0x1p-10, nan, float32(math.Copysign(0, -1)))
	checkTensor(t, "e4m3fn saturate", castTo(t, 25, x, tensor.Float8E4M3FN, nil), tensor.Float8E4M3FN, []int{10},
		[]uint8{0x2A, 0x7E, 0x7E, 0xFE, 0x7E, 0x01, 0x00, 0x02, 0x7F, 0x80})
	checkTensor(t, "e4m3fn no saturate", castTo(t, 25, x, tensor.Float8E4M3FN, map[string]any{"saturate": 0}), tensor.Float8E4M3FN, []int{10},
		[]uint8{0x2A, 0x7E, 0x7F, 0xFF, 0x7F, 0x01, 0x00, 0x02, 0x7F, 0x80})

	y := f32([]int{5}, 240, inf, float32(math.Copysign(0, -1)), nan, -1)
	checkTensor(t, "e4m3fnuz Cast-25", castTo(t, 25, y, tensor.Float8E4M3FNUZ, nil), tensor.Float8E4M3FNUZ, []int{5},
		[]uint8{0x7F, 0x7F, 0x00, 0x80, 0xC0})
	checkTensor(t, "e4m3fnuz Cast-19 Inf→NaN", castTo(t, 19, y, tensor.Float8E4M3FNUZ, nil), tensor.Float8E4M3FNUZ, []int{5},
		[]uint8{0x7F, 0x80, 0x00, 0x80, 0xC0})

	z := f32([]int{3}, 1e6, -1e6, 1.25)
	checkTensor(t, "e5m2 saturate", castTo(t, 25, z, tensor.Float8E5M2, nil), tensor.Float8E5M2, []int{3}, []uint8{0x7B, 0xFB, 0x3D})
	checkTensor(t, "e5m2 no saturate", castTo(t, 25, z, tensor.Float8E5M2, map[string]any{"saturate": 0}), tensor.Float8E5M2, []int{3}, []uint8{0x7C, 0xFC, 0x3D})

	dec := castTo(t, 25, codes(tensor.Float8E4M3FN, 0x2A, 0x7E, 0x01, 0xFE, 0x7F), tensor.Float, nil)
	checkTensor(t, "e4m3fn decode", dec, tensor.Float, []int{5}, []float64{0.3125, 448, 0x1p-9, -448, math.NaN()})
	dz := castTo(t, 25, codes(tensor.Float8E5M2FNUZ, 0x80, 0x7F, 0x01), tensor.Float, nil)
	checkTensor(t, "e5m2fnuz decode", dz, tensor.Float, []int{3}, []float64{math.NaN(), 57344, 0x1p-17})
	// float8 → float8 goes through the decoded value.
	e := castTo(t, 25, codes(tensor.Float8E4M3FN, 0x7E), tensor.Float8E5M2, nil)
	checkTensor(t, "e4m3fn→e5m2", e, tensor.Float8E5M2, []int{1}, []uint8{0x5F})
}

func TestCastSmallFormats(t *testing.T) {
	x := f32([]int{6}, 0.25, 0.75, 5, 7, float32(math.NaN()), -3)
	checkTensor(t, "float4e2m1", castTo(t, 25, x, tensor.Float4E2M1, nil), tensor.Float4E2M1, []int{6}, []uint8{0, 2, 6, 7, 8, 13})
	checkTensor(t, "float4e2m1 decode", castTo(t, 25, codes(tensor.Float4E2M1, 1, 7, 13), tensor.Float, nil),
		tensor.Float, []int{3}, []float64{0.5, 6, -3})

	e := f32([]int{3}, 0.124, 3, 0.25)
	checkTensor(t, "e8m0 up", castTo(t, 25, e, tensor.Float8E8M0, nil), tensor.Float8E8M0, []int{3}, []uint8{124, 129, 125})
	checkTensor(t, "e8m0 down", castTo(t, 25, e, tensor.Float8E8M0, map[string]any{"round_mode": "down"}), tensor.Float8E8M0, []int{3}, []uint8{123, 128, 125})
	checkTensor(t, "e8m0 nearest", castTo(t, 25, e, tensor.Float8E8M0, map[string]any{"round_mode": "nearest"}), tensor.Float8E8M0, []int{3}, []uint8{124, 129, 125})

	i := f32([]int{4}, 8, -9, 7.9, -8)
	checkTensor(t, "int4 wraps", castTo(t, 25, i, tensor.Int4, nil), tensor.Int4, []int{4}, []int8{-8, 7, 7, -8})
	checkTensor(t, "uint4 wraps", castTo(t, 25, tensor.Of([]int{3}, []int32{-1, 16, 9}), tensor.Uint4, nil), tensor.Uint4, []int{3}, []uint8{15, 0, 9})
	checkTensor(t, "int2 wraps", castTo(t, 25, tensor.Of([]int{3}, []int32{2, -3, 1}), tensor.Int2, nil), tensor.Int2, []int{3}, []int8{-2, 1, 1})
	checkTensor(t, "uint2 wraps", castTo(t, 25, tensor.Of([]int{2}, []int32{5, -1}), tensor.Uint2, nil), tensor.Uint2, []int{2}, []uint8{1, 3})
	i4 := tensor.Must(tensor.FromSlice(tensor.Int4, []int{2}, []int8{-8, 7}))
	checkTensor(t, "int4→f32", castTo(t, 25, i4, tensor.Float, nil), tensor.Float, []int{2}, []float64{-8, 7})
}

func TestCastFloat16String(t *testing.T) {
	// 0.1 in float16 is 0.0999755859375; numpy prints the shortest digits
	// that identify it among float16 values.
	h := f32([]int{3}, 0.0999755859375, 1, 65504).WithDType(tensor.Float16)
	checkTensor(t, "f16→string", castTo(t, 25, h, tensor.String, nil), tensor.String, []int{3}, []string{"0.1", "1.0", "65500.0"})
}

// TestCastChunks casts inputs longer than castChunk (narrow integers and
// float32 are widened a chunk at a time) and checks every element, the ones at
// the chunk seams included, against Go's own conversions.
func TestCastChunks(t *testing.T) {
	const n = 2*castChunk + 41
	i16 := make([]int16, n)
	u8 := make([]uint8, n)
	fl := make([]float32, n)
	wantI8 := make([]int8, n)
	wantF := make([]float64, n)
	wantI32 := make([]int32, n)
	wantU4 := make([]uint8, n)
	wantS := make([]string, n)
	for i := range n {
		i16[i] = int16(i*97 - 30000)
		u8[i] = uint8(i * 7)
		fl[i] = float32(i)*0.75 - 500
		wantI8[i] = int8(i16[i])
		wantF[i] = float64(u8[i])
		wantI32[i] = int32(fl[i])
		wantU4[i] = uint8(i16[i]) & 0xf
		wantS[i] = strconv.Itoa(int(u8[i]))
	}
	sh := []int{3, n / 3}
	checkTensor(t, "i16→i8", castTo(t, 25, tensor.Of(sh, i16), tensor.Int8, nil), tensor.Int8, sh, wantI8)
	checkTensor(t, "i16→u4", castTo(t, 25, tensor.Of(sh, i16), tensor.Uint4, nil), tensor.Uint4, sh, wantU4)
	checkTensor(t, "u8→f32", castTo(t, 25, tensor.Of(sh, u8), tensor.Float, nil), tensor.Float, sh, wantF)
	checkTensor(t, "u8→string", castTo(t, 25, tensor.Of(sh, u8), tensor.String, nil), tensor.String, sh, wantS)
	checkTensor(t, "f32→i32", castTo(t, 25, tensor.Of(sh, fl), tensor.Int32, nil), tensor.Int32, sh, wantI32)
}
