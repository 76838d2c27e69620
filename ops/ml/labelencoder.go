package ml

import (
	"math"
	"strconv"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Default.Register(Domain, "LabelEncoder", []int{1}, buildLabelEncoderV1)
	op.Default.Register(Domain, "LabelEncoder", []int{2, 4}, buildLabelEncoder)
}

// keyOf canonicalises element i of t as a map key. Integers and floats get
// distinct prefixes so an int64 input never matches float keys; every NaN
// is one key, as the spec requires, and -0 matches 0.
func keyOf(t *tensor.Tensor, i int) string {
	switch d := t.Data().(type) {
	case []string:
		return "s" + d[i]
	case []float32:
		return floatKey(float64(d[i]))
	case []float64:
		return floatKey(d[i])
	}
	v, _ := t.Int64s()
	return "i" + strconv.FormatInt(v[i], 10)
}

func floatKey(v float64) string {
	if math.IsNaN(v) {
		return "fNaN"
	}
	if v == 0 {
		v = 0
	}
	return "f" + strconv.FormatFloat(v, 'g', -1, 64)
}

// encoder maps keys to positions in vals; unmatched inputs get def.
type encoder struct {
	index map[string]int
	vals  *tensor.Tensor // 1-D
	def   *tensor.Tensor // one element, same dtype as vals
}

func (e *encoder) run(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if len(in) < 1 || in[0] == nil {
		return nil, op.Errorf("LabelEncoder needs an input")
	}
	x := in[0]
	if x.DType() != tensor.String && !x.DType().IsFloat() && x.DType() != tensor.Double {
		if _, err := x.Int64s(); err != nil {
			return nil, op.Errorf("LabelEncoder does not support %s input", x.DType())
		}
	}
	out := ctx.New(e.vals.DType(), x.Shape()...)
	for i := 0; i < x.Len(); i++ {
		if j, ok := e.index[keyOf(x, i)]; ok {
			tensor.SetFrom(out, i, e.vals, j)
		} else {
			tensor.SetFrom(out, i, e.def, 0)
		}
	}
	return ctx.One(out), nil
}

// buildLabelEncoderV1: one class list; string input looks up its position
// (int64 output), int64 input indexes the list (string output).
func buildLabelEncoderV1(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	classes := a.Strings("classes_strings")
	defInt := a.Int("default_int64", -1)
	defStr := a.String("default_string", "_Unused")
	if a.Err != nil {
		return nil, a.Err
	}
	toInt := &encoder{index: map[string]int{}, def: tensor.Of([]int{1}, []int64{defInt})}
	idx := make([]int64, len(classes))
	toStr := &encoder{index: map[string]int{}, vals: tensor.Of([]int{len(classes)}, classes), def: tensor.Of([]int{1}, []string{defStr})}
	for i, c := range classes {
		if _, dup := toInt.index["s"+c]; !dup {
			toInt.index["s"+c] = i
		}
		idx[i] = int64(i)
		toStr.index["i"+strconv.Itoa(i)] = i
	}
	toInt.vals = tensor.Of([]int{len(idx)}, idx)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) > 0 && in[0] != nil && in[0].DType() == tensor.String {
			return toInt.run(ctx, in)
		}
		if len(in) > 0 && in[0] != nil && in[0].DType() != tensor.Int64 {
			return nil, op.Errorf("LabelEncoder-1 takes string or int64 input, got %s", in[0].DType())
		}
		return toStr.run(ctx, in)
	}), nil
}

// buildLabelEncoder (versions 2 and 4): parallel key and value lists, each
// given as one of keys_{strings,int64s,floats} (or, from version 4, a
// keys_tensor of any type), and the default matching the values' type.
func buildLabelEncoder(n *op.Node) (any, error) {
	keys, err := listAttr(n, "keys")
	if err != nil {
		return nil, err
	}
	vals, err := listAttr(n, "values")
	if err != nil {
		return nil, err
	}
	if keys.Len() != vals.Len() {
		return nil, n.Errorf("%d keys but %d values", keys.Len(), vals.Len())
	}
	def, err := n.Tensor("default_tensor")
	if err != nil {
		return nil, err
	}
	if def == nil {
		a := &op.Attribs{N: n}
		switch vals.DType() {
		case tensor.String:
			def = tensor.Of([]int{1}, []string{a.String("default_string", "_Unused")})
		case tensor.Float:
			def = tensor.Of([]int{1}, []float32{a.Float("default_float", float32(math.Copysign(0, -1)))})
		case tensor.Int64:
			def = tensor.Of([]int{1}, []int64{a.Int("default_int64", -1)})
		default:
			def = kindDefault(vals.DType())
		}
		if a.Err != nil {
			return nil, a.Err
		}
	}
	if def.Len() != 1 || def.DType() != vals.DType() {
		return nil, n.Errorf("default_tensor must be one %s element, got %s%v", vals.DType(), def.DType(), def.Shape())
	}
	e := &encoder{index: map[string]int{}, vals: vals.Reshaped([]int{vals.Len()}), def: def.Reshaped([]int{1})}
	for i := 0; i < keys.Len(); i++ {
		k := keyOf(keys, i)
		if _, dup := e.index[k]; !dup {
			e.index[k] = i
		}
	}
	return op.KernelFunc(e.run), nil
}

// listAttr reads exactly one of <prefix>_strings, _int64s, _floats or
// _tensor as a tensor.
func listAttr(n *op.Node, prefix string) (*tensor.Tensor, error) {
	var found []*tensor.Tensor
	if v, ok, err := n.Strings(prefix + "_strings"); err != nil {
		return nil, err
	} else if ok {
		found = append(found, tensor.Of([]int{len(v)}, v))
	}
	if v, ok, err := n.Ints(prefix + "_int64s"); err != nil {
		return nil, err
	} else if ok {
		found = append(found, tensor.Of([]int{len(v)}, v))
	}
	if v, ok, err := n.Floats(prefix + "_floats"); err != nil {
		return nil, err
	} else if ok {
		found = append(found, tensor.Of([]int{len(v)}, v))
	}
	if n.Version >= 4 {
		if t, err := n.Tensor(prefix + "_tensor"); err != nil {
			return nil, err
		} else if t != nil {
			found = append(found, t)
		}
	}
	if len(found) != 1 {
		return nil, n.Errorf("exactly one %s_* attribute must be set, found %d", prefix, len(found))
	}
	return found[0], nil
}

// kindDefault is the spec's default for tensor values without a
// default_tensor: "_Unused" for strings, -1 for signed integers, -0.0 for
// floats (unsigned integers get 0, having no -1).
func kindDefault(dt tensor.DType) *tensor.Tensor {
	t := tensor.New(dt, 1)
	negZero := math.Copysign(0, -1)
	switch d := t.Data().(type) {
	case []string:
		d[0] = "_Unused"
	case []float64:
		d[0] = negZero
	case []float32:
		d[0] = float32(negZero)
	case []int8:
		d[0] = -1
	case []int16:
		d[0] = -1
	case []int32:
		d[0] = -1
	case []int64:
		d[0] = -1
	}
	return t
}
