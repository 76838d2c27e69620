// Package protoconv converts between onnx.TensorProto (and the sequence /
// optional protos of the test data) and gort tensors.
//
// Decoding is defensive: dims are checked for overflow and against a byte
// budget before anything is allocated, and the payload must hold exactly the
// number of elements the dims promise.
package protoconv

import (
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Dims validates proto dims and returns them as ints. maxBytes bounds the
// element count times the dtype's in-memory size (0 = no bound).
func Dims(dims []int64, dt tensor.DType, maxBytes int64) ([]int, int, error) {
	shape := make([]int, len(dims))
	for i, d := range dims {
		if d < 0 {
			return nil, 0, errs.New(errs.BadModel, "dim %d is negative (%d)", i, d)
		}
		if d > math.MaxInt32*int64(1<<20) {
			return nil, 0, errs.New(errs.TooLarge, "dim %d is %d", i, d)
		}
		shape[i] = int(d)
	}
	n, ok := tensor.Size(shape)
	if !ok {
		return nil, 0, errs.New(errs.TooLarge, "dims %v overflow", dims)
	}
	if maxBytes > 0 && int64(n) > maxBytes/int64(dt.ElemBytes()) {
		return nil, 0, errs.New(errs.TooLarge, "dims %v need %d elements of %s, over the memory budget of %d bytes", dims, n, dt, maxBytes)
	}
	return shape, n, nil
}

// Tensor decodes a TensorProto. External data is not resolved here: it gives
// an ExternalData error naming the tensor and the file.
func Tensor(tp *pb.TensorProto, maxBytes int64) (*tensor.Tensor, error) {
	t, err := decode(tp, maxBytes)
	if err != nil {
		if e, ok := err.(*errs.Error); ok {
			if e.Tensor == "" {
				e.Tensor = tp.GetName()
			}
			return nil, e
		}
		return nil, errs.New(errs.BadModel, "%v", err).WithTensor(tp.GetName())
	}
	return t, nil
}

func decode(tp *pb.TensorProto, maxBytes int64) (*tensor.Tensor, error) {
	dt := tensor.DType(tp.GetDataType())
	if !dt.Valid() || dt == tensor.Undefined {
		return nil, errs.New(errs.BadModel, "unknown data_type %d", tp.GetDataType())
	}
	if tp.GetDataLocation() == pb.TensorProto_EXTERNAL {
		loc := ""
		for _, kv := range tp.GetExternalData() {
			if kv.GetKey() == "location" {
				loc = kv.GetValue()
			}
		}
		return nil, errs.New(errs.ExternalData, "data is stored in external file %q, which was not provided", loc)
	}
	if tp.Segment != nil {
		return nil, errs.New(errs.BadModel, "segmented tensors are not supported")
	}
	shape, n, err := Dims(tp.GetDims(), dt, maxBytes)
	if err != nil {
		return nil, err
	}
	raw := tp.GetRawData()
	useRaw := raw != nil || hasNoTypedData(tp) && n == 0 && dt != tensor.String
	if useRaw && dt == tensor.String {
		return nil, errs.New(errs.BadModel, "string tensors cannot use raw_data")
	}
	// The payload is checked against the dims before the tensor is
	// allocated: dims are attacker-controlled and may promise far more
	// elements than the model carries, so allocating first would let a few
	// bytes of model demand gigabytes of memory.
	if useRaw {
		if err := checkRawLen(dt, len(raw), n); err != nil {
			return nil, err
		}
	} else if err := checkTypedLen(dt, tp, n); err != nil {
		return nil, err
	}
	if useRaw && dt == tensor.Float && n > 0 && hostLittleEndian && viewable(raw, unalignedFloatLoads) {
		// float32 weights are used in place: the model's bytes are the
		// tensor, so loading adds no copy (ONNX stores raw_data little
		// endian, as the host). raw_data sits wherever the protobuf
		// encoding put it, so 3 times in 4 it is not 4-byte aligned: such a
		// view is made only where the target loads float32 from any address
		// (unalignedFloatLoads), and is copied elsewhere.
		return tensor.WrapF32(dt, shape, unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(raw))), n)), nil
	}
	t := tensor.New(dt, shape...)
	if useRaw {
		if err := fromRaw(t, raw, n); err != nil {
			return nil, err
		}
		return t, nil
	}
	if err := fromTyped(t, tp, n); err != nil {
		return nil, err
	}
	return t, nil
}

