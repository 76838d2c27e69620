package elementwise

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/gort-dev/gort/ops/opsutil/minifloat"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Cast converts between every dtype gort stores. Versions add dtypes (string 9,
// bfloat16 13, float8 + saturate 19, int4 21, float4 23, e8m0 + round_mode 24,
// int2 25); the one change of meaning is that before 24, with saturate=1, ±Inf
// becomes NaN for the FNUZ float8 types instead of ±max. Cast-1 names the
// target dtype with a string.
//
// Conversions go source → (float64 | integer) → target, so integers never
// pass through a float and wrap like two's complement as the spec asks.

func init() {
	op.Register("Cast", []int{1, 6, 9, 13, 19, 21, 23, 24, 25}, buildCast)
	shapes.Register("", "Cast", inferCast)
	op.Register("CastLike", []int{15, 19, 21, 23, 24, 25}, buildCastLike)
	shapes.Register("", "CastLike", inferCastLike)
}

type castOpts struct {
	saturate  bool
	infToNaN  bool   // FNUZ float8 turns ±Inf into NaN even when saturating (< 24)
	roundMode string // for float8e8m0
}

func readCastOpts(n *op.Node) (castOpts, error) {
	a := &op.Attribs{N: n}
	o := castOpts{
		saturate:  a.Int("saturate", 1) != 0,
		infToNaN:  n.Version < 24,
		roundMode: a.String("round_mode", "up"),
	}
	switch o.roundMode {
	case "up", "down", "nearest":
	default:
		return o, n.Errorf("round_mode must be up, down or nearest, got %q", o.roundMode)
	}
	return o, a.Err
}

func buildCast(n *op.Node) (any, error) {
	var to tensor.DType
	attr, ok := n.Attrs["to"]
	if !ok {
		return nil, n.Errorf("Cast needs the attribute to")
	}
	if attr.GetType() == pb.AttributeProto_STRING {
		v, ok := pb.TensorProto_DataType_value[strings.ToUpper(string(attr.GetS()))]
		if !ok {
			return nil, n.Errorf("Cast to unknown dtype %q", attr.GetS())
		}
		to = tensor.DType(v)
	} else {
		v, err := n.Int("to", 0)
		if err != nil {
			return nil, err
		}
		to = tensor.DType(v)
	}
	if !castable(to) {
		return nil, n.Errorf("Cast to %s is not supported", to)
	}
	opts, err := readCastOpts(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		x, err := input0(in)
		if err != nil {
			return nil, err
		}
		out, err := castTensor(ctx, x, to, opts)
		return []*tensor.Tensor{out}, err
	}), nil
}

func buildCastLike(n *op.Node) (any, error) {
	opts, err := readCastOpts(n)
	if err != nil {
		return nil, err
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) != 2 || in[0] == nil || in[1] == nil {
			return nil, op.Errorf("CastLike needs two inputs")
		}
		out, err := castTensor(ctx, in[0], in[1].DType(), opts)
		return []*tensor.Tensor{out}, err
	}), nil
}

func castable(dt tensor.DType) bool {
	return dt.Valid() && dt != tensor.Undefined && dt != tensor.Complex64 && dt != tensor.Complex128
}

func castTensor(ctx *op.Context, x *tensor.Tensor, to tensor.DType, o castOpts) (*tensor.Tensor, error) {
	from := x.DType()
	if !castable(from) || !castable(to) {
		return nil, op.Errorf("Cast from %s to %s is not supported", from, to)
	}
	if from == to {
		return x, nil
	}
	out := ctx.New(to, x.Shape()...)
	if to == tensor.String && (from == tensor.Float16 || from == tensor.BFloat16) {
		f := minifloat.F16
		if from == tensor.BFloat16 {
			f = minifloat.BF16
		}
		od := out.Strings()
		for i, v := range x.F32() {
			od[i] = pyFloatIn(float64(v), f)
		}
		return out, nil
	}
	switch d := x.Data().(type) {
	case []float32:
		castF32(d, out, o)
	case []float64:
		castWide(d, 0, true, 64, out, o)
	case []int8:
		castVia[int64](d, false, 0, out, o)
	case []int16:
		castVia[int64](d, false, 0, out, o)
	case []int32:
		castVia[int64](d, false, 0, out, o)
	case []int64:
		castWide(d, 0, false, 0, out, o)
	case []uint8:
		if from.IsCodeType() {
			v, err := decodeCodes(x)
			if err != nil {
				return nil, err
			}
			castWide(v, 0, true, 64, out, o)
		} else {
			castVia[uint64](d, false, 0, out, o)
		}
	case []uint16:
		castVia[uint64](d, false, 0, out, o)
	case []uint32:
		castVia[uint64](d, false, 0, out, o)
	case []uint64:
		castWide(d, 0, false, 0, out, o)
	case []bool:
		if to == tensor.String {
			od := out.Strings()
			for i, v := range d {
				od[i] = "False"
				if v {
					od[i] = "True"
				}
			}
			return out, nil
		}
		u := make([]uint8, len(d))
		for i, v := range d {
			if v {
				u[i] = 1
			}
		}
		castVia[uint64](u, false, 0, out, o)
	case []string:
		if err := castString(d, out, o); err != nil {
			return nil, err
		}
	default:
		return nil, op.Errorf("Cast from %s is not supported", from)
	}
	return out, nil
}

