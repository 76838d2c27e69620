package shapes

import (
	"sort"
	"strings"

	"github.com/gort-dev/gort/runtime/graph"
)

func init() { rules["Einsum"] = einsumRule }

// einsumRule: each letter names one dim across the operands; "..." stands
// for broadcast leading dims. Without "->" the output is the ellipsis dims,
// then the letters used once, in alphabetical order (NumPy's implicit mode).
func einsumRule(c *nodeCtx) {
	eq := strings.ReplaceAll(c.attrString("equation", ""), " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != len(c.ins) {
		c.set(0, nil, "")
		return
	}
	dims := map[rune]graph.Dim{}
	count := map[rune]int{}
	var ell [][]graph.Dim
	for i, term := range terms {
		s := c.shape(i)
		if s == nil {
			c.set(0, nil, "")
			return
		}
		letters := strings.Replace(term, "...", "", 1)
		if strings.ContainsAny(letters, ".") || !isLetters(letters) {
			c.problem("EINSUM", "term %q: an equation term is letters with at most one \"...\"", term)
			return
		}
		nl := len([]rune(letters))
		hasEll := strings.Contains(term, "...")
		if nl > len(s) || (!hasEll && nl != len(s)) {
			c.problem("RANK", "Einsum term %q does not fit input %d of shape %s", term, i, shapeString(s))
			return
		}
		// Walk the term, mapping letters and the ellipsis to dims.
		k := 0
		for j := 0; j < len(term); {
			if strings.HasPrefix(term[j:], "...") {
				n := len(s) - nl
				ell = append(ell, s[k:k+n])
				k += n
				j += 3
				continue
			}
			r := rune(term[j])
			d := s[k]
			if old, ok := dims[r]; ok {
				if isKnown(old) && isKnown(d) && old.Value != d.Value {
					c.problem("EINSUM", "letter %c is %d in one operand and %d in input %d", r, old.Value, d.Value, i)
					return
				}
				if !isKnown(old) && isKnown(d) {
					dims[r] = d
				}
			} else {
				dims[r] = d
			}
			count[r]++
			k++
			j++
		}
	}
	var ellOut []graph.Dim
	if len(ell) > 0 {
		b, ok := broadcastShapes(c, ell)
		if !ok {
			return
		}
		ellOut = b
	}
	out := []graph.Dim{}
	if explicit && (strings.Count(rhs, "...") > 1 || !isLetters(strings.Replace(rhs, "...", "", 1))) {
		c.problem("EINSUM", "output %q: letters with at most one \"...\"", rhs)
		return
	}
	if explicit {
		for j := 0; j < len(rhs); {
			if strings.HasPrefix(rhs[j:], "...") {
				out = append(out, ellOut...)
				j += 3
				continue
			}
			d, ok := dims[rune(rhs[j])]
			if !ok {
				c.problem("EINSUM", "output letter %c appears in no input", rhs[j])
				return
			}
			out = append(out, d)
			j++
		}
	} else {
		out = append(out, ellOut...)
		var once []rune
		for r, n := range count {
			if n == 1 {
				once = append(once, r)
			}
		}
		sort.Slice(once, func(i, j int) bool { return once[i] < once[j] })
		for _, r := range once {
			out = append(out, dims[r])
		}
	}
	c.set(0, out, "")
}

func isLetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
