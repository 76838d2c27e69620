package nn

import (
	"slices"
	"strings"

	"github.com/gort-dev/gort/ops/kernels"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/shapes"
	"github.com/gort-dev/gort/runtime/tensor"
	"sort"
)

// Einsum-12. The equation is parsed once at build time; ranks (and so what
// an ellipsis covers) are only known at run time.
//
// Evaluation: every operand is first reduced to the labels still needed
// (summing labels no one else uses, taking diagonals of repeated labels);
// then operands are contracted left to right, each pair laid out as
// [batch, free, contracted] × [batch, contracted, free] and handed to a
// batched GEMM (kernels.Sgemm/Dgemm for float32/float64, a plain loop for
// integers). A final gather sums what the output drops and permutes into the
// output order. One strided "gather" routine does diagonal, sum, transpose
// and broadcast alike: a label's stride is the sum of the strides of all its
// positions (which walks the diagonal), or 0 where the operand broadcasts a
// size-1 ellipsis dimension.
func init() {
	op.Register("Einsum", []int{12}, buildEinsum)
	shapes.Register("", "Einsum", inferEinsum)
}

// Label ids: letters in ASCII order ('A'..'Z' = 0..25, 'a'..'z' = 26..51),
// so sorting ids sorts as the implicit output requires; ellipsis dimension j
// (right-aligned, of the widest ellipsis) is ellipsisBase+j.
const ellipsisBase = 52

func letterID(c byte) (int, bool) {
	switch {
	case c >= 'A' && c <= 'Z':
		return int(c - 'A'), true
	case c >= 'a' && c <= 'z':
		return 26 + int(c-'a'), true
	}
	return 0, false
}

// einsumTerm is one side of the equation: letters before and after an
// optional ellipsis.
type einsumTerm struct {
	pre, post   []int
	hasEllipsis bool
}

type einsumSpec struct {
	inputs   []einsumTerm
	output   einsumTerm
	explicit bool
}

func parseTerm(s string) (einsumTerm, error) {
	var t einsumTerm
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], "...") {
			if t.hasEllipsis {
				return t, op.Errorf("term %q has two ellipses", s)
			}
			t.hasEllipsis = true
			i += 3
			continue
		}
		id, ok := letterID(s[i])
		if !ok {
			return t, op.Errorf("term %q: invalid character %q", s, s[i])
		}
		if t.hasEllipsis {
			t.post = append(t.post, id)
		} else {
			t.pre = append(t.pre, id)
		}
		i++
	}
	return t, nil
}

func parseEinsum(eq string) (*einsumSpec, error) {
	eq = strings.ReplaceAll(eq, " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	sp := &einsumSpec{explicit: explicit}
	for _, term := range strings.Split(lhs, ",") {
		t, err := parseTerm(term)
		if err != nil {
			return nil, err
		}
		sp.inputs = append(sp.inputs, t)
	}
	if explicit {
		t, err := parseTerm(rhs)
		if err != nil {
			return nil, err
		}
		seen := map[int]bool{}
		for _, id := range append(append([]int{}, t.pre...), t.post...) {
			if seen[id] {
				return nil, op.Errorf("output term %q repeats a label", rhs)
			}
			seen[id] = true
		}
		sp.output = t
	}
	return sp, nil
}

func buildEinsum(n *op.Node) (any, error) {
	eq, err := n.String("equation", "")
	if err != nil {
		return nil, err
	}
	if !n.Has("equation") {
		return nil, n.Errorf("Einsum needs the attribute equation")
	}
	sp, err := parseEinsum(eq)
	if err != nil {
		return nil, n.Errorf("equation %q: %v", eq, err)
	}
	if len(sp.inputs) != n.NumInputs() {
		return nil, n.Errorf("equation %q has %d terms for %d inputs", eq, len(sp.inputs), n.NumInputs())
	}
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if len(in) != len(sp.inputs) {
			return nil, op.Errorf("Einsum got %d inputs for %d terms", len(in), len(sp.inputs))
		}
		for i, t := range in {
			if t == nil {
				return nil, op.Errorf("Einsum input %d is missing", i)
			}
			if t.DType() != in[0].DType() {
				return nil, op.Errorf("Einsum inputs mix %s and %s", in[0].DType(), t.DType())
			}
		}
		p, err := sp.plan(in)
		if err != nil {
			return nil, err
		}
		switch in[0].Data().(type) {
		case []float32:
			return einsumRun[float32](ctx, p, in)
		case []float64:
			return einsumRun[float64](ctx, p, in)
		case []int8:
			return einsumRun[int8](ctx, p, in)
		case []int16:
			return einsumRun[int16](ctx, p, in)
		case []int32:
			return einsumRun[int32](ctx, p, in)
		case []int64:
			return einsumRun[int64](ctx, p, in)
		case []uint8:
			if in[0].DType().IsCodeType() {
				break
			}
			return einsumRun[uint8](ctx, p, in)
		case []uint16:
			return einsumRun[uint16](ctx, p, in)
		case []uint32:
			return einsumRun[uint32](ctx, p, in)
		case []uint64:
			return einsumRun[uint64](ctx, p, in)
		}
		return nil, op.Errorf("Einsum does not support %s", in[0].DType())
	}), nil
}

