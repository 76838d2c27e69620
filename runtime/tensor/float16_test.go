package tensor

import (
	"math"
	"testing"
)

// Expected bit patterns are derived by hand from IEEE 754 binary16 (1-5-10)
// and bfloat16 (1-8-7), not from the code under test.

func TestF32ToF16(t *testing.T) {
	cases := []struct {
		name string
		in   float32
		want uint16
	}{
		{"zero", 0, 0x0000},
		{"negative zero", float32(math.Copysign(0, -1)), 0x8000},
		{"one", 1, 0x3c00},
		{"minus two", -2, 0xc000},
		{"third", 1.0 / 3, 0x3555},
		{"max", 65504, 0x7bff},
		{"below max+half ulp rounds down", 65519, 0x7bff},
		{"max+half ulp ties to even: overflows to inf", 65520, 0x7c00},
		{"overflow", 1e6, 0x7c00},
		{"negative overflow", -1e6, 0xfc00},
		{"inf", float32(math.Inf(1)), 0x7c00},
		{"-inf", float32(math.Inf(-1)), 0xfc00},
		{"smallest normal", 0x1p-14, 0x0400},
		{"largest subnormal", 1023 * 0x1p-24, 0x03ff},
		{"smallest subnormal", 0x1p-24, 0x0001},
		{"negative subnormal", -3 * 0x1p-24, 0x8003},
		{"half smallest subnormal ties to zero", 0x1p-25, 0x0000},
		{"above half smallest subnormal", 0x1.01p-25, 0x0001},
		{"quarter smallest subnormal", 0x1p-26, 0x0000},
		{"1.5 subnormal ulps ties to even (2)", 3 * 0x1p-25, 0x0002},
		{"2.5 subnormal ulps ties to even (2)", 5 * 0x1p-25, 0x0002},
		{"subnormal rounds up into normal", 2047 * 0x1p-25, 0x0400},
		{"float32 subnormal flushes", 1e-45, 0x0000},
		{"1+half ulp ties to even (down)", 1 + 0x1p-11, 0x3c00},
		{"1+3 half ulps ties to even (up)", 1 + 3*0x1p-11, 0x3c02},
		{"1+just over half ulp", 1 + 0x1p-11 + 0x1p-20, 0x3c01},
		{"rounding carries into exponent", 2 - 0x1p-12, 0x4000},
	}
	for _, c := range cases {
		if got := F32ToF16(c.in); got != c.want {
			t.Errorf("%s: F32ToF16(%g) = %#04x, want %#04x", c.name, c.in, got, c.want)
		}
	}
	if h := F32ToF16(float32(math.NaN())); h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
		t.Errorf("NaN → %#04x, not a NaN", h)
	}
	// A NaN whose payload lives only in the low bits must stay a NaN.
	if h := F32ToF16(math.Float32frombits(0x7f800001)); h&0x3ff == 0 {
		t.Errorf("low-payload NaN → %#04x, became infinity", h)
	}
}

func TestF16ToF32(t *testing.T) {
	cases := []struct {
		in   uint16
		want float32
	}{
		{0x0000, 0},
		{0x3c00, 1},
		{0xc000, -2},
		{0x7bff, 65504},
		{0x0400, 0x1p-14},
		{0x0001, 0x1p-24},
		{0x03ff, 1023 * 0x1p-24},
		{0x8001, -0x1p-24},
		{0x3555, 0.333251953125},
		{0x7c00, float32(math.Inf(1))},
		{0xfc00, float32(math.Inf(-1))},
	}
	for _, c := range cases {
		if got := F16ToF32(c.in); got != c.want {
			t.Errorf("F16ToF32(%#04x) = %g, want %g", c.in, got, c.want)
		}
	}
	if got := F16ToF32(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("F16ToF32(0x8000) = %g, want -0", got)
	}
	for _, h := range []uint16{0x7e00, 0x7c01, 0xfe00} {
		if got := F16ToF32(h); !math.IsNaN(float64(got)) {
			t.Errorf("F16ToF32(%#04x) = %g, want NaN", h, got)
		}
	}
}

// Every float16 value converts to float32 exactly and back to itself.
func TestF16RoundTripAll(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := F16ToF32(h)
		if math.IsNaN(float64(f)) {
			if h&0x7c00 != 0x7c00 || h&0x3ff == 0 {
				t.Fatalf("%#04x decoded to NaN", h)
			}
			continue
		}
		if back := F32ToF16(f); back != h {
			t.Fatalf("%#04x → %g → %#04x", h, f, back)
		}
	}
}

func TestF32ToBF16(t *testing.T) {
	cases := []struct {
		name string
		in   float32
		want uint16
	}{
		{"one", 1, 0x3f80},
		{"minus two", -2, 0xc000},
		{"1.5", 1.5, 0x3fc0},
		{"1+half ulp ties to even (down)", 1 + 0x1p-8, 0x3f80},
		{"1+3 half ulps ties to even (up)", 1 + 3*0x1p-8, 0x3f82},
		{"1+just over half ulp", 1 + 0x1p-8 + 0x1p-20, 0x3f81},
		{"max bf16", math.Float32frombits(0x7f7f0000), 0x7f7f},
		{"max float32 overflows to inf", math.MaxFloat32, 0x7f80},
		{"inf", float32(math.Inf(1)), 0x7f80},
		{"-inf", float32(math.Inf(-1)), 0xff80},
		{"subnormal", 1e-40, 0x0001},
		{"negative zero", float32(math.Copysign(0, -1)), 0x8000},
	}
	for _, c := range cases {
		if got := F32ToBF16(c.in); got != c.want {
			t.Errorf("%s: F32ToBF16(%g) = %#04x, want %#04x", c.name, c.in, got, c.want)
		}
	}
	for _, bits := range []uint32{0x7fc00000, 0x7f800001, 0xff800001, 0x7fffffff} {
		h := F32ToBF16(math.Float32frombits(bits))
		if h&0x7f80 != 0x7f80 || h&0x7f == 0 {
			t.Errorf("NaN %#08x → %#04x, not a NaN", bits, h)
		}
	}
}

func TestBF16RoundTripAll(t *testing.T) {
	for i := 0; i < 1<<16; i++ {
		h := uint16(i)
		f := BF16ToF32(h)
		if math.IsNaN(float64(f)) {
			continue
		}
		if back := F32ToBF16(f); back != h {
			t.Fatalf("%#04x → %g → %#04x", h, f, back)
		}
	}
}

func TestRoundTo(t *testing.T) {
	v := []float32{65520, 1e-8, 1 + 0x1p-11, 0.1}
	RoundTo(Float16, v)
	want := []float32{float32(math.Inf(1)), 0, 1, 0.0999755859375}
	for i := range v {
		if v[i] != want[i] {
			t.Errorf("float16 [%d] = %g, want %g", i, v[i], want[i])
		}
	}
	b := []float32{1 + 3*0x1p-8, 0.1}
	RoundTo(BFloat16, b)
	if b[0] != 1+2*0x1p-7 || b[1] != 0.10009765625 {
		t.Errorf("bfloat16 rounding gave %v", b)
	}
	f := []float32{0.1}
	RoundTo(Float, f)
	if f[0] != 0.1 {
		t.Errorf("Float changed: %v", f)
	}
}
