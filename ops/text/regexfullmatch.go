package text

import (
	"regexp"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Register("RegexFullMatch", []int{20}, buildRegexFullMatch)
}

// buildRegexFullMatch: the spec names RE2 syntax, which is exactly Go's
// regexp, so patterns compile unchanged; anchoring the whole pattern in a
// non-capturing group turns a search into a full match.
func buildRegexFullMatch(n *op.Node) (any, error) {
	pat, err := n.String("pattern", "")
	if err != nil {
		return nil, err
	}
	if !n.Has("pattern") {
		return nil, n.Errorf("RegexFullMatch needs a pattern")
	}
	re, err := regexp.Compile(`^(?:` + pat + `)$`)
	if err != nil {
		return nil, n.Errorf("invalid pattern %q: %v", pat, err)
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) < 1 || in[0] == nil || in[0].DType() != tensor.String {
			return nil, op.Errorf("RegexFullMatch needs a string tensor")
		}
		x := in[0]
		out := ctx.New(tensor.Bool, x.Shape()...)
		bs := out.Bools()
		for i, s := range x.Strings() {
			bs[i] = re.MatchString(s)
		}
		return ctx.One(out), nil
	}), nil
}
