//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"
	"unsafe"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
	"github.com/gort-dev/gort/wasm/jsval"
)

// The wire format shared with js/src (and postMessage'd as is in proxy mode):
//
//	{kind: "tensor", type: "float32", dims: [2, 3], bytes: Uint8Array}   numeric and bool tensors
//	{kind: "tensor", type: "string", dims: [2], strings: ["a", "b"]}     string tensors
//	{kind: "sequence", type: "float32", items: [tensor, ...]}
//	{kind: "optional", value: tensor | sequence | null}
//	{kind: "none"}                                                       an empty optional (feeds only)
//
// bytes is the little-endian element storage in the layout of the JS typed
// array for the type (float16/bfloat16 as uint16 bits, bool as one 0/1 byte,
// int4/uint4/int2/uint2 one element per byte, float8 and float4 as raw codes,
// complex as interleaved float pairs). It crosses the boundary with one
// js.CopyBytesToGo / CopyBytesToJS over an unsafe byte view of the Go storage.

type sessionInfo struct {
	ID          int      `js:"id"`
	Inputs      []ioInfo `js:"inputs"`
	Overridable []ioInfo `js:"overridable"`
	Outputs     []ioInfo `js:"outputs"`
	Unsupported []string `js:"unsupported"`
	// GraphInputs lists every graph input in model order (initializer-backed
	// ones included): test data files are numbered in this order.
	GraphInputs []string `js:"graphInputs"`
	// Providers are the execution providers in use and every node's
	// placement (webgpu.go).
	Providers providersInfo `js:"providers"`
	// LogSeverityLevel and GPUOutputs are the session options the JS side
	// acts on, as package options parsed them: the level it logs at, and
	// the outputs a run leaves in GPU buffers (preferredOutputLocation).
	LogSeverityLevel int      `js:"logSeverityLevel"`
	GPUOutputs       []string `js:"gpuOutputs"`
	// Threads is the session's intraOpNumThreads (0: not given);
	// SplitSteps counts the plan's steps a worker can take parts of (0
	// when the session uses WebGPU), and Fingerprint identifies the plan:
	// the thread pool loads the model in its workers only when there is
	// something to split, and uses a worker whose plan has the same
	// fingerprint (js/src/threads.js).
	Threads     int    `js:"threads"`
	SplitSteps  int    `js:"splitSteps"`
	Fingerprint string `js:"fingerprint"`
}

// ioInfo is the metadata of one input or output. Shape entries are numbers
// (fixed dims), strings (symbolic dims) or -1 (unknown); Shape is nil when the
// rank is unknown.
type ioInfo struct {
	Name  string `js:"name"`
	Kind  string `js:"kind"`
	Type  string `js:"type"`
	Shape []any  `js:"shape"`
	Rank  bool   `js:"hasShape"`
}

func ioInfos(in []runtime.IOInfo) []ioInfo {
	out := make([]ioInfo, 0, len(in))
	for _, i := range in {
		t := i.Type
		info := ioInfo{Name: i.Name, Kind: kindName(t.Kind), Type: elemName(t.Elem)}
		if t.Kind == graph.KindSequence || t.Kind == graph.KindOptional {
			if t.Inner != nil && t.Inner.Kind == graph.KindSequence {
				info.Kind += "-sequence"
			}
		}
		if t.Shape != nil {
			info.Rank = true
			info.Shape = make([]any, len(t.Shape))
			for j, d := range t.Shape {
				switch {
				case d.Param != "":
					info.Shape[j] = d.Param
				case d.Value >= 0:
					info.Shape[j] = d.Value
				default:
					info.Shape[j] = -1
				}
			}
		}
		out = append(out, info)
	}
	return out
}

func kindName(k graph.Kind) string {
	switch k {
	case graph.KindTensor:
		return "tensor"
	case graph.KindSequence:
		return "sequence"
	case graph.KindOptional:
		return "optional"
	case graph.KindMap:
		return "map"
	case graph.KindSparseTensor:
		return "sparse_tensor"
	}
	return "unknown"
}

func elemName(d tensor.DType) string {
	if d == tensor.Undefined {
		return ""
	}
	return d.String()
}

// wireElemBytes is the size of one element in the wire format (0: not
// representable as bytes).
func wireElemBytes(dt tensor.DType) int {
	switch dt {
	case tensor.Double, tensor.Int64, tensor.Uint64, tensor.Complex64:
		return 8
	case tensor.Complex128:
		return 16
	case tensor.Float, tensor.Int32, tensor.Uint32:
		return 4
	case tensor.Float16, tensor.BFloat16, tensor.Int16, tensor.Uint16:
		return 2
	case tensor.String, tensor.Undefined:
		return 0
	}
	return 1
}

