package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/npy"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// dataFlags are the input/expected-output options shared by run, compare and diverge.
type dataFlags struct {
	data     *string
	inputs   multi
	expected multi
	dims     multi
	intRange *string
	// guessed says a random feed has a size or values gort chose (a
	// symbolic dim no --dim set, integers with no --int-range): a run
	// that fails on them is tried again with other guesses (retryGuesses).
	guessed bool
}

// guess is what random feeds take where nothing was given: unset symbolic
// and unknown dims, and the integers' range [0, intHi).
type guess struct {
	dim   int
	intHi int64
}

var firstGuess = guess{dim: 1, intHi: 4}

func addDataFlags(f *cmdFlags, withExpected bool) *dataFlags {
	d := &dataFlags{}
	d.data = f.String("data", "", "a test_data_set_* folder: input_<i>.pb feed the inputs"+map[bool]string{true: ", output_<i>.pb are the expected outputs", false: ""}[withExpected])
	f.Var(&d.inputs, "inputs", "inputs from a file: .npz (arrays named as the inputs, or arr_0… in order), .npy or .pb (one input),\n.json ({\"name\": {\"type\": \"float32\", \"dims\": [..], \"data\": [..]}} or {\"name\": nested arrays});\nNAME=FILE feeds one input; repeatable. Inputs not given are random (symbolic dims = 1, or as --dim sets them)")
	f.Var(&d.dims, "dim", "NAME=VALUE: the size of symbolic dim NAME in random inputs (default 1, larger if the model\nfails on that); repeatable")
	d.intRange = f.String("int-range", "", "LO:HI: random integer inputs are drawn from [LO, HI] (default [0, 3], smaller if the\nmodel fails on that)")
	if withExpected {
		f.Var(&d.expected, "expected", "expected outputs, in the same formats as --inputs; repeatable")
	}
	return d
}

