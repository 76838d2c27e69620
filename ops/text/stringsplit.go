package text

import (
	"strings"
	"unicode"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("StringSplit", []int{20}, buildStringSplit)
}

// buildStringSplit follows Python's str.split, which the spec is modelled on:
// with a delimiter every occurrence splits (so empty pieces are kept);
// without one (absent or ""), runs of whitespace split and leading/trailing
// whitespace yields no pieces. maxsplit bounds the number of splits; the rest
// of the string stays in the last piece. Rows are padded with "" to the
// longest split; the second output counts each element's pieces.
func buildStringSplit(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	delim := a.String("delimiter", "")
	maxsplit := a.Int("maxsplit", -1)
	if a.Err != nil {
		return nil, a.Err
	}
	if !n.Has("maxsplit") {
		maxsplit = -1
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("StringSplit needs an input")
		}
		x := in[0]
		if x.DType() != tensor.String {
			return nil, op.Errorf("StringSplit needs strings, got %s", x.DType())
		}
		xs := x.Strings()
		parts := make([][]string, len(xs))
		width := 0
		for i, s := range xs {
			if delim == "" {
				parts[i] = splitSpace(s, int(maxsplit))
			} else {
				parts[i] = strings.SplitN(s, delim, splitN(maxsplit))
			}
			width = max(width, len(parts[i]))
		}
		sh := append(append([]int(nil), x.Shape()...), width)
		out := ctx.New(tensor.String, sh...)
		counts := ctx.New(tensor.Int64, x.Shape()...)
		os, cs := out.Strings(), counts.I64()
		for i, p := range parts {
			copy(os[i*width:], p)
			cs[i] = int64(len(p))
		}
		return []*tensor.Tensor{out, counts}, nil
	}), nil
}

// splitN turns a maxsplit (negative: unlimited) into strings.SplitN's count.
func splitN(maxsplit int64) int {
	if maxsplit < 0 {
		return -1
	}
	return int(maxsplit) + 1
}

// splitSpace is Python's s.split(None, maxsplit): whitespace runs separate,
// and once maxsplit splits are made the remainder (left-trimmed) is the last piece.
func splitSpace(s string, maxsplit int) []string {
	var out []string
	rest := strings.TrimLeftFunc(s, unicode.IsSpace)
	for rest != "" {
		if maxsplit >= 0 && len(out) == maxsplit {
			out = append(out, strings.TrimRightFunc(rest, unicode.IsSpace))
			break
		}
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			out = append(out, rest)
			break
		}
		out = append(out, rest[:end])
		rest = strings.TrimLeftFunc(rest[end:], unicode.IsSpace)
	}
	return out
}