// einsumPlan is the equation resolved against actual input shapes.
type einsumPlan struct {
	labels [][]int // per input, one label per dimension (may repeat)
	size   []int   // size of every label id (the broadcast size for ellipsis dims)
	used   []bool
	output []int
}

func (sp *einsumSpec) plan(in []*tensor.Tensor) (*einsumPlan, error) {
	ell := 0 // widest ellipsis
	for i, t := range sp.inputs {
		letters := len(t.pre) + len(t.post)
		r := in[i].Rank()
		switch {
		case t.hasEllipsis && r < letters:
			return nil, op.Errorf("input %d has rank %d, fewer than the %d labels of its term", i, r, letters)
		case !t.hasEllipsis && r != letters:
			return nil, op.Errorf("input %d has rank %d but its term has %d labels", i, r, letters)
		case t.hasEllipsis && r-letters > ell:
			ell = r - letters
		}
	}
	p := &einsumPlan{size: make([]int, ellipsisBase+ell), used: make([]bool, ellipsisBase+ell)}
	for i := range p.size {
		p.size[i] = -1
	}
	count := make([]int, ellipsisBase+ell)
	for i, t := range sp.inputs {
		shape := in[i].Shape()
		e := len(shape) - len(t.pre) - len(t.post)
		ls := append([]int{}, t.pre...)
		for j := 0; j < e; j++ {
			ls = append(ls, ellipsisBase+ell-e+j)
		}
		ls = append(ls, t.post...)
		for d, id := range ls {
			count[id]++
			p.used[id] = true
			switch s := p.size[id]; {
			case s < 0:
				p.size[id] = shape[d]
			case s == shape[d]:
			case id >= ellipsisBase && (s == 1 || shape[d] == 1):
				if shape[d] > s {
					p.size[id] = shape[d]
				}
			default:
				return nil, op.Errorf("label dimension mismatch: input %d dim %d is %d, elsewhere %d", i, d, shape[d], s)
			}
		}
		p.labels = append(p.labels, ls)
	}
	ellOut := make([]int, ell)
	for j := range ellOut {
		ellOut[j] = ellipsisBase + j
	}
	if sp.explicit {
		o := sp.output
		if !o.hasEllipsis {
			ellOut = nil // the broadcast dimensions are summed away
		}
		p.output = append(append(append(p.output, o.pre...), ellOut...), o.post...)
		for _, id := range p.output {
			if !p.used[id] {
				return nil, op.Errorf("output label %s does not occur in any input", labelName(id))
			}
		}
	} else {
		p.output = ellOut
		for id := 0; id < ellipsisBase; id++ {
			if count[id] == 1 {
				p.output = append(p.output, id)
			}
		}
	}
	return p, nil
}

func labelName(id int) string {
	switch {
	case id < 26:
		return string(rune('A' + id))
	case id < ellipsisBase:
		return string(rune('a' + id - 26))
	}
	return "..."
}

// operand is an intermediate: row-major data with one distinct label per dim.
type operand[T tensor.Number] struct {
	labels []int
	shape  []int
	data   []T
}