// rawLen is the number of raw_data bytes n elements of dt take, and false
// if that does not fit an int.
func rawLen(dt tensor.DType, n int) (int, bool) {
	if bits := packedBits(dt); bits != 0 {
		per := 8 / bits
		return n/per + btoi(n%per != 0), true
	}
	w := wireBytes(dt)
	if n > math.MaxInt/w {
		return 0, false
	}
	return n * w, true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func checkRawLen(dt tensor.DType, have, n int) error {
	need, ok := rawLen(dt, n)
	if !ok {
		return errs.New(errs.TooLarge, "%d %s elements overflow the addressable size", n, dt)
	}
	if have != need {
		return errs.New(errs.BadModel, "raw_data has %d bytes, %d %s elements need %d", have, n, dt, need)
	}
	return nil
}

// typedField names the TensorProto field that carries dt's values when
// raw_data is not used, and how many entries n elements take in it.
func typedField(dt tensor.DType, tp *pb.TensorProto, n int) (field string, have, need int) {
	switch dt {
	case tensor.Float:
		return "float_data", len(tp.FloatData), n
	case tensor.Complex64:
		return "float_data", len(tp.FloatData), 2 * n
	case tensor.Double:
		return "double_data", len(tp.DoubleData), n
	case tensor.Complex128:
		return "double_data", len(tp.DoubleData), 2 * n
	case tensor.Int64:
		return "int64_data", len(tp.Int64Data), n
	case tensor.Uint32, tensor.Uint64:
		return "uint64_data", len(tp.Uint64Data), n
	case tensor.String:
		return "string_data", len(tp.StringData), n
	}
	if bits := packedBits(dt); bits != 0 {
		per := 8 / bits
		return "int32_data", len(tp.Int32Data), n/per + btoi(n%per != 0)
	}
	return "int32_data", len(tp.Int32Data), n
}

func checkTypedLen(dt tensor.DType, tp *pb.TensorProto, n int) error {
	if n > math.MaxInt/2 {
		return errs.New(errs.TooLarge, "%d %s elements overflow the addressable size", n, dt)
	}
	field, have, need := typedField(dt, tp, n)
	if have != need {
		return errs.New(errs.BadModel, "%s has %d values, dims need %d", field, have, need)
	}
	return nil
}

func hasNoTypedData(tp *pb.TensorProto) bool {
	return len(tp.FloatData) == 0 && len(tp.Int32Data) == 0 && len(tp.StringData) == 0 &&
		len(tp.Int64Data) == 0 && len(tp.DoubleData) == 0 && len(tp.Uint64Data) == 0
}

// packedBits is the bit width of sub-byte types, 0 otherwise.
func packedBits(dt tensor.DType) int {
	switch dt {
	case tensor.Int4, tensor.Uint4, tensor.Float4E2M1:
		return 4
	case tensor.Int2, tensor.Uint2:
		return 2
	}
	return 0
}

func wireBytes(dt tensor.DType) int {
	switch dt {
	case tensor.Float, tensor.Int32, tensor.Uint32:
		return 4
	case tensor.Double, tensor.Int64, tensor.Uint64, tensor.Complex64:
		return 8
	case tensor.Complex128:
		return 16
	case tensor.Float16, tensor.BFloat16, tensor.Int16, tensor.Uint16:
		return 2
	}
	return 1
}

// unalignedFloatLoads reports whether float32 may be loaded from any
// address on this target, so that a float32 view of raw_data need not be
// 4-byte aligned: WebAssembly's loads take any address (alignment is a
// hint), and amd64, 386, arm64 and ppc64le load misaligned floats in
// hardware. 32-bit ARM's and MIPS's float loads fault on a misaligned
// address, and RISC-V's may trap to a slow emulation, so those copy. Go
// allows the misaligned pointer because float32 holds no pointers (the
// collector never reads it; checkptr exempts pointer-free types, go.dev/issue/37298).
const unalignedFloatLoads = runtime.GOARCH == "wasm" || runtime.GOARCH == "amd64" || runtime.GOARCH == "386" ||
	runtime.GOARCH == "arm64" || runtime.GOARCH == "ppc64le"

// viewable reports whether raw may be viewed as float32 in place: when it
// is 4-byte aligned, or when the target takes any address (anyAddress).
func viewable(raw []byte, anyAddress bool) bool {
	return anyAddress || uintptr(unsafe.Pointer(unsafe.SliceData(raw)))%4 == 0
}

// hostLittleEndian reports whether the host stores numbers as ONNX's
// raw_data does.
var hostLittleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

func fromRaw(t *tensor.Tensor, raw []byte, n int) error {
	dt := t.DType()
	if bits := packedBits(dt); bits != 0 {
		per := 8 / bits
		need := (n + per - 1) / per
		if len(raw) != need {
			return errs.New(errs.BadModel, "raw_data has %d bytes, %d %s elements need %d", len(raw), n, dt, need)
		}
		unpack(t, func(i int) uint32 { return uint32(raw[i/per]>>(uint(i%per)*uint(bits))) & (1<<bits - 1) }, n)
		return nil
	}
	w := wireBytes(dt)
	if len(raw) != n*w {
		return errs.New(errs.BadModel, "raw_data has %d bytes, %d %s elements need %d", len(raw), n, dt, n*w)
	}
	le := binary.LittleEndian
	switch d := t.Data().(type) {
	case []float32:
		switch dt {
		case tensor.Float:
			for i := range d {
				d[i] = math.Float32frombits(le.Uint32(raw[4*i:]))
			}
		case tensor.Float16:
			for i := range d {
				d[i] = tensor.F16ToF32(le.Uint16(raw[2*i:]))
			}
		case tensor.BFloat16:
			for i := range d {
				d[i] = tensor.BF16ToF32(le.Uint16(raw[2*i:]))
			}
		}
	case []float64:
		for i := range d {
			d[i] = math.Float64frombits(le.Uint64(raw[8*i:]))
		}
	case []int8:
		for i := range d {
			d[i] = int8(raw[i])
		}
	case []uint8:
		copy(d, raw)
	case []int16:
		for i := range d {
			d[i] = int16(le.Uint16(raw[2*i:]))
		}
	case []uint16:
		for i := range d {
			d[i] = le.Uint16(raw[2*i:])
		}
	case []int32:
		for i := range d {
			d[i] = int32(le.Uint32(raw[4*i:]))
		}
	case []uint32:
		for i := range d {
			d[i] = le.Uint32(raw[4*i:])
		}
	case []int64:
		for i := range d {
			d[i] = int64(le.Uint64(raw[8*i:]))
		}
	case []uint64:
		for i := range d {
			d[i] = le.Uint64(raw[8*i:])
		}
	case []bool:
		for i := range d {
			d[i] = raw[i] != 0
		}
	case []complex64:
		for i := range d {
			d[i] = complex(math.Float32frombits(le.Uint32(raw[8*i:])), math.Float32frombits(le.Uint32(raw[8*i+4:])))
		}
	case []complex128:
		for i := range d {
			d[i] = complex(math.Float64frombits(le.Uint64(raw[16*i:])), math.Float64frombits(le.Uint64(raw[16*i+8:])))
		}
	default:
		return errs.New(errs.BadModel, "cannot decode raw %s", dt)
	}
	return nil
}

// unpack stores n sub-byte codes (given by code(i)) into t, sign-extending signed types.
func unpack(t *tensor.Tensor, code func(i int) uint32, n int) {
	switch d := t.Data().(type) {
	case []int8:
		bits := packedBits(t.DType())
		for i := 0; i < n; i++ {
			c := code(i)
			d[i] = int8(int32(c<<(32-bits)) >> (32 - bits))
		}
	case []uint8:
		for i := 0; i < n; i++ {
			d[i] = uint8(code(i))
		}
	}
}

func fromTyped(t *tensor.Tensor, tp *pb.TensorProto, n int) error {
	dt := t.DType()
	count := func(have, want int, field string) error {
		if have != want {
			return errs.New(errs.BadModel, "%s has %d values, dims need %d", field, have, want)
		}
		return nil
	}
	switch dt {
	case tensor.Float:
		if err := count(len(tp.FloatData), n, "float_data"); err != nil {
			return err
		}
		copy(t.F32(), tp.FloatData)
	case tensor.Complex64:
		if err := count(len(tp.FloatData), 2*n, "float_data"); err != nil {
			return err
		}
		d := tensor.Data[complex64](t)
		for i := range d {
			d[i] = complex(tp.FloatData[2*i], tp.FloatData[2*i+1])
		}
	case tensor.Double:
		if err := count(len(tp.DoubleData), n, "double_data"); err != nil {
			return err
		}
		copy(t.F64(), tp.DoubleData)
	case tensor.Complex128:
		if err := count(len(tp.DoubleData), 2*n, "double_data"); err != nil {
			return err
		}
		d := tensor.Data[complex128](t)
		for i := range d {
			d[i] = complex(tp.DoubleData[2*i], tp.DoubleData[2*i+1])
		}
	case tensor.Int64:
		if err := count(len(tp.Int64Data), n, "int64_data"); err != nil {
			return err
		}
		copy(t.I64(), tp.Int64Data)
	case tensor.Uint32, tensor.Uint64:
		if err := count(len(tp.Uint64Data), n, "uint64_data"); err != nil {
			return err
		}
		if dt == tensor.Uint64 {
			copy(tensor.Data[uint64](t), tp.Uint64Data)
		} else {
			d := tensor.Data[uint32](t)
			for i, v := range tp.Uint64Data {
				d[i] = uint32(v)
			}
		}
	case tensor.String:
		if err := count(len(tp.StringData), n, "string_data"); err != nil {
			return err
		}
		d := t.Strings()
		for i, s := range tp.StringData {
			d[i] = string(s)
		}
	default:
		// Everything else travels in int32_data, sub-byte types packed.
		if bits := packedBits(dt); bits != 0 {
			per := 8 / bits
			if err := count(len(tp.Int32Data), (n+per-1)/per, "int32_data"); err != nil {
				return err
			}
			unpack(t, func(i int) uint32 { return uint32(tp.Int32Data[i/per]>>(uint(i%per)*uint(bits))) & (1<<bits - 1) }, n)
			return nil
		}
		if err := count(len(tp.Int32Data), n, "int32_data"); err != nil {
			return err
		}
		src := tp.Int32Data
		switch d := t.Data().(type) {
		case []int32:
			copy(d, src)
		case []int16:
			for i, v := range src {
				d[i] = int16(v)
			}
		case []int8:
			for i, v := range src {
				d[i] = int8(v)
			}
		case []uint16:
			for i, v := range src {
				d[i] = uint16(v)
			}
		case []uint8:
			for i, v := range src {
				d[i] = uint8(v)
			}
		case []bool:
			for i, v := range src {
				d[i] = v != 0
			}
		case []float32: // float16 / bfloat16 bits
			for i, v := range src {
				if dt == tensor.Float16 {
					d[i] = tensor.F16ToF32(uint16(v))
				} else {
					d[i] = tensor.BF16ToF32(uint16(v))
				}
			}
		default:
			return fmt.Errorf("cannot decode %s from int32_data", dt)
		}
	}
	return nil
}
