package protoconv

import (
	"errors"
	"math"
	"math/cmplx"
	"reflect"
	rt "runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// The expected values below are written out by hand from the ONNX wire
// format (little-endian raw_data, typed fields as documented in onnx.proto),
// not produced by the encoder, so that decoding is checked independently.

func inf32(sign int) float32 { return float32(math.Inf(sign)) }

func TestTensorDecode(t *testing.T) {
	type tc struct {
		name string
		tp   *pb.TensorProto
		want any // expected storage slice
		dims []int
	}
	dt := func(d tensor.DType) int32 { return int32(d) }
	cases := []tc{
		{"float raw", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{2},
			RawData: []byte{0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0}}, []float32{1.5, -2}, []int{2}},
		{"float typed", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{2}, FloatData: []float32{1.5, -2}},
			[]float32{1.5, -2}, []int{2}},
		{"float scalar", &pb.TensorProto{DataType: dt(tensor.Float), RawData: []byte{0, 0, 0x80, 0x3f}}, []float32{1}, []int{}},
		{"double raw", &pb.TensorProto{DataType: dt(tensor.Double), Dims: []int64{1},
			RawData: []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f}}, []float64{1.5}, []int{1}},
		{"double typed", &pb.TensorProto{DataType: dt(tensor.Double), Dims: []int64{2}, DoubleData: []float64{1.5, -1e300}},
			[]float64{1.5, -1e300}, []int{2}},
		{"float16 raw", &pb.TensorProto{DataType: dt(tensor.Float16), Dims: []int64{4},
			RawData: []byte{0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c, 0x01, 0x00}},
			[]float32{1, -2, inf32(1), 0x1p-24}, []int{4}},
		{"float16 typed", &pb.TensorProto{DataType: dt(tensor.Float16), Dims: []int64{4}, Int32Data: []int32{0x3c00, 0xc000, 0xfc00, 0x7bff}},
			[]float32{1, -2, inf32(-1), 65504}, []int{4}},
		{"bfloat16 raw", &pb.TensorProto{DataType: dt(tensor.BFloat16), Dims: []int64{2},
			RawData: []byte{0x80, 0x3f, 0x00, 0xc0}}, []float32{1, -2}, []int{2}},
		{"bfloat16 typed", &pb.TensorProto{DataType: dt(tensor.BFloat16), Dims: []int64{2}, Int32Data: []int32{0x3fc0, 0x7f80}},
			[]float32{1.5, inf32(1)}, []int{2}},
		{"int8 raw", &pb.TensorProto{DataType: dt(tensor.Int8), Dims: []int64{3}, RawData: []byte{0xff, 0x7f, 0x80}},
			[]int8{-1, 127, -128}, []int{3}},
		{"int8 typed", &pb.TensorProto{DataType: dt(tensor.Int8), Dims: []int64{3}, Int32Data: []int32{-1, 127, -128}},
			[]int8{-1, 127, -128}, []int{3}},
		{"int16 raw", &pb.TensorProto{DataType: dt(tensor.Int16), Dims: []int64{2}, RawData: []byte{0xff, 0xff, 0x00, 0x80}},
			[]int16{-1, -32768}, []int{2}},
		{"int16 typed", &pb.TensorProto{DataType: dt(tensor.Int16), Dims: []int64{2}, Int32Data: []int32{-1, 32767}},
			[]int16{-1, 32767}, []int{2}},
		{"int32 raw", &pb.TensorProto{DataType: dt(tensor.Int32), Dims: []int64{2}, RawData: []byte{0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0}},
			[]int32{-1, 2}, []int{2}},
		{"int32 typed", &pb.TensorProto{DataType: dt(tensor.Int32), Dims: []int64{2}, Int32Data: []int32{math.MinInt32, 7}},
			[]int32{math.MinInt32, 7}, []int{2}},
		{"int64 raw", &pb.TensorProto{DataType: dt(tensor.Int64), Dims: []int64{2},
			RawData: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 1, 0, 0}}, []int64{-1, 1 << 40}, []int{2}},
		{"int64 typed", &pb.TensorProto{DataType: dt(tensor.Int64), Dims: []int64{1, 2}, Int64Data: []int64{math.MaxInt64, -3}},
			[]int64{math.MaxInt64, -3}, []int{1, 2}},
		{"uint8 raw", &pb.TensorProto{DataType: dt(tensor.Uint8), Dims: []int64{2}, RawData: []byte{0, 255}}, []uint8{0, 255}, []int{2}},
		{"uint8 typed", &pb.TensorProto{DataType: dt(tensor.Uint8), Dims: []int64{2}, Int32Data: []int32{0, 255}}, []uint8{0, 255}, []int{2}},
		{"uint16 raw", &pb.TensorProto{DataType: dt(tensor.Uint16), Dims: []int64{1}, RawData: []byte{0xff, 0xff}}, []uint16{65535}, []int{1}},
		{"uint16 typed", &pb.TensorProto{DataType: dt(tensor.Uint16), Dims: []int64{1}, Int32Data: []int32{65535}}, []uint16{65535}, []int{1}},
		{"uint32 raw", &pb.TensorProto{DataType: dt(tensor.Uint32), Dims: []int64{1}, RawData: []byte{0xff, 0xff, 0xff, 0xff}},
			[]uint32{math.MaxUint32}, []int{1}},
		{"uint32 typed", &pb.TensorProto{DataType: dt(tensor.Uint32), Dims: []int64{1}, Uint64Data: []uint64{math.MaxUint32}},
			[]uint32{math.MaxUint32}, []int{1}},
		{"uint64 raw", &pb.TensorProto{DataType: dt(tensor.Uint64), Dims: []int64{1}, RawData: []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
			[]uint64{math.MaxUint64}, []int{1}},
		{"uint64 typed", &pb.TensorProto{DataType: dt(tensor.Uint64), Dims: []int64{1}, Uint64Data: []uint64{math.MaxUint64}},
			[]uint64{math.MaxUint64}, []int{1}},
		{"bool raw", &pb.TensorProto{DataType: dt(tensor.Bool), Dims: []int64{3}, RawData: []byte{0, 1, 1}}, []bool{false, true, true}, []int{3}},
		{"bool typed", &pb.TensorProto{DataType: dt(tensor.Bool), Dims: []int64{2}, Int32Data: []int32{1, 0}}, []bool{true, false}, []int{2}},
		{"string typed", &pb.TensorProto{DataType: dt(tensor.String), Dims: []int64{3}, StringData: [][]byte{[]byte("a"), {}, []byte("héllo")}},
			[]string{"a", "", "héllo"}, []int{3}},
		{"string empty", &pb.TensorProto{DataType: dt(tensor.String), Dims: []int64{0}}, []string{}, []int{0}},
		{"float empty", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{2, 0}}, []float32{}, []int{2, 0}},
		{"complex64 raw", &pb.TensorProto{DataType: dt(tensor.Complex64), Dims: []int64{1},
			RawData: []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0}}, []complex64{complex(1, -2)}, []int{1}},
		{"complex64 typed", &pb.TensorProto{DataType: dt(tensor.Complex64), Dims: []int64{2}, FloatData: []float32{1, -2, 3, 4}},
			[]complex64{complex(1, -2), complex(3, 4)}, []int{2}},
		{"complex128 raw", &pb.TensorProto{DataType: dt(tensor.Complex128), Dims: []int64{1},
			RawData: []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0, 0, 0, 0, 0, 0, 0, 0xc0}}, []complex128{complex(1.5, -2)}, []int{1}},
		{"complex128 typed", &pb.TensorProto{DataType: dt(tensor.Complex128), Dims: []int64{1}, DoubleData: []float64{0.5, 4}},
			[]complex128{complex(0.5, 4)}, []int{1}},
		// 8-bit floats are kept as their codes.
		{"float8e4m3fn raw", &pb.TensorProto{DataType: dt(tensor.Float8E4M3FN), Dims: []int64{2}, RawData: []byte{0x38, 0x7f}},
			[]uint8{0x38, 0x7f}, []int{2}},
		{"float8e4m3fn typed", &pb.TensorProto{DataType: dt(tensor.Float8E4M3FN), Dims: []int64{2}, Int32Data: []int32{0x38, 0xff}},
			[]uint8{0x38, 0xff}, []int{2}},
		{"float8e4m3fnuz raw", &pb.TensorProto{DataType: dt(tensor.Float8E4M3FNUZ), Dims: []int64{1}, RawData: []byte{0x80}}, []uint8{0x80}, []int{1}},
		{"float8e5m2 typed", &pb.TensorProto{DataType: dt(tensor.Float8E5M2), Dims: []int64{1}, Int32Data: []int32{0x3c}}, []uint8{0x3c}, []int{1}},
		{"float8e5m2fnuz raw", &pb.TensorProto{DataType: dt(tensor.Float8E5M2FNUZ), Dims: []int64{1}, RawData: []byte{0x40}}, []uint8{0x40}, []int{1}},
		{"float8e8m0 raw", &pb.TensorProto{DataType: dt(tensor.Float8E8M0), Dims: []int64{2}, RawData: []byte{0x7f, 0xff}}, []uint8{0x7f, 0xff}, []int{2}},
		// Sub-byte types: first element in the least significant bits.
		// int4 [-1, 7, -8] = codes 0xF, 0x7, 0x8 → bytes 0x7F, 0x08.
		{"int4 raw odd", &pb.TensorProto{DataType: dt(tensor.Int4), Dims: []int64{3}, RawData: []byte{0x7f, 0x08}},
			[]int8{-1, 7, -8}, []int{3}},
		{"int4 typed odd", &pb.TensorProto{DataType: dt(tensor.Int4), Dims: []int64{3}, Int32Data: []int32{0x7f, 0x08}},
			[]int8{-1, 7, -8}, []int{3}},
		{"uint4 raw odd", &pb.TensorProto{DataType: dt(tensor.Uint4), Dims: []int64{3}, RawData: []byte{0xf1, 0x02}},
			[]uint8{1, 15, 2}, []int{3}},
		{"uint4 typed even", &pb.TensorProto{DataType: dt(tensor.Uint4), Dims: []int64{2, 1}, Int32Data: []int32{0x5a}},
			[]uint8{10, 5}, []int{2, 1}},
		// int2 [-1, 1, -2, 0, 1] = codes 3, 1, 2, 0, 1 → 0b00_10_01_11 = 0x27, 0x01.
		{"int2 raw odd", &pb.TensorProto{DataType: dt(tensor.Int2), Dims: []int64{5}, RawData: []byte{0x27, 0x01}},
			[]int8{-1, 1, -2, 0, 1}, []int{5}},
		{"int2 typed odd", &pb.TensorProto{DataType: dt(tensor.Int2), Dims: []int64{5}, Int32Data: []int32{0x27, 0x01}},
			[]int8{-1, 1, -2, 0, 1}, []int{5}},
		// uint2 [3, 0, 1, 2, 3] → 0b10_01_00_11 = 0x93, 0x03.
		{"uint2 raw odd", &pb.TensorProto{DataType: dt(tensor.Uint2), Dims: []int64{5}, RawData: []byte{0x93, 0x03}},
			[]uint8{3, 0, 1, 2, 3}, []int{5}},
		{"uint2 typed odd", &pb.TensorProto{DataType: dt(tensor.Uint2), Dims: []int64{5}, Int32Data: []int32{0x93, 0x03}},
			[]uint8{3, 0, 1, 2, 3}, []int{5}},
		{"float4e2m1 raw odd", &pb.TensorProto{DataType: dt(tensor.Float4E2M1), Dims: []int64{3}, RawData: []byte{0xf2, 0x07}},
			[]uint8{2, 15, 7}, []int{3}},
		{"float4e2m1 typed", &pb.TensorProto{DataType: dt(tensor.Float4E2M1), Dims: []int64{3}, Int32Data: []int32{0xf2, 0x07}},
			[]uint8{2, 15, 7}, []int{3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.tp.Name = "w"
			got, err := Tensor(c.tp, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.DType() != tensor.DType(c.tp.DataType) {
				t.Errorf("dtype %s, want %s", got.DType(), tensor.DType(c.tp.DataType))
			}
			if !sameShape(got.Shape(), c.dims) {
				t.Errorf("shape %v, want %v", got.Shape(), c.dims)
			}
			if !reflect.DeepEqual(got.Data(), c.want) {
				t.Errorf("data %#v, want %#v", got.Data(), c.want)
			}
		})
	}
}