// byteView returns the storage of a slice as bytes, without copying.
func byteView[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	var z T
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(z)))
}

// storageBytes returns the tensor's storage as wire bytes: a view of the
// storage itself except for float16/bfloat16, which are stored widened to
// float32 and so are narrowed to their bits first.
func storageBytes(t *tensor.Tensor) ([]byte, error) {
	switch t.DType() {
	case tensor.Float16, tensor.BFloat16:
		f := t.F32()
		h := make([]uint16, len(f))
		if t.DType() == tensor.Float16 {
			for i, x := range f {
				h[i] = tensor.F32ToF16(x)
			}
		} else {
			for i, x := range f {
				h[i] = tensor.F32ToBF16(x)
			}
		}
		return byteView(h), nil
	}
	switch d := t.Data().(type) {
	case []float32:
		return byteView(d), nil
	case []float64:
		return byteView(d), nil
	case []int8:
		return byteView(d), nil
	case []int16:
		return byteView(d), nil
	case []int32:
		return byteView(d), nil
	case []int64:
		return byteView(d), nil
	case []uint8:
		return byteView(d), nil
	case []uint16:
		return byteView(d), nil
	case []uint32:
		return byteView(d), nil
	case []uint64:
		return byteView(d), nil
	case []bool:
		return byteView(d), nil
	case []complex64:
		return byteView(d), nil
	case []complex128:
		return byteView(d), nil
	}
	return nil, fmt.Errorf("%s tensors cannot be converted", t.DType())
}

// newUint8Array is tensorToJS's usual buffer: a fresh one.
func newUint8Array(n int) js.Value { return uint8Array.New(n) }

// tensorToJS is a tensor as a wire value, its bytes copied into
// newBytes(n), a Uint8Array of n bytes.
func tensorToJS(v *tensor.Tensor, newBytes func(n int) js.Value) (js.Value, error) {
	o := js.Global().Get("Object").New()
	o.Set("kind", "tensor")
	o.Set("type", v.DType().String())
	dims := make([]int, len(v.Shape()))
	copy(dims, v.Shape())
	o.Set("dims", jsval.ToJS(dims))
	if v.DType() == tensor.String {
		o.Set("strings", jsval.ToJS(v.Strings()))
		return o, nil
	}
	b, err := storageBytes(v)
	if err != nil {
		return js.Value{}, err
	}
	u := newBytes(len(b))
	if len(b) > 0 {
		js.CopyBytesToJS(u, b)
	}
	o.Set("bytes", u)
	return o, nil
}

func valueToJS(v tensor.Value) (js.Value, error) {
	o := js.Global().Get("Object").New()
	switch v := v.(type) {
	case *tensor.Tensor:
		return tensorToJS(v, newUint8Array)
	case *tensor.Sequence:
		o.Set("kind", "sequence")
		o.Set("type", elemName(v.Elem))
		items := js.Global().Get("Array").New(len(v.Items))
		for i, it := range v.Items {
			w, err := valueToJS(it)
			if err != nil {
				return js.Value{}, err
			}
			items.SetIndex(i, w)
		}
		o.Set("items", items)
	case *tensor.Optional:
		o.Set("kind", "optional")
		if v.Value == nil {
			o.Set("value", js.Null())
			break
		}
		w, err := valueToJS(v.Value)
		if err != nil {
			return js.Value{}, err
		}
		o.Set("value", w)
	case nil:
		return js.Null(), nil
	case tensor.Remote:
		return remoteToJS(v) // webgpu.go
	default:
		return js.Value{}, fmt.Errorf("%T values cannot be returned to JavaScript", v)
	}
	return o, nil
}

// feedsFromJS converts {name: wire value} against the session's declared
// inputs. Names, dtypes and dims are validated by the Go session; here only
// what the conversion itself needs (well-formed wire values, byte length =
// product of dims × element size). host (nil: none) supplies and records
// the host tensors the feeds are copied into (feedbufs.go).
func feedsFromJS(s *runtime.Session, f js.Value, host *hostFeeds) (map[string]tensor.Value, error) {
	if f.Type() != js.TypeObject || jsval.IsArray(f) {
		return nil, errs.New(errs.InvalidFeed, "feeds must be an object mapping input names to tensors, got %s", jsval.Describe(f))
	}
	feeds := map[string]tensor.Value{}
	for _, name := range jsval.Keys(f) {
		want, ok := declaredType(s, name)
		if !ok {
			// Let the session report it with the list of valid names.
			feeds[name] = &tensor.Tensor{}
			continue
		}
		var alloc func(tensor.DType, []int) *tensor.Tensor
		if host != nil {
			alloc = func(dt tensor.DType, shape []int) *tensor.Tensor { return host.alloc(name, dt, shape) }
		}
		v, err := valueFromJS(f.Get(name), want, alloc)
		if err != nil {
			return nil, errs.New(errs.InvalidFeed, "%v", err).WithTensor(name)
		}
		feeds[name] = v
	}
	return feeds, nil
}

