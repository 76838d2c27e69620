package minifloat

import (
	"math"
	"testing"
)

// Expected codes are worked out by hand from each format's layout
// (sign | exponent | mantissa, with the bias given in the ONNX float8 spec).
func TestEncode(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	cases := []struct {
		name     string
		f        Format
		v        float64
		sat, i2n bool
		want     uint32
	}{
		{"e4m3fn one", E4M3FN, 1, true, false, 0x38},
		{"e4m3fn -1.5", E4M3FN, -1.5, true, false, 0xBC},
		{"e4m3fn max", E4M3FN, 448, true, false, 0x7E},
		{"e4m3fn over saturates", E4M3FN, 500, true, false, 0x7E},
		{"e4m3fn over is NaN", E4M3FN, 500, false, false, 0x7F},
		{"e4m3fn -inf saturates", E4M3FN, -inf, true, false, 0xFE},
		{"e4m3fn nan", E4M3FN, nan, true, false, 0x7F},
		{"e4m3fn -0", E4M3FN, math.Copysign(0, -1), true, false, 0x80},
		{"e4m3fn min subnormal", E4M3FN, math.Ldexp(1, -9), true, false, 0x01},
		{"e4m3fn half quantum ties to 0", E4M3FN, math.Ldexp(1, -10), true, false, 0x00},
		{"e4m3fn 1.5 quanta ties to 2", E4M3FN, 3 * math.Ldexp(1, -10), true, false, 0x02},
		{"e4m3fn 1+1/16 ties to even 1", E4M3FN, 1 + 1.0/16, true, false, 0x38},
		{"e4m3fn 1+3/16 ties to even 1.25", E4M3FN, 1 + 3.0/16, true, false, 0x3A},
		{"e4m3fnuz one", E4M3FNUZ, 1, true, false, 0x40},
		{"e4m3fnuz max", E4M3FNUZ, 240, true, false, 0x7F},
		{"e4m3fnuz -0 is +0", E4M3FNUZ, math.Copysign(0, -1), true, false, 0x00},
		{"e4m3fnuz inf saturating", E4M3FNUZ, inf, true, false, 0x7F},
		{"e4m3fnuz inf to NaN", E4M3FNUZ, inf, true, true, 0x80},
		{"e4m3fnuz over no saturate", E4M3FNUZ, 1000, false, false, 0x80},
		{"e5m2 one", E5M2, 1, true, false, 0x3C},
		{"e5m2 max", E5M2, 57344, true, false, 0x7B},
		{"e5m2 over is inf", E5M2, 1e6, false, false, 0x7C},
		{"e5m2 -inf no saturate", E5M2, -inf, false, false, 0xFC},
		{"e5m2 nan", E5M2, nan, false, false, 0x7E},
		{"e5m2fnuz one", E5M2FNUZ, 1, true, false, 0x40},
		{"e5m2fnuz max", E5M2FNUZ, 57344, true, false, 0x7F},
		{"e2m1 six", E2M1, 6, true, false, 0x7},
		{"e2m1 -0.5", E2M1, -0.5, true, false, 0x9},
		{"e2m1 5 ties to 4", E2M1, 5, true, false, 0x6},
		{"e2m1 2.5 ties to 2", E2M1, 2.5, true, false, 0x4},
		{"e2m1 over saturates regardless", E2M1, 100, false, false, 0x7},
		{"e2m1 nan is -0", E2M1, nan, true, false, 0x8},
		{"f16 one", F16, 1, false, false, 0x3C00},
		{"bf16 one", BF16, 1, false, false, 0x3F80},
	}
	for _, c := range cases {
		if got := c.f.Encode(c.v, c.sat, c.i2n); got != c.want {
			t.Errorf("%s: Encode(%v) = %#x, want %#x", c.name, c.v, got, c.want)
		}
	}
}

func TestDecode(t *testing.T) {
	cases := []struct {
		f    Format
		c    uint32
		want float64
	}{
		{E4M3FN, 0x38, 1}, {E4M3FN, 0x7E, 448}, {E4M3FN, 0x01, math.Ldexp(1, -9)}, {E4M3FN, 0xB8, -1},
		{E4M3FNUZ, 0x40, 1}, {E4M3FNUZ, 0x7F, 240},
		{E5M2, 0x3C, 1}, {E5M2, 0x7B, 57344}, {E5M2, 0x7C, math.Inf(1)}, {E5M2, 0xFC, math.Inf(-1)},
		{E5M2FNUZ, 0x7F, 57344},
		{E2M1, 0x1, 0.5}, {E2M1, 0x5, 3}, {E2M1, 0xF, -6},
	}
	for _, c := range cases {
		if got := c.f.Decode(c.c); got != c.want {
			t.Errorf("%+v.Decode(%#x) = %v, want %v", c.f, c.c, got, c.want)
		}
	}
	for _, nan := range []struct {
		f Format
		c uint32
	}{{E4M3FN, 0x7F}, {E4M3FN, 0xFF}, {E4M3FNUZ, 0x80}, {E5M2FNUZ, 0x80}, {E5M2, 0x7D}} {
		if v := nan.f.Decode(nan.c); !math.IsNaN(v) {
			t.Errorf("%+v.Decode(%#x) = %v, want NaN", nan.f, nan.c, v)
		}
	}
}

// Every finite code must survive a decode/encode round trip.
func TestRoundTrip(t *testing.T) {
	for _, f := range []Format{E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ, E2M1} {
		n := uint32(1) << (1 + f.ExpBits + f.MantBits)
		for c := uint32(0); c < n; c++ {
			v := f.Decode(c)
			if math.IsNaN(v) || (f.Kind == FNUZ && c == f.SignBit()) {
				continue
			}
			if got := f.Encode(v, false, false); got != c {
				t.Errorf("%+v: code %#x → %v → %#x", f, c, v, got)
			}
		}
	}
}

func TestE8M0(t *testing.T) {
	cases := []struct {
		v    float64
		mode string
		sat  bool
		want uint8
	}{
		{1, RoundUp, true, 127},
		{-4, RoundUp, true, 129},
		{3, RoundUp, true, 129},
		{3, RoundDown, true, 128},
		{3, RoundNearest, true, 129}, // 3 = 0.75·2^2: the tie goes up
		{2.9, RoundNearest, true, 128},
		{0, RoundUp, true, 0},
		{0, RoundUp, false, 0xff},
		{math.Inf(1), RoundUp, true, 0xfe},
		{math.Ldexp(1, 200), RoundUp, false, 0xff},
		{math.NaN(), RoundUp, true, 0xff},
	}
	for _, c := range cases {
		if got := EncodeE8M0(c.v, c.mode, c.sat); got != c.want {
			t.Errorf("EncodeE8M0(%v, %s, %v) = %d, want %d", c.v, c.mode, c.sat, got, c.want)
		}
	}
	if DecodeE8M0(127) != 1 || DecodeE8M0(130) != 8 || !math.IsNaN(DecodeE8M0(0xff)) {
		t.Error("DecodeE8M0 wrong")
	}
}