// castChunk is how many elements castVia widens at a time, on the
// stack: small enough for the cache, large enough that the per-chunk dispatch
// costs nothing.
const castChunk = 512

// castF32 casts float32 data (also float16 and bfloat16, stored as float32).
// The targets a model's float paths use (float32, float16, bfloat16, float64)
// get their own loops; every other target goes through castWide, since
// widening a float32 to float64 is exact and the float32 width (bits) keeps
// the string form (the digits that round-trip a float32).
func castF32(src []float32, out *tensor.Tensor, o castOpts) {
	switch to := out.DType(); to {
	case tensor.Float:
		copy(out.F32(), src)
		return
	case tensor.Float16, tensor.BFloat16:
		od := out.F32()
		copy(od, src)
		tensor.RoundTo(to, od)
		return
	case tensor.Double:
		od := out.F64()
		for i, v := range src {
			od[i] = float64(v)
		}
		return
	}
	castVia[float64](src, true, 32, out, o)
}

// castVia casts values narrower than 64 bits by widening them a chunk at a
// time to W (int64 for signed, uint64 for unsigned integers, float64 for
// float32): the widened value is the same number, and converting it to any
// target (wrapping to an integer, rounding once to a float, formatting at
// the source's width in bits when isFloat) gives what converting the narrow
// one would, so castWide needs only three instantiations instead of one per
// type.
func castVia[W int64 | uint64 | float64, S int8 | int16 | int32 | uint8 | uint16 | uint32 | float32](src []S, isFloat bool, bits int, out *tensor.Tensor, o castOpts) {
	var buf [castChunk]W
	for off := 0; off < len(src); off += castChunk {
		s := src[off:min(off+castChunk, len(src))]
		w := buf[:len(s)]
		for i, v := range s {
			w[i] = W(v)
		}
		castWide(w, off, isFloat, bits, out, o)
	}
}

// castWide writes src (floats when isFloat, formatted at the given width in
// bits as strings) into out[off:off+len(src)], whatever out's dtype.
func castWide[S int64 | uint64 | float64](src []S, off int, isFloat bool, bits int, out *tensor.Tensor, o castOpts) {
	to := out.DType()
	end := off + len(src)
	switch to {
	case tensor.Float:
		od := out.F32()[off:end]
		for i, v := range src {
			od[i] = float32(v)
		}
		return
	case tensor.Float16, tensor.BFloat16:
		// Round from float64 directly; through float32 it could round twice.
		od := out.F32()[off:end]
		f := minifloat.F16
		if to == tensor.BFloat16 {
			f = minifloat.BF16
		}
		for i, v := range src {
			od[i] = float32(f.Decode(f.Encode(float64(v), false, false)))
		}
		return
	case tensor.Double:
		od := out.F64()[off:end]
		for i, v := range src {
			od[i] = float64(v)
		}
		return
	case tensor.Bool:
		od := out.Bools()[off:end]
		for i, v := range src {
			od[i] = v != 0
		}
		return
	case tensor.String:
		od := out.Strings()[off:end]
		for i, v := range src {
			switch {
			case isFloat:
				od[i] = pyFloat(float64(v), bits)
			case isSignedT[S]():
				od[i] = strconv.FormatInt(int64(v), 10)
			default:
				od[i] = strconv.FormatUint(uint64(v), 10)
			}
		}
		return
	case tensor.Float8E8M0:
		od := tensor.Data[uint8](out)[off:end]
		for i, v := range src {
			od[i] = minifloat.EncodeE8M0(float64(v), o.roundMode, o.saturate)
		}
		return
	}
	if f, ok := minifloat.ForDType(to); ok {
		od := tensor.Data[uint8](out)[off:end]
		for i, v := range src {
			od[i] = uint8(f.Encode(float64(v), o.saturate, o.infToNaN))
		}
		return
	}
	switch od := out.Data().(type) {
	case []int8:
		od = od[off:end]
		toInt(od, src, isFloat)
		switch to {
		case tensor.Int4:
			for i, v := range od {
				od[i] = (v&0xf ^ 8) - 8
			}
		case tensor.Int2:
			for i, v := range od {
				od[i] = (v&3 ^ 2) - 2
			}
		}
	case []int16:
		toInt(od[off:end], src, isFloat)
	case []int32:
		toInt(od[off:end], src, isFloat)
	case []int64:
		toInt(od[off:end], src, isFloat)
	case []uint8:
		od = od[off:end]
		toInt(od, src, isFloat)
		switch to {
		case tensor.Uint4:
			for i, v := range od {
				od[i] = v & 0xf
			}
		case tensor.Uint2:
			for i, v := range od {
				od[i] = v & 3
			}
		}
	case []uint16:
		toInt(od[off:end], src, isFloat)
	case []uint32:
		toInt(od[off:end], src, isFloat)
	case []uint64:
		toInt(od[off:end], src, isFloat)
	}
}

