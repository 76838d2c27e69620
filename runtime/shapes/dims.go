package shapes

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gort-dev/gort/runtime/graph"
)

// Symbolic dims are kept as products: a coefficient times named factors
// ("batch", "2*N", "C*H*W"). Products are what reshapes, flattens and
// broadcasts make of dims, and they compare by their canonical text. Sums
// (a Concat of symbolic axes) become an opaque factor "(N+M)".

type mono struct {
	coef  int64
	names []string // sorted
}

// Known is the dim of length v.
func Known(v int64) graph.Dim { return graph.Dim{Value: v} }

var unknownDim = graph.Dim{Value: -1}

// Unknown is a dim of unknown length (neither a number nor a symbol).
func Unknown() graph.Dim { return unknownDim }

// Unknowns is a shape of rank n whose dims are all unknown.
func Unknowns(n int) []graph.Dim {
	out := make([]graph.Dim, n)
	for i := range out {
		out[i] = unknownDim
	}
	return out
}

// IsKnown reports a dim whose length is a number.
func IsKnown(d graph.Dim) bool { return d.Param == "" && d.Value >= 0 }

// IsUnknown reports a dim that is neither a number nor a symbol.
func IsUnknown(d graph.Dim) bool { return d.Param == "" && d.Value < 0 }

// monoOf reads a dim as a product; ok is false for an unknown dim.
func monoOf(d graph.Dim) (mono, bool) {
	if IsKnown(d) {
		return mono{coef: d.Value}, true
	}
	if d.Param == "" {
		return mono{}, false
	}
	m := mono{coef: 1}
	for _, f := range splitFactors(d.Param) {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil {
			m.coef *= n
		} else {
			m.names = append(m.names, f)
		}
	}
	sort.Strings(m.names)
	return m, true
}

// splitFactors splits at '*' outside parentheses.
func splitFactors(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
		case '*':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func (m mono) dim() graph.Dim {
	if len(m.names) == 0 {
		return Known(m.coef)
	}
	if m.coef == 0 {
		return Known(0)
	}
	parts := m.names
	if m.coef != 1 {
		parts = append([]string{strconv.FormatInt(m.coef, 10)}, m.names...)
	}
	return graph.Dim{Value: -1, Param: strings.Join(parts, "*")}
}

// DimMul multiplies two dims (symbolic ones as products: 2*N).
func DimMul(a, b graph.Dim) graph.Dim {
	ma, oka := monoOf(a)
	mb, okb := monoOf(b)
	if (oka && ma.coef == 0 && len(ma.names) == 0) || (okb && mb.coef == 0 && len(mb.names) == 0) {
		return Known(0)
	}
	if !oka || !okb {
		return unknownDim
	}
	if ma.coef != 0 && mb.coef != 0 && (abs(ma.coef) > 1<<31 || abs(mb.coef) > 1<<31) {
		return unknownDim
	}
	names := append(append([]string(nil), ma.names...), mb.names...)
	sort.Strings(names)
	return mono{coef: ma.coef * mb.coef, names: names}.dim()
}

// DimDiv divides exactly; unknown when the quotient is not a product.
func DimDiv(a, b graph.Dim) graph.Dim {
	ma, oka := monoOf(a)
	mb, okb := monoOf(b)
	if !oka || !okb || mb.coef == 0 || ma.coef%mb.coef != 0 {
		return unknownDim
	}
	rest := append([]string(nil), ma.names...)
	for _, n := range mb.names {
		i := indexOf(rest, n)
		if i < 0 {
			return unknownDim
		}
		rest = append(rest[:i], rest[i+1:]...)
	}
	return mono{coef: ma.coef / mb.coef, names: rest}.dim()
}

// DimAdd adds two dims; a sum of symbols is an opaque factor "(N+M)".
func DimAdd(a, b graph.Dim) graph.Dim {
	if IsKnown(a) && IsKnown(b) {
		return Known(a.Value + b.Value)
	}
	if IsUnknown(a) || IsUnknown(b) {
		return unknownDim
	}
	if IsKnown(a) && a.Value == 0 {
		return b
	}
	if IsKnown(b) && b.Value == 0 {
		return a
	}
	if IsKnown(b) || b.Param != "" && b.Param[0] != '(' && IsKnown(a) {
		if IsKnown(a) {
			a, b = b, a
		}
		if b.Value < 0 {
			return graph.Dim{Value: -1, Param: "(" + a.String() + "-" + strconv.FormatInt(-b.Value, 10) + ")"}
		}
	}
	return graph.Dim{Value: -1, Param: "(" + a.String() + "+" + b.String() + ")"}
}

// DimSub subtracts known dims; x-0 is x; anything else is unknown.
func DimSub(x, y graph.Dim) graph.Dim {
	switch {
	case IsKnown(x) && IsKnown(y):
		return Known(x.Value - y.Value)
	case IsKnown(y) && y.Value == 0:
		return x
	}
	return unknownDim
}

// CountsDiffer reports element counts that differ for every non-empty
// tensor: a symbolic product a and a product b of the same symbols with
// another coefficient (N*6 elements cannot become N*12).
func CountsDiffer(a, b graph.Dim) bool {
	ma, ok1 := monoOf(a)
	if !ok1 || IsKnown(a) {
		return false
	}
	mb, ok2 := monoOf(b)
	return ok2 && slices.Equal(ma.names, mb.names) && ma.coef != mb.coef
}

// Product is the number of elements of a shape.
func Product(shape []graph.Dim) graph.Dim {
	p := Known(1)
	for _, d := range shape {
		p = DimMul(p, d)
	}
	return p
}

func sameDim(a, b graph.Dim) bool {
	if IsUnknown(a) || IsUnknown(b) {
		return false
	}
	return a.String() == b.String()
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// broadcastDims merges two dims of one axis by NumPy's rule. conflict is set
// when both are known, differ and neither is 1.
func broadcastDims(a, b graph.Dim) (d graph.Dim, conflict bool) {
	switch {
	case IsKnown(a) && IsKnown(b):
		if a.Value == b.Value || b.Value == 1 {
			return a, false
		}
		if a.Value == 1 {
			return b, false
		}
		return unknownDim, true
	case IsKnown(a) && a.Value == 1:
		return b, false
	case IsKnown(b) && b.Value == 1:
		return a, false
	case IsKnown(a) && !IsUnknown(b):
		return a, false // a symbolic dim broadcast with k ≠ 1 must be k
	case IsKnown(b) && !IsUnknown(a):
		return b, false
	case sameDim(a, b):
		return a, false
	case IsKnown(a):
		return a, false
	case IsKnown(b):
		return b, false
	}
	return unknownDim, false
}

// Merge keeps what two shapes agree on (nil when the ranks differ or a
// shape is unknown).
func Merge(a, b []graph.Dim) []graph.Dim {
	if a == nil || b == nil || len(a) != len(b) {
		return nil
	}
	out := make([]graph.Dim, len(a))
	for i := range a {
		if sameDim(a[i], b[i]) {
			out[i] = a[i]
		} else {
			out[i] = unknownDim
		}
	}
	return out
}

// ShapeString renders a shape for messages: [N,3,224,224], [?] when unknown.
func ShapeString(s []graph.Dim) string {
	if s == nil {
		return "[?]"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}