func TestTensorDecodeErrors(t *testing.T) {
	dt := func(d tensor.DType) int32 { return int32(d) }
	cases := []struct {
		name     string
		tp       *pb.TensorProto
		maxBytes int64
		code     errs.Code
		msg      string
	}{
		{"raw too short", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{2}, RawData: make([]byte, 7)}, 0, errs.BadModel, "need 8"},
		{"raw too long", &pb.TensorProto{DataType: dt(tensor.Int16), Dims: []int64{2}, RawData: make([]byte, 5)}, 0, errs.BadModel, "need 4"},
		{"int4 raw odd count short", &pb.TensorProto{DataType: dt(tensor.Int4), Dims: []int64{3}, RawData: []byte{1}}, 0, errs.BadModel, "need 2"},
		{"typed count", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{3}, FloatData: []float32{1}}, 0, errs.BadModel, "float_data has 1"},
		{"typed complex count", &pb.TensorProto{DataType: dt(tensor.Complex64), Dims: []int64{2}, FloatData: []float32{1, 2, 3}}, 0, errs.BadModel, "dims need 4"},
		{"no data", &pb.TensorProto{DataType: dt(tensor.Int64), Dims: []int64{2}}, 0, errs.BadModel, "int64_data has 0"},
		{"wrong typed field", &pb.TensorProto{DataType: dt(tensor.Int64), Dims: []int64{1}, Int32Data: []int32{1}}, 0, errs.BadModel, "int64_data"},
		{"string raw", &pb.TensorProto{DataType: dt(tensor.String), Dims: []int64{1}, RawData: []byte{'a'}}, 0, errs.BadModel, "raw_data"},
		{"unknown dtype", &pb.TensorProto{DataType: 99, Dims: []int64{1}}, 0, errs.BadModel, "data_type 99"},
		{"undefined dtype", &pb.TensorProto{DataType: 0}, 0, errs.BadModel, "data_type 0"},
		{"negative dim", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{2, -1}}, 0, errs.BadModel, "negative"},
		{"product overflows", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{1 << 40, 1 << 40}}, 0, errs.TooLarge, "overflow"},
		{"huge dim", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{math.MaxInt64}}, 0, errs.TooLarge, ""},
		{"over budget", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{300}, RawData: make([]byte, 1200)}, 1000, errs.TooLarge, "budget"},
		{"external", &pb.TensorProto{DataType: dt(tensor.Float), Dims: []int64{1}, DataLocation: pb.TensorProto_EXTERNAL,
			ExternalData: []*pb.StringStringEntryProto{{Key: "location", Value: "weights.bin"}}}, 0, errs.ExternalData, `"weights.bin"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.tp.Name = "the_tensor"
			_, err := Tensor(c.tp, c.maxBytes)
			var e *errs.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want *errs.Error", err, err)
			}
			if e.Code != c.code {
				t.Errorf("code %s, want %s (%v)", e.Code, c.code, err)
			}
			if e.Tensor != "the_tensor" {
				t.Errorf("error names tensor %q: %v", e.Tensor, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("message %q does not mention %q", err, c.msg)
			}
		})
	}
}

// TestHugeDimsDoNotAllocate checks that dims promising far more elements
// than the payload holds are refused before the tensor is allocated.
func TestHugeDimsDoNotAllocate(t *testing.T) {
	for _, tp := range []*pb.TensorProto{
		{Name: "raw", DataType: int32(tensor.Double), Dims: []int64{1 << 28}, RawData: make([]byte, 8)},
		{Name: "typed", DataType: int32(tensor.Int64), Dims: []int64{1 << 14, 1 << 14}, Int64Data: []int64{1}},
		{Name: "packed", DataType: int32(tensor.Int4), Dims: []int64{1 << 30}, RawData: []byte{1}},
	} {
		var before, after rt.MemStats
		rt.ReadMemStats(&before)
		_, err := Tensor(tp, 0) // no budget: only the payload check protects
		rt.ReadMemStats(&after)
		if errs.CodeOf(err) != errs.BadModel {
			t.Errorf("%s: got %v, want GORT_BAD_MODEL", tp.Name, err)
		}
		if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
			t.Errorf("%s: allocated %d bytes before refusing", tp.Name, d)
		}
	}
}

func TestDims(t *testing.T) {
	cases := []struct {
		dims     []int64
		dt       tensor.DType
		maxBytes int64
		n        int
		code     errs.Code
	}{
		{nil, tensor.Float, 0, 1, ""},
		{[]int64{0, 1 << 50}, tensor.Float, 16, 0, ""},
		{[]int64{2, 3}, tensor.Int64, 48, 6, ""},
		{[]int64{2, 3}, tensor.Int64, 47, 0, errs.TooLarge},
		{[]int64{1 << 31, 1 << 31, 1 << 31}, tensor.Uint8, 0, 0, errs.TooLarge},
		{[]int64{-1}, tensor.Uint8, 0, 0, errs.BadModel},
	}
	for _, c := range cases {
		_, n, err := Dims(c.dims, c.dt, c.maxBytes)
		if c.code == "" {
			if err != nil || n != c.n {
				t.Errorf("Dims(%v) = %d, %v; want %d", c.dims, n, err, c.n)
			}
			continue
		}
		if errs.CodeOf(err) != c.code {
			t.Errorf("Dims(%v): got %v, want %s", c.dims, err, c.code)
		}
	}
}

// TestRoundTrip encodes tensors of every dtype with Proto and decodes them.
func TestRoundTrip(t *testing.T) {
	nan := float32(math.NaN())
	cases := []*tensor.Tensor{
		tensor.Of([]int{2, 3}, []float32{1, -2, 3.5, inf32(1), inf32(-1), 1e-40}),
		tensor.Of([]int{2}, []float64{math.Pi, -0.0}),
		tensor.Must(tensor.FromSlice(tensor.Float16, []int{4}, []float32{1, -65504, 0x1p-24, inf32(1)})),
		tensor.Must(tensor.FromSlice(tensor.BFloat16, []int{3}, []float32{1, -3.3895314e38, 0.5})),
		tensor.Of([]int{3}, []int8{-128, 0, 127}),
		tensor.Of([]int{2}, []int16{-32768, 32767}),
		tensor.Of([]int{2}, []int32{math.MinInt32, math.MaxInt32}),
		tensor.Of([]int{2}, []int64{math.MinInt64, math.MaxInt64}),
		tensor.Of([]int{2}, []uint8{0, 255}),
		tensor.Of([]int{2}, []uint16{0, 65535}),
		tensor.Of([]int{2}, []uint32{0, math.MaxUint32}),
		tensor.Of([]int{2}, []uint64{0, math.MaxUint64}),
		tensor.Of([]int{3}, []bool{true, false, true}),
		tensor.Of([]int{2}, []string{"", "x y"}),
		tensor.Of([]int{1}, []complex64{complex(1, -1)}),
		tensor.Of([]int{1}, []complex128{complex(-2, 0.25)}),
		tensor.Must(tensor.FromSlice(tensor.Float8E4M3FN, []int{3}, []uint8{0, 0x7e, 0xff})),
		tensor.Must(tensor.FromSlice(tensor.Float8E5M2FNUZ, []int{1}, []uint8{0x80})),
		tensor.Must(tensor.FromSlice(tensor.Float8E8M0, []int{1}, []uint8{0x7f})),
		tensor.Must(tensor.FromSlice(tensor.Int4, []int{5}, []int8{-8, -1, 0, 7, 3})),
		tensor.Must(tensor.FromSlice(tensor.Uint4, []int{1, 3}, []uint8{0, 15, 9})),
		tensor.Must(tensor.FromSlice(tensor.Int2, []int{7}, []int8{-2, -1, 0, 1, 1, 0, -2})),
		tensor.Must(tensor.FromSlice(tensor.Uint2, []int{3}, []uint8{3, 2, 1})),
		tensor.Must(tensor.FromSlice(tensor.Float4E2M1, []int{3}, []uint8{0xf, 0x1, 0x8})),
		tensor.Of([]int{0, 4}, []float32{}),
		tensor.Scalar(int64(42)),
	}
	for _, want := range cases {
		t.Run(want.DType().String(), func(t *testing.T) {
			tp := Proto("v", want)
			got, err := Tensor(tp, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got.DType() != want.DType() || !sameShape(got.Shape(), want.Shape()) || !reflect.DeepEqual(got.Data(), want.Data()) {
				t.Errorf("round trip of %v gave %v", want, got)
			}
		})
	}
	// NaN survives (DeepEqual cannot compare it).
	got, err := Tensor(Proto("n", tensor.Must(tensor.FromSlice(tensor.Float16, []int{1}, []float32{nan}))), 0)
	if err != nil || !math.IsNaN(float64(got.F32()[0])) {
		t.Errorf("float16 NaN round trip: %v %v", got, err)
	}
	c, err := Tensor(Proto("c", tensor.Of([]int{1}, []complex128{cmplx.NaN()})), 0)
	if err != nil || !cmplx.IsNaN(tensor.Data[complex128](c)[0]) {
		t.Errorf("complex NaN round trip: %v %v", c, err)
	}
}

// TestRawBytesLayout pins the packed layout the encoder writes.
func TestRawBytesLayout(t *testing.T) {
	cases := []struct {
		t    *tensor.Tensor
		want []byte
	}{
		{tensor.Must(tensor.FromSlice(tensor.Int4, []int{3}, []int8{-1, 7, -8})), []byte{0x7f, 0x08}},
		{tensor.Must(tensor.FromSlice(tensor.Uint2, []int{5}, []uint8{3, 0, 1, 2, 3})), []byte{0x93, 0x03}},
		{tensor.Must(tensor.FromSlice(tensor.Float16, []int{2}, []float32{1, -2})), []byte{0x00, 0x3c, 0x00, 0xc0}},
		{tensor.Must(tensor.FromSlice(tensor.BFloat16, []int{1}, []float32{1.5})), []byte{0xc0, 0x3f}},
		{tensor.Of([]int{2}, []bool{true, false}), []byte{1, 0}},
	}
	for _, c := range cases {
		if got := RawBytes(c.t); !reflect.DeepEqual(got, c.want) {
			t.Errorf("RawBytes(%v) = %x, want %x", c.t, got, c.want)
		}
	}
}

// sameShape compares shapes, treating nil and empty (rank 0) alike.
func sameShape(a, b []int) bool { return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b)) }

// TestRawFloatAlignment decodes float32 raw_data starting at each offset 0…3
// of an aligned buffer: the values are right at every offset, and the tensor
// aliases the bytes exactly where viewable allows (aligned, or a target that
// loads floats from any address); viewable itself is checked for both kinds
// of target.
func TestRawFloatAlignment(t *testing.T) {
	want := []float32{1.5, -2, 0.25}
	// 1.5, -2, 0.25 as little-endian float32 (0x3fc00000, 0xc0000000, 0x3e800000).
	payload := []byte{0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0, 0, 0, 0x80, 0x3e}
	buf := make([]uint32, 8) // 4-byte aligned backing
	all := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 32)
	for off := 0; off < 4; off++ {
		raw := all[off : off+len(payload)]
		copy(raw, payload)
		if got := viewable(raw, false); got != (off == 0) {
			t.Errorf("offset %d: viewable without unaligned loads = %v", off, got)
		}
		if !viewable(raw, true) {
			t.Errorf("offset %d: not viewable with unaligned loads", off)
		}
		x, err := Tensor(&pb.TensorProto{DataType: int32(tensor.Float), Dims: []int64{3}, RawData: raw}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(x.F32(), want) {
			t.Fatalf("offset %d: %v, want %v", off, x.F32(), want)
		}
		aliased := unsafe.Pointer(&x.F32()[0]) == unsafe.Pointer(&raw[0])
		if aliased != (hostLittleEndian && viewable(raw, unalignedFloatLoads)) {
			t.Errorf("offset %d: aliased = %v", off, aliased)
		}
	}
}