// toInt converts to an integer type: integers wrap; floats truncate toward
// zero (out of range is undefined in the spec; see floatToInt).
func toInt[D, S tensor.Number](dst []D, src []S, isFloat bool) {
	if !isFloat {
		for i, v := range src {
			dst[i] = D(v)
		}
		return
	}
	for i, v := range src {
		f := float64(v)
		if f >= 9.223372036854775807e18 && f < 1.8446744073709551615e19 {
			dst[i] = D(uint64(f))
			continue
		}
		dst[i] = D(floatToInt(f))
	}
}

// castString parses decimal and scientific numbers and the case-insensitive
// literals INF, +INF, -INF and NaN (strconv accepts them all).
func castString(src []string, out *tensor.Tensor, o castOpts) error {
	to := out.DType()
	if to == tensor.Bool {
		od := out.Bools()
		for i, s := range src {
			if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
				od[i] = b
				continue
			}
			f, err := parseFloat(s, 64)
			if err != nil {
				return err
			}
			od[i] = f != 0
		}
		return nil
	}
	if isInt(to) || to == tensor.Int4 || to == tensor.Uint4 || to == tensor.Int2 || to == tensor.Uint2 {
		v := make([]int64, len(src))
		for i, s := range src {
			s = strings.TrimSpace(s)
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				v[i] = n
			} else if u, err := strconv.ParseUint(s, 10, 64); err == nil {
				v[i] = int64(u)
			} else {
				f, err := parseFloat(s, 64)
				if err != nil {
					return err
				}
				v[i] = floatToInt(f)
			}
		}
		castWide(v, 0, false, 0, out, o)
		return nil
	}
	bits := 64
	if to == tensor.Float {
		bits = 32 // parse straight to float32 so the value rounds once
	}
	v := make([]float64, len(src))
	for i, s := range src {
		f, err := parseFloat(s, bits)
		if err != nil {
			return err
		}
		v[i] = f
	}
	castWide(v, 0, true, 64, out, o)
	return nil
}

func parseFloat(s string, bits int) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), bits)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return f, nil // ±Inf or 0, as the spec's "OOR" rules want
		}
		return 0, op.Errorf("cannot cast string %q to a number", s)
	}
	return f, nil
}

// pyFloat formats like Python's repr and numpy's str: the shortest digits that
// round-trip at the given precision, positional for exponents in [-4, 16) with
// at least one fractional digit ("1.0"), scientific otherwise ("1e-05").
func pyFloat(v float64, bits int) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return pyLayout(strconv.FormatFloat(v, 'e', -1, bits))
}

// pyFloatIn is pyFloat for a value of a small format: the fewest digits that
// round back to the same value in that format, as numpy prints float16.
func pyFloatIn(v float64, f minifloat.Format) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return pyFloat(v, 64)
	}
	want := f.Encode(v, false, false)
	for prec := 0; prec < 17; prec++ {
		s := strconv.FormatFloat(v, 'e', prec, 64)
		if p, err := strconv.ParseFloat(s, 64); err == nil && f.Encode(p, false, false) == want {
			return pyLayout(s)
		}
	}
	return pyFloat(v, 64)
}

// pyLayout turns strconv's "d.ddde±XX" into Python's layout.
func pyLayout(s string) string {
	mant, expStr, _ := strings.Cut(s, "e")
	exp, _ := strconv.Atoi(expStr)
	sign := ""
	if strings.HasPrefix(mant, "-") {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		e := strconv.Itoa(exp)
		if len(e) < 2 {
			e = "0" + e
		}
		return sign + m + "e" + es + e
	}
	var ip, fp string
	if exp >= 0 {
		if len(digits) <= exp+1 {
			ip, fp = digits+strings.Repeat("0", exp+1-len(digits)), "0"
		} else {
			ip, fp = digits[:exp+1], digits[exp+1:]
		}
	} else {
		ip, fp = "0", strings.Repeat("0", -exp-1)+digits
	}
	return sign + ip + "." + fp
}

// inferCast: input 0's shape and symbolic elements, of element type "to".
func inferCast(c *shapes.Ctx) {
	c.SetElem(0, tensor.DType(c.AttrInt("to", 0)))
	shapes.Pass(c)
}

// inferCastLike: input 0's shape and symbolic elements, of input 1's element type.
func inferCastLike(c *shapes.Ctx) {
	if t := c.Input(1); t != nil {
		c.SetElem(0, t.Type.Elem)
	}
	shapes.Pass(c)
}