// readValues reads one --inputs/--expected argument into values by name;
// positional values (arr_0, a lone .npy) get the names in order.
func readValues(arg string, order []string) (map[string]tensor.Value, error) {
	name, path := "", arg
	if i := strings.Index(arg, "="); i > 0 && !fileExists(arg) {
		name, path = arg[:i], arg[i+1:]
	}
	b, err := readFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]tensor.Value{}
	positional := func(vals []tensor.Value) error {
		if name != "" {
			if len(vals) != 1 {
				return fmt.Errorf("%s holds %d arrays; NAME=FILE takes one", path, len(vals))
			}
			out[name] = vals[0]
			return nil
		}
		if len(vals) > len(order) {
			return fmt.Errorf("%s holds %d arrays, the model has %d", path, len(vals), len(order))
		}
		for i, v := range vals {
			out[order[i]] = v
		}
		return nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".npy":
		t, err := npy.Read(b, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return out, positional([]tensor.Value{t})
	case ".npz":
		arrays, names, err := npy.ReadNPZ(b, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var pos []tensor.Value
		positionalName := regexp.MustCompile(`^arr_\d+$`) // np.savez's names for unnamed arrays
		for _, n := range names {
			if positionalName.MatchString(n) && !slices.Contains(order, n) {
				pos = append(pos, arrays[n])
			} else {
				out[n] = arrays[n]
			}
		}
		if len(pos) > 0 {
			return out, positional(pos)
		}
		return out, nil
	case ".pb":
		v, err := protoconv.DecodeValue(b, protoconv.TensorValue, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if name == "" {
			tp := &pb.TensorProto{}
			if pb.Unmarshal(b, tp) == nil && tp.GetName() != "" {
				name = tp.GetName()
			}
		}
		return out, positional([]tensor.Value{v})
	case ".json":
		vals, err := readJSON(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for k, v := range vals {
			out[k] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: unknown format (want .npy, .npz, .pb or .json)", path)
}

func fileExists(p string) bool { _, err := stat(p); return err == nil }

// readJSON reads {"name": {"type", "dims", "data"}} or {"name": nested arrays (float32)}.
func readJSON(b []byte) (map[string]tensor.Value, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	out := map[string]tensor.Value{}
	for name, v := range raw {
		t, err := jsonTensor(v)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", name, err)
		}
		out[name] = t
	}
	return out, nil
}

func jsonTensor(v any) (*tensor.Tensor, error) {
	dt := tensor.Float
	var dims []int
	var flat []any
	if obj, ok := v.(map[string]any); ok {
		if s, ok := obj["type"].(string); ok {
			d, ok := tensor.ParseDType(s)
			if !ok {
				return nil, fmt.Errorf("unknown type %q", s)
			}
			dt = d
		}
		data, ok := obj["data"].([]any)
		if !ok {
			return nil, fmt.Errorf("no data array")
		}
		flat = data
		if ds, ok := obj["dims"].([]any); ok {
			dims = []int{}
			for _, d := range ds {
				n, ok := d.(json.Number)
				v, err := n.Int64()
				if !ok || err != nil || v < 0 {
					return nil, fmt.Errorf("bad dims")
				}
				dims = append(dims, int(v))
			}
		} else {
			dims = []int{len(flat)}
		}
	} else {
		var walk func(x any, depth int) error
		walk = func(x any, depth int) error {
			arr, ok := x.([]any)
			if !ok {
				if depth < len(dims) {
					return fmt.Errorf("ragged nested array")
				}
				flat = append(flat, x)
				return nil
			}
			if depth == len(dims) {
				dims = append(dims, len(arr))
			} else if dims[depth] != len(arr) {
				return fmt.Errorf("ragged nested array")
			}
			for _, e := range arr {
				if err := walk(e, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		dims = []int{}
		if err := walk(v, 0); err != nil {
			return nil, err
		}
		if len(flat) > 0 {
			if _, isBool := flat[0].(bool); isBool {
				dt = tensor.Bool
			}
		}
	}
	n, ok := tensor.Size(dims)
	if !ok || n != len(flat) {
		return nil, fmt.Errorf("dims %v need %d values, data has %d", dims, n, len(flat))
	}
	t := tensor.New(dt, dims...)
	for i, x := range flat {
		if err := setJSON(t, i, x); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func setJSON(t *tensor.Tensor, i int, x any) error {
	if s, ok := t.Data().([]string); ok {
		v, ok := x.(string)
		if !ok {
			return fmt.Errorf("element %d is not a string", i)
		}
		s[i] = v
		return nil
	}
	if b, ok := t.Data().([]bool); ok {
		v, ok := x.(bool)
		if !ok {
			return fmt.Errorf("element %d is not a boolean", i)
		}
		b[i] = v
		return nil
	}
	var f float64
	switch v := x.(type) {
	case json.Number:
		var err error
		if f, err = v.Float64(); err != nil {
			return err
		}
	case string: // "NaN", "Infinity", "-Inf"
		var err error
		if f, err = strconv.ParseFloat(strings.TrimSpace(v), 64); err != nil {
			return fmt.Errorf("element %d: %q", i, v)
		}
	default:
		return fmt.Errorf("element %d is not a number", i)
	}
	switch d := t.Data().(type) {
	case []float32:
		d[i] = float32(f)
	case []float64:
		d[i] = f
	case []int64:
		d[i] = int64(f)
	case []int32:
		d[i] = int32(f)
	case []int16:
		d[i] = int16(f)
	case []int8:
		d[i] = int8(f)
	case []uint8:
		d[i] = uint8(f)
	case []uint16:
		d[i] = uint16(f)
	case []uint32:
		d[i] = uint32(f)
	case []uint64:
		d[i] = uint64(f)
	default:
		return fmt.Errorf("JSON input of %s is not supported", t.DType())
	}
	return nil
}

// feeds builds the inputs of a run: --data, --inputs, then random values for the rest.
func (d *dataFlags) feeds(s *runtime.Session) (map[string]tensor.Value, []string, error) {
	return d.feedsGuessing(s, firstGuess)
}

func (d *dataFlags) feedsGuessing(s *runtime.Session, g guess) (map[string]tensor.Value, []string, error) {
	feeds := map[string]tensor.Value{}
	var names []string
	for _, in := range s.Inputs() {
		names = append(names, in.Name)
	}
	notes := []string{}
	if *d.data != "" {
		// input_<i>.pb feeds the i-th input that is not an initializer, as in the ONNX backend runner.
		for i, in := range s.Inputs() {
			b, err := readFile(filepath.Join(*d.data, fmt.Sprintf("input_%d.pb", i)))
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, nil, err
			}
			v, err := protoconv.DecodeValue(b, in.Type.ValueKind(), 0)
			if err != nil {
				return nil, nil, fmt.Errorf("input_%d.pb: %w", i, err)
			}
			feeds[in.Name] = v
		}
	}
	for _, arg := range d.inputs {
		vals, err := readValues(arg, names)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range vals {
			if !slices.Contains(names, k) {
				return nil, nil, fmt.Errorf("%s: the model has no input %q (inputs: %s)", arg, k, strings.Join(names, ", "))
			}
			feeds[k] = v
		}
	}
	dims, err := parseDims(d.dims)
	if err != nil {
		return nil, nil, err
	}
	lo, hi := int64(0), g.intHi-1
	if *d.intRange != "" {
		if lo, hi, err = parseRange(*d.intRange); err != nil {
			return nil, nil, err
		}
	}
	d.guessed = false
	for _, in := range s.Inputs() {
		if _, ok := feeds[in.Name]; ok {
			continue
		}
		t, guessed, err := randomTensor(in, dims, g.dim, lo, hi)
		if err != nil {
			return nil, nil, err
		}
		d.guessed = d.guessed || guessed || (*d.intRange == "" && isInteger(t.DType()))
		feeds[in.Name] = t
		notes = append(notes, fmt.Sprintf("input %s: random %s", in.Name, t.DType().String()+fmt.Sprint(t.Shape())))
	}
	return feeds, notes, nil
}

// expectedValues reads expected outputs from --data (output_<i>.pb) and --expected.
func (d *dataFlags) expectedValues(s *runtime.Session) (map[string]tensor.Value, error) {
	out := map[string]tensor.Value{}
	var names []string
	for _, o := range s.Outputs() {
		names = append(names, o.Name)
	}
	if *d.data != "" {
		for i, o := range s.Model().Graph.Outputs {
			b, err := readFile(filepath.Join(*d.data, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				return nil, err
			}
			v, err := protoconv.DecodeValue(b, o.Type.ValueKind(), 0)
			if err != nil {
				return nil, fmt.Errorf("output_%d.pb: %w", i, err)
			}
			out[o.Name] = v
		}
	}
	for _, arg := range d.expected {
		vals, err := readValues(arg, names)
		if err != nil {
			return nil, err
		}
		for k, v := range vals {
			if !slices.Contains(names, k) {
				return nil, fmt.Errorf("%s: the model has no output %q (outputs: %s)", arg, k, strings.Join(names, ", "))
			}
			out[k] = v
		}
	}
	return out, nil
}

// parseDims reads the --dim NAME=VALUE arguments.
func parseDims(args []string) (map[string]int, error) {
	dims := map[string]int{}
	for _, a := range args {
		name, v, ok := strings.Cut(a, "=")
		n, err := strconv.Atoi(v)
		if !ok || name == "" || err != nil || n < 0 {
			return nil, fmt.Errorf("--dim %s: want NAME=VALUE with a size of 0 or more", a)
		}
		dims[name] = n
	}
	return dims, nil
}

// parseRange reads --int-range LO:HI (a span under 2^62).
func parseRange(s string) (lo, hi int64, err error) {
	a, b, ok := strings.Cut(s, ":")
	lo, err1 := strconv.ParseInt(a, 10, 64)
	hi, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || lo > hi || hi/2-lo/2 >= 1<<61 {
		return 0, 0, fmt.Errorf("--int-range %s: want LO:HI with LO <= HI", s)
	}
	return lo, hi, nil
}

func isInteger(dt tensor.DType) bool {
	switch dt {
	case tensor.Int8, tensor.Int16, tensor.Int32, tensor.Int64, tensor.Uint8, tensor.Uint16, tensor.Uint32, tensor.Uint64:
		return true
	}
	return false
}

// randomTensor makes a feed for a declared input: a symbolic dim takes
// its size in dims, else dim, as does an unknown dim (guessed reports
// such a dim); integers are drawn from [lo, hi].
func randomTensor(in runtime.IOInfo, dims map[string]int, dim int, lo, hi int64) (t *tensor.Tensor, guessed bool, err error) {
	if in.Type.Kind != graph.KindTensor {
		return nil, false, fmt.Errorf("input %q is a %s; random feeds are only made for tensors", in.Name, in.Type.Kind)
	}
	shape := make([]int, len(in.Type.Shape))
	for i, d := range in.Type.Shape {
		switch n, ok := dims[d.Param]; {
		case d.Known():
			shape[i] = int(d.Value)
		case ok && d.Param != "":
			shape[i] = n
		default:
			shape[i], guessed = dim, true
		}
	}
	if n, ok := tensor.Size(shape); !ok || n > 1<<28 {
		return nil, false, fmt.Errorf("input %q has an invalid shape %v", in.Name, shape)
	}
	t = tensor.New(in.Type.Elem, shape...)
	r := rand.New(rand.NewPCG(1, 2))
	span := uint64(hi - lo + 1)
	switch d := t.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = r.Float32()*2 - 1
		}
		// float16 and bfloat16 are stored as float32: hold them to values
		// of their own type, as a real feed would be.
		tensor.RoundTo(in.Type.Elem, d)
	case []float64:
		for i := range d {
			d[i] = r.Float64()*2 - 1
		}
	case []int64:
		for i := range d {
			d[i] = lo + int64(r.Uint64N(span))
		}
	case []int32:
		for i := range d {
			d[i] = int32(lo + int64(r.Uint64N(span)))
		}
	case []bool:
		for i := range d {
			d[i] = r.IntN(2) == 1
		}
	}
	return t, guessed, nil
}

// fileName makes a value name safe as a file name (for --save-values and
// --reference folders): characters outside [A-Za-z0-9._-] become '_'.
func fileName(value string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-':
			return r
		}
		return '_'
	}, value)
}