// declaredType finds the input or overridable initializer name. A scan, not
// a map built per run: models that list their weights as inputs have
// hundreds of them, and a run feeds a few.
func declaredType(s *runtime.Session, name string) (graph.Type, bool) {
	for _, list := range [][]runtime.IOInfo{s.Inputs(), s.OverridableInitializers()} {
		for _, in := range list {
			if in.Name == name {
				return in.Type, true
			}
		}
	}
	return graph.Type{}, false
}

// valueFromJS reads a wire value; alloc makes a host tensor's storage (nil:
// tensor.New).
func valueFromJS(w js.Value, want graph.Type, alloc func(tensor.DType, []int) *tensor.Tensor) (tensor.Value, error) {
	kind := jsval.Get(w, "kind")
	if kind.Type() != js.TypeString {
		return nil, fmt.Errorf("expected a gort value, got %s", jsval.Describe(w))
	}
	switch kind.String() {
	case "none":
		if want.Kind != graph.KindOptional {
			return nil, fmt.Errorf("got null, but the input is a %s, not an optional", want)
		}
		return &tensor.Optional{}, nil
	case "optional":
		inner := jsval.Get(w, "value")
		if jsval.IsNullish(inner) {
			return &tensor.Optional{}, nil
		}
		return valueFromJS(inner, want, alloc)
	}
	var v tensor.Value
	var err error
	switch kind.String() {
	case "tensor":
		if b := jsval.Get(w, "gpuBuffer"); !jsval.IsNullish(b) {
			v, err = gpuFeedFromJS(w, b) // webgpu.go
			break
		}
		v, err = tensorFromJSInto(w, alloc)
	case "sequence":
		v, err = sequenceFromJS(w, want)
	default:
		return nil, fmt.Errorf("unknown value kind %q", kind.String())
	}
	if err != nil {
		return nil, err
	}
	if want.Kind == graph.KindOptional {
		return &tensor.Optional{Value: v}, nil
	}
	return v, nil
}

func sequenceFromJS(w js.Value, want graph.Type) (*tensor.Sequence, error) {
	items := jsval.Get(w, "items")
	if !jsval.IsArray(items) {
		return nil, fmt.Errorf("sequence items must be an array")
	}
	seq := &tensor.Sequence{Elem: want.Elem}
	if t, ok := tensor.ParseDType(jsval.Get(w, "type").String()); ok && jsval.Get(w, "type").Type() == js.TypeString {
		seq.Elem = t
	}
	for i := 0; i < items.Length(); i++ {
		t, err := tensorFromJS(items.Index(i))
		if err != nil {
			return nil, fmt.Errorf("sequence item %d: %v", i, err)
		}
		if i > 0 && t.DType() != seq.Items[0].DType() {
			return nil, fmt.Errorf("sequence item %d is %s, item 0 is %s", i, t.DType(), seq.Items[0].DType())
		}
		seq.Items = append(seq.Items, t)
		seq.Elem = t.DType()
	}
	return seq, nil
}

// dimsFromJS reads a tensor's dims: non-negative integers whose product
// (returned as n) fits an int. Host-side tensors and GPU-buffer feeds both
// go through it, so a hostile dims array fails the same way for either.
func dimsFromJS(w js.Value) (shape []int, n int, err error) {
	dims64, err := jsval.Ints(jsval.Get(w, "dims"))
	if err != nil {
		return nil, 0, fmt.Errorf("dims: %v", err)
	}
	shape = make([]int, len(dims64))
	for i, d := range dims64 {
		if d < 0 {
			return nil, 0, fmt.Errorf("dims %v: dim %d is negative", dims64, i)
		}
		shape[i] = int(d)
	}
	n, ok := tensor.Size(shape)
	if !ok {
		return nil, 0, fmt.Errorf("dims %v overflow", dims64)
	}
	return shape, n, nil
}

func tensorFromJS(w js.Value) (*tensor.Tensor, error) { return tensorFromJSInto(w, nil) }

