package text

import (
	"strings"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("StringNormalizer", []int{10}, buildStringNormalizer)
}

// buildStringNormalizer: drop stopwords (compared case-insensitively unless
// is_case_sensitive), then change case. The locale attribute is accepted but
// only Go's Unicode default case mapping is applied: locale-specific rules
// (Turkish dotted i and the like) are not implemented.
func buildStringNormalizer(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	action := a.String("case_change_action", "NONE")
	sensitive := a.Int("is_case_sensitive", 0) != 0
	stop := a.Strings("stopwords")
	if a.Err != nil {
		return nil, a.Err
	}
	var change func(string) string
	switch action {
	case "NONE":
		change = func(s string) string { return s }
	case "LOWER":
		change = strings.ToLower
	case "UPPER":
		change = strings.ToUpper
	default:
		return nil, n.Errorf("case_change_action must be NONE, LOWER or UPPER, got %q", action)
	}
	stopSet := map[string]bool{}
	for _, s := range stop {
		if !sensitive {
			s = strings.ToLower(s)
		}
		stopSet[s] = true
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil {
			return nil, op.Errorf("StringNormalizer needs an input")
		}
		x := in[0]
		if x.DType() != tensor.String {
			return nil, op.Errorf("StringNormalizer needs strings, got %s", x.DType())
		}
		sh := x.Shape()
		twoDim := len(sh) == 2
		if !(len(sh) == 1 || twoDim && sh[0] == 1) {
			return nil, op.Errorf("StringNormalizer input must be [C] or [1, C], got %v", sh)
		}
		var kept []string
		for _, s := range x.Strings() {
			key := s
			if !sensitive {
				key = strings.ToLower(s)
			}
			if stopSet[key] {
				continue
			}
			kept = append(kept, change(s))
		}
		// Everything filtered out: the spec keeps one empty string so the
		// output is never empty.
		if len(kept) == 0 {
			kept = []string{""}
		}
		shape := []int{len(kept)}
		if twoDim {
			shape = []int{1, len(kept)}
		}
		return []*tensor.Tensor{tensor.Of(shape, kept)}, nil
	}), nil
}