func einsumRun[T tensor.Number](ctx *op.Context, p *einsumPlan, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	nIn := len(in)
	// neededAfter[i]: labels used by the output or by any input after i.
	neededAfter := make([]map[int]bool, nIn)
	need := map[int]bool{}
	for _, id := range p.output {
		need[id] = true
	}
	for i := nIn - 1; i >= 0; i-- {
		cp := make(map[int]bool, len(need))
		for k := range need {
			cp[k] = true
		}
		neededAfter[i] = cp
		for _, id := range p.labels[i] {
			need[id] = true
		}
	}
	var cur operand[T]
	for i, t := range in {
		// Keep the labels this operand shares with what is still to come
		// (the operands before it are already folded into cur).
		var keep []int
		for _, id := range distinct(p.labels[i]) {
			if neededAfter[i][id] || (i > 0 && contains(cur.labels, id)) {
				keep = append(keep, id)
			}
		}
		x, err := gather(ctx, p, p.labels[i], t.Shape(), tensor.Data[T](t), keep)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			cur = x
			continue
		}
		if cur, err = contract(ctx, p, cur, x, neededAfter[i]); err != nil {
			return nil, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	res, err := gather(ctx, p, cur.labels, cur.shape, cur.data, p.output)
	if err != nil {
		return nil, err
	}
	out := ctx.New(in[0].DType(), res.shape...)
	copy(tensor.Data[T](out), res.data)
	return ctx.One(out), nil
}

// contract multiplies a and b, summing the labels they share that nothing
// later needs, by a batched matrix product.
func contract[T tensor.Number](ctx *op.Context, p *einsumPlan, a, b operand[T], keep map[int]bool) (operand[T], error) {
	var batch, aFree, bFree, sum []int
	for _, id := range a.labels {
		switch {
		case contains(b.labels, id) && keep[id]:
			batch = append(batch, id)
		case contains(b.labels, id):
			sum = append(sum, id)
		case keep[id]:
			aFree = append(aFree, id)
		}
	}
	for _, id := range b.labels {
		if !contains(a.labels, id) && keep[id] {
			bFree = append(bFree, id)
		}
	}
	// Labels in only one operand that nothing needs are summed by gather.
	A, err := gather(ctx, p, a.labels, a.shape, a.data, concat(batch, aFree, sum))
	if err != nil {
		return operand[T]{}, err
	}
	B, err := gather(ctx, p, b.labels, b.shape, b.data, concat(batch, sum, bFree))
	if err != nil {
		return operand[T]{}, err
	}
	nb, m, k, n := p.prod(batch), p.prod(aFree), p.prod(sum), p.prod(bFree)
	labels := concat(batch, aFree, bFree)
	shape := p.sizes(labels)
	if _, err := ctx.CheckShape(tensor.DTypeOf[T](), shape); err != nil {
		return operand[T]{}, err
	}
	c := make([]T, nb*m*n)
	batchedMatMul(A.data, B.data, c, nb, m, k, n)
	return operand[T]{labels, shape, c}, nil
}

// batchedMatMul computes c[b] = a[b]·b[b] for nb row-major m×k and k×n pairs.
func batchedMatMul[T tensor.Number](a, b, c []T, nb, m, k, n int) {
	if m == 0 || n == 0 {
		return
	}
	switch af := any(a).(type) {
	case []float32:
		bf, cf := any(b).([]float32), any(c).([]float32)
		for i := 0; i < nb; i++ {
			kernels.Sgemm(false, false, m, n, k, 1, af[i*m*k:], max(k, 1), bf[i*k*n:], n, 0, cf[i*m*n:], n)
		}
		return
	case []float64:
		bf, cf := any(b).([]float64), any(c).([]float64)
		for i := 0; i < nb; i++ {
			kernels.Dgemm(false, false, m, n, k, 1, af[i*m*k:], max(k, 1), bf[i*k*n:], n, 0, cf[i*m*n:], n)
		}
		return
	}
	// Integers wrap as the spec's element type does; no BLAS for them.
	for i := 0; i < nb; i++ {
		ab, bb, cb := a[i*m*k:], b[i*k*n:], c[i*m*n:]
		for r := 0; r < m; r++ {
			row := cb[r*n : r*n+n]
			for l := 0; l < k; l++ {
				av := ab[r*k+l]
				if av == 0 {
					continue
				}
				br := bb[l*n : l*n+n]
				for j := range row {
					row[j] += av * br[j]
				}
			}
		}
	}
}

// gather produces the operand with labels out (distinct, a subset of the
// labels ls of the source), summing every other label. Repeated source
// labels walk their diagonal; a size-1 source dimension whose label has a
// larger global size is broadcast.
func gather[T tensor.Number](ctx *op.Context, p *einsumPlan, ls, shape []int, data []T, out []int) (operand[T], error) {
	strides := make([]int, len(shape))
	st := 1
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = st
		st *= shape[d]
	}
	labelStride := map[int]int{}
	labelSize := map[int]int{}
	for d, id := range ls {
		labelStride[id] += strides[d]
		labelSize[id] = shape[d]
	}
	outShape := p.sizes(out)
	outStride := make([]int, len(out))
	for j, id := range out {
		if labelSize[id] == 1 && outShape[j] != 1 {
			outStride[j] = 0 // broadcast
		} else {
			outStride[j] = labelStride[id]
		}
	}
	var redShape, redStride []int
	for _, id := range distinct(ls) {
		if !contains(out, id) {
			redShape = append(redShape, labelSize[id])
			redStride = append(redStride, labelStride[id])
		}
	}
	// Already laid out as asked: no copy.
	if len(redShape) == 0 && len(ls) == len(out) && slices.Equal(ls, out) && slices.Equal(shape, outShape) {
		return operand[T]{out, outShape, data}, nil
	}
	if _, err := ctx.CheckShape(tensor.DTypeOf[T](), outShape); err != nil {
		return operand[T]{}, err
	}
	total := 1
	for _, s := range outShape {
		total *= s
	}
	res := make([]T, total)
	redTotal := 1
	for _, s := range redShape {
		redTotal *= s
	}
	if total == 0 || redTotal == 0 {
		return operand[T]{out, outShape, res}, nil
	}
	// Offsets of the reduced sub-block, computed once.
	redOff := make([]int, 0, redTotal)
	walk(redShape, redStride, func(off int) { redOff = append(redOff, off) })
	i := 0
	walk(outShape, outStride, func(base int) {
		var s T
		for _, o := range redOff {
			s += data[base+o]
		}
		res[i] = s
		i++
	})
	return operand[T]{out, outShape, res}, nil
}