// tensorFromJSInto is tensorFromJS with the storage made by alloc (nil:
// tensor.New), which must return a tensor of that dtype and shape; every
// element is overwritten.
func tensorFromJSInto(w js.Value, alloc func(tensor.DType, []int) *tensor.Tensor) (*tensor.Tensor, error) {
	if jsval.Get(w, "kind").String() != "tensor" {
		return nil, fmt.Errorf("expected a tensor")
	}
	tname := jsval.Get(w, "type")
	if tname.Type() != js.TypeString {
		return nil, fmt.Errorf("tensor type must be a string")
	}
	dt, ok := tensor.ParseDType(tname.String())
	if !ok {
		return nil, fmt.Errorf("unknown tensor type %q", tname.String())
	}
	shape, n, err := dimsFromJS(w)
	if err != nil {
		return nil, err
	}
	if dt == tensor.String {
		ss, err := jsval.Strings(jsval.Get(w, "strings"))
		if err != nil {
			return nil, err
		}
		if len(ss) != n {
			return nil, fmt.Errorf("dims %v need %d elements, data has %d", shape, n, len(ss))
		}
		return tensor.FromSlice(dt, shape, ss)
	}
	b := jsval.Get(w, "bytes")
	if b.Type() != js.TypeObject || !b.InstanceOf(uint8Array) {
		return nil, fmt.Errorf("tensor bytes must be a Uint8Array")
	}
	if wireElemBytes(dt) == 0 {
		return nil, fmt.Errorf("%s tensors cannot be fed as bytes", dt)
	}
	var t *tensor.Tensor
	if alloc != nil {
		t = alloc(dt, shape)
	} else {
		t = tensor.New(dt, shape...)
	}
	if err := fillFromBytes(t, n, b); err != nil {
		return nil, err
	}
	return t, nil
}

// fillFromBytes overwrites every element of t (n of them) with the wire
// bytes of the Uint8Array b, which must hold exactly n elements.
func fillFromBytes(t *tensor.Tensor, n int, b js.Value) error {
	dt := t.DType()
	eb := wireElemBytes(dt)
	if got := b.Length(); eb == 0 || got != n*eb {
		return fmt.Errorf("dims %v need %d elements (%d bytes of %s), data has %d bytes", t.Shape(), n, n*eb, dt, got)
	}
	switch dt {
	case tensor.Float16, tensor.BFloat16:
		h := make([]uint16, n)
		copyIn(byteView(h), b)
		f := t.F32()
		if dt == tensor.Float16 {
			for i, x := range h {
				f[i] = tensor.F16ToF32(x)
			}
		} else {
			for i, x := range h {
				f[i] = tensor.BF16ToF32(x)
			}
		}
		return nil
	case tensor.Bool:
		// Go bools must be exactly 0 or 1: go through bytes and normalize.
		raw := make([]byte, n)
		copyIn(raw, b)
		bs := t.Bools()
		for i, x := range raw {
			bs[i] = x != 0
		}
		return nil
	}
	dst, err := storageBytes(t)
	if err != nil {
		return err
	}
	copyIn(dst, b)
	if lo, hi, ok := subByteRange(dt); ok {
		if err := checkRange(t, lo, hi); err != nil {
			return err
		}
	}
	return nil
}

func copyIn(dst []byte, src js.Value) {
	if len(dst) > 0 {
		js.CopyBytesToGo(dst, src)
	}
}

// subByteRange gives the valid values of the unpacked sub-byte integer types.
func subByteRange(dt tensor.DType) (lo, hi int, ok bool) {
	switch dt {
	case tensor.Int4:
		return -8, 7, true
	case tensor.Uint4, tensor.Float4E2M1:
		return 0, 15, true
	case tensor.Int2:
		return -2, 1, true
	case tensor.Uint2:
		return 0, 3, true
	}
	return 0, 0, false
}

func checkRange(t *tensor.Tensor, lo, hi int) error {
	switch d := t.Data().(type) {
	case []int8:
		for i, x := range d {
			if int(x) < lo || int(x) > hi {
				return fmt.Errorf("element %d is %d, outside the %s range [%d, %d]", i, x, t.DType(), lo, hi)
			}
		}
	case []uint8:
		for i, x := range d {
			if int(x) < lo || int(x) > hi {
				return fmt.Errorf("element %d is %d, outside the %s range [%d, %d]", i, x, t.DType(), lo, hi)
			}
		}
	}
	return nil
}

// opsList names every registered operator as "domain.Op-[v1 v2]" (default
// domain without prefix), over every domain the registry has.
func opsList() []string { return op.Default.List() }
