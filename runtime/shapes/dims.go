package shapes

import (
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

func known(v int64) graph.Dim { return graph.Dim{Value: v} }

var unknownDim = graph.Dim{Value: -1}

func isKnown(d graph.Dim) bool { return d.Param == "" && d.Value >= 0 }

func isUnknown(d graph.Dim) bool { return d.Param == "" && d.Value < 0 }

// monoOf reads a dim as a product; ok is false for an unknown dim.
func monoOf(d graph.Dim) (mono, bool) {
	if isKnown(d) {
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
		return known(m.coef)
	}
	if m.coef == 0 {
		return known(0)
	}
	parts := m.names
	if m.coef != 1 {
		parts = append([]string{strconv.FormatInt(m.coef, 10)}, m.names...)
	}
	return graph.Dim{Value: -1, Param: strings.Join(parts, "*")}
}

func dimMul(a, b graph.Dim) graph.Dim {
	ma, oka := monoOf(a)
	mb, okb := monoOf(b)
	if (oka && ma.coef == 0 && len(ma.names) == 0) || (okb && mb.coef == 0 && len(mb.names) == 0) {
		return known(0)
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

// dimDiv divides exactly; unknown when the quotient is not a product.
func dimDiv(a, b graph.Dim) graph.Dim {
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

func dimAdd(a, b graph.Dim) graph.Dim {
	if isKnown(a) && isKnown(b) {
		return known(a.Value + b.Value)
	}
	if isUnknown(a) || isUnknown(b) {
		return unknownDim
	}
	if isKnown(a) && a.Value == 0 {
		return b
	}
	if isKnown(b) && b.Value == 0 {
		return a
	}
	if isKnown(b) || b.Param != "" && b.Param[0] != '(' && isKnown(a) {
		if isKnown(a) {
			a, b = b, a
		}
		if b.Value < 0 {
			return graph.Dim{Value: -1, Param: "(" + a.String() + "-" + strconv.FormatInt(-b.Value, 10) + ")"}
		}
	}
	return graph.Dim{Value: -1, Param: "(" + a.String() + "+" + b.String() + ")"}
}

func product(shape []graph.Dim) graph.Dim {
	p := known(1)
	for _, d := range shape {
		p = dimMul(p, d)
	}
	return p
}

func sameDim(a, b graph.Dim) bool {
	if isUnknown(a) || isUnknown(b) {
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
	case isKnown(a) && isKnown(b):
		if a.Value == b.Value || b.Value == 1 {
			return a, false
		}
		if a.Value == 1 {
			return b, false
		}
		return unknownDim, true
	case isKnown(a) && a.Value == 1:
		return b, false
	case isKnown(b) && b.Value == 1:
		return a, false
	case isKnown(a) && !isUnknown(b):
		return a, false // a symbolic dim broadcast with k ≠ 1 must be k
	case isKnown(b) && !isUnknown(a):
		return b, false
	case sameDim(a, b):
		return a, false
	case isKnown(a):
		return a, false
	case isKnown(b):
		return b, false
	}
	return unknownDim, false
}

func shapeString(s []graph.Dim) string {
	if s == nil {
		return "[?]"
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ",") + "]"
}