// walk calls fn with the offset of every index of shape, in row-major order.
func walk(shape, stride []int, fn func(off int)) {
	idx := make([]int, len(shape))
	off := 0
	for {
		fn(off)
		d := len(shape) - 1
		for ; d >= 0; d-- {
			idx[d]++
			off += stride[d]
			if idx[d] < shape[d] {
				break
			}
			off -= stride[d] * idx[d]
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

func (p *einsumPlan) sizes(ids []int) []int {
	s := make([]int, len(ids))
	for i, id := range ids {
		s[i] = p.size[id]
	}
	return s
}

func (p *einsumPlan) prod(ids []int) int {
	n := 1
	for _, id := range ids {
		n *= p.size[id]
	}
	return n
}

func distinct(ids []int) []int {
	var out []int
	for _, id := range ids {
		if !contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

func contains(ids []int, id int) bool {
	for _, v := range ids {
		if v == id {
			return true
		}
	}
	return false
}

func concat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// einsumRule: each letter names one dim across the operands; "..." stands
// for broadcast leading dims. Without "->" the output is the ellipsis dims,
// then the letters used once, in alphabetical order (NumPy's implicit mode).
func inferEinsum(c *shapes.Ctx) {
	eq := strings.ReplaceAll(c.AttrString("equation", ""), " ", "")
	lhs, rhs, explicit := strings.Cut(eq, "->")
	terms := strings.Split(lhs, ",")
	if len(terms) != c.NumIn() {
		c.Set(0, nil, "")
		return
	}
	dims := map[rune]graph.Dim{}
	count := map[rune]int{}
	var ell [][]graph.Dim
	for i, term := range terms {
		s := c.Shape(i)
		if s == nil {
			c.Set(0, nil, "")
			return
		}
		letters := strings.Replace(term, "...", "", 1)
		if strings.ContainsAny(letters, ".") || !einsumLetters(letters) {
			c.Problem("EINSUM", "term %q: an equation term is letters with at most one \"...\"", term)
			return
		}
		nl := len([]rune(letters))
		hasEll := strings.Contains(term, "...")
		if nl > len(s) || (!hasEll && nl != len(s)) {
			c.Problem("RANK", "Einsum term %q does not fit input %d of shape %s", term, i, shapes.ShapeString(s))
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
				if shapes.IsKnown(old) && shapes.IsKnown(d) && old.Value != d.Value {
					c.Problem("EINSUM", "letter %c is %d in one operand and %d in input %d", r, old.Value, d.Value, i)
					return
				}
				if !shapes.IsKnown(old) && shapes.IsKnown(d) {
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
		b, ok := c.Broadcast(ell...)
		if !ok {
			return
		}
		ellOut = b
	}
	out := []graph.Dim{}
	if explicit && (strings.Count(rhs, "...") > 1 || !einsumLetters(strings.Replace(rhs, "...", "", 1))) {
		c.Problem("EINSUM", "output %q: letters with at most one \"...\"", rhs)
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
				c.Problem("EINSUM", "output letter %c appears in no input", rhs[j])
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
	c.Set(0, out, "")
}

func einsumLetters(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
