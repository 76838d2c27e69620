package rnn

import (
	"math"
	"strings"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// activation is one of the functions the recurrent ops accept by name.
type activation func(x float64) float64

// activationDefaults gives, per lower-cased name, how many of the alpha and
// beta lists it consumes and their defaults (those of the ONNX operators of
// the same name).
var activationDefaults = map[string]struct {
	nAlpha, nBeta int
	alpha, beta   float64
}{
	"relu": {}, "tanh": {}, "sigmoid": {}, "softsign": {}, "softplus": {},
	"affine":          {1, 1, 1, 0},
	"leakyrelu":       {1, 0, 0.01, 0},
	"thresholdedrelu": {1, 0, 1, 0},
	"scaledtanh":      {1, 1, 1, 1},
	"hardsigmoid":     {1, 1, 0.2, 0.5},
	"elu":             {1, 0, 1, 0},
}

func makeActivation(name string, a, b float64) activation {
	switch name {
	case "relu":
		return func(x float64) float64 { return math.Max(x, 0) }
	case "tanh":
		return math.Tanh
	case "sigmoid":
		return func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	case "softsign":
		return func(x float64) float64 { return x / (1 + math.Abs(x)) }
	case "softplus":
		return func(x float64) float64 { return math.Log1p(math.Exp(x)) }
	case "affine":
		return func(x float64) float64 { return a*x + b }
	case "leakyrelu":
		return func(x float64) float64 {
			if x < 0 {
				return a * x
			}
			return x
		}
	case "thresholdedrelu":
		return func(x float64) float64 {
			if x > a {
				return x
			}
			return 0
		}
	case "scaledtanh":
		return func(x float64) float64 { return a * math.Tanh(b*x) }
	case "hardsigmoid":
		return func(x float64) float64 { return math.Max(0, math.Min(1, a*x+b)) }
	case "elu":
		return func(x float64) float64 {
			if x < 0 {
				return a * (math.Exp(x) - 1)
			}
			return x
		}
	}
	return nil
}

// spec is what every recurrent op reads from its attributes.
type spec struct {
	kind    string // "RNN", "GRU", "LSTM"
	gates   int    // 1, 3, 4
	hidden  int    // 0: take it from R
	dirs    int
	reverse bool // direction=reverse (with dirs == 1)
	acts    [][]activation
	// defaultActs: every direction uses the op's default activations, which
	// the float32 path (fast.go) implements.
	defaultActs bool
	clip        float64 // 0: none
	layout      int
	// GRU and LSTM options.
	linearBeforeReset bool
	inputForget       bool
}

// parseSpec reads the attributes common to RNN, GRU and LSTM; defActs are the
// default activations of one direction (their count is the op's).
func parseSpec(n *op.Node, kind string, gates int, defActs []string) (*spec, error) {
	a := &op.Attribs{N: n}
	s := &spec{kind: kind, gates: gates}
	s.hidden = int(a.Int("hidden_size", 0))
	dir := a.String("direction", "forward")
	acts := a.Strings("activations")
	alphas := a.Floats("activation_alpha")
	betas := a.Floats("activation_beta")
	clip := a.Float("clip", 0)
	if n.Version >= 14 {
		s.layout = int(a.Int("layout", 0))
	}
	s.linearBeforeReset = a.Int("linear_before_reset", 0) != 0
	s.inputForget = a.Int("input_forget", 0) != 0
	if a.Err != nil {
		return nil, a.Err
	}
	if s.hidden < 0 {
		return nil, n.Errorf("hidden_size must be positive, got %d", s.hidden)
	}
	switch dir {
	case "forward":
		s.dirs = 1
	case "reverse":
		s.dirs, s.reverse = 1, true
	case "bidirectional":
		s.dirs = 2
	default:
		return nil, n.Errorf("direction must be forward, reverse or bidirectional, got %q", dir)
	}
	if s.layout != 0 && s.layout != 1 {
		return nil, n.Errorf("layout must be 0 or 1, got %d", s.layout)
	}
	if clip < 0 {
		return nil, n.Errorf("clip must be positive, got %g", clip)
	}
	s.clip = float64(clip)
	per := len(defActs)
	if acts == nil {
		for d := 0; d < s.dirs; d++ {
			acts = append(acts, defActs...)
		}
	} else if len(acts) == per && s.dirs == 2 {
		// One set given for a bidirectional layer: both directions share it.
		acts = append(acts, acts...)
		alphas = append(alphas, alphas...)
		betas = append(betas, betas...)
	}
	if len(acts) != per*s.dirs {
		return nil, n.Errorf("%s needs %d activations per direction, got %d for %d direction(s)", kind, per, len(acts), s.dirs)
	}
	s.defaultActs = true
	for i, name := range acts {
		s.defaultActs = s.defaultActs && strings.EqualFold(name, defActs[i%per])
	}
	ai, bi := 0, 0
	for d := 0; d < s.dirs; d++ {
		var fs []activation
		for _, name := range acts[d*per : (d+1)*per] {
			lname := strings.ToLower(name)
			def, ok := activationDefaults[lname]
			if !ok {
				return nil, n.Errorf("unknown activation %q", name)
			}
			alpha, beta := def.alpha, def.beta
			if def.nAlpha > 0 && ai < len(alphas) {
				alpha = float64(alphas[ai])
				ai++
			}
			if def.nBeta > 0 && bi < len(betas) {
				beta = float64(betas[bi])
				bi++
			}
			fs = append(fs, makeActivation(lname, alpha, beta))
		}
		s.acts = append(s.acts, fs)
	}
	return s, nil
}

// floats reads a float tensor as float64 (nil stays nil).
func floats(t *tensor.Tensor, what string) ([]float64, error) {
	if t == nil {
		return nil, nil
	}
	if !t.DType().IsFloat() && t.DType() != tensor.Double {
		return nil, op.Errorf("%s must be a float tensor, got %s", what, t.DType())
	}
	return t.Float64s()
}

// store writes float64 values into a new tensor of dtype dt.
func store(ctx *op.Context, dt tensor.DType, shape []int, v []float64) *tensor.Tensor {
	out := ctx.New(dt, shape...)
	if dt == tensor.Double {
		copy(out.F64(), v)
		return out
	}
	o := out.F32()
	for i, x := range v {
		o[i] = float32(x)
	}
	return out
}

// problem is the validated shape of one run, in layout 0.
type problem struct {
	seq, batch, input, hidden int
	x                         []float64 // [seq, batch, input]
	w, r                      []float64 // [dirs, G*H, input], [dirs, G*H, H]
	b                         []float64 // [dirs, 2*G*H], zeros when absent
	lens                      []int     // [batch]
	h0, c0                    []float64 // [dirs, batch, H], zeros when absent
	p                         []float64 // LSTM peepholes [dirs, 3*H], zeros when absent
}

// check validates the shapes of the inputs X, W, R, B, sequence_lens,
// initial_h (and for LSTM initial_c and P) and reads the sequence lengths;
// the problem it returns has its dimensions and lens set, no values.
func (s *spec) check(ctx *op.Context, in []*tensor.Tensor) (*problem, error) {
	get := func(i int) *tensor.Tensor { return input(in, i) }
	X, W, R := get(0), get(1), get(2)
	if X == nil || W == nil || R == nil {
		return nil, op.Errorf("%s needs X, W and R", s.kind)
	}
	if X.Rank() != 3 || W.Rank() != 3 || R.Rank() != 3 {
		return nil, op.Errorf("X, W and R must be 3-D, got %v, %v, %v", X.Shape(), W.Shape(), R.Shape())
	}
	p := &problem{}
	xs := X.Shape()
	if s.layout == 0 {
		p.seq, p.batch = xs[0], xs[1]
	} else {
		p.batch, p.seq = xs[0], xs[1]
	}
	p.input = xs[2]
	p.hidden = s.hidden
	if p.hidden == 0 {
		p.hidden = R.Shape()[2]
	}
	H, G, D := p.hidden, s.gates, s.dirs
	if !eq(W.Shape(), D, G*H, p.input) {
		return nil, op.Errorf("W has shape %v, expected [%d %d %d]", W.Shape(), D, G*H, p.input)
	}
	if !eq(R.Shape(), D, G*H, H) {
		return nil, op.Errorf("R has shape %v, expected [%d %d %d]", R.Shape(), D, G*H, H)
	}
	if B := get(3); B != nil && !eq(B.Shape(), D, 2*G*H) {
		return nil, op.Errorf("B has shape %v, expected [%d %d]", B.Shape(), D, 2*G*H)
	}
	p.lens = make([]int, p.batch)
	for i := range p.lens {
		p.lens[i] = p.seq
	}
	if L := get(4); L != nil {
		v, err := L.Int64s()
		if err != nil || L.Len() != p.batch {
			return nil, op.Errorf("sequence_lens must hold %d integers, got %s%v", p.batch, L.DType(), L.Shape())
		}
		for i, l := range v {
			if l < 0 || l > int64(p.seq) {
				return nil, op.Errorf("sequence_lens[%d] = %d is outside [0, %d]", i, l, p.seq)
			}
			p.lens[i] = int(l)
		}
	}
	states := []int{5}
	if s.kind == "LSTM" {
		states = append(states, 6)
	}
	for _, i := range states {
		want := []int{D, p.batch, H}
		if s.layout == 1 {
			want = []int{p.batch, D, H}
		}
		if t := get(i); t != nil && !eq(t.Shape(), want...) {
			return nil, op.Errorf("%s has shape %v, expected %v", [...]string{5: "initial_h", 6: "initial_c"}[i], t.Shape(), want)
		}
	}
	if P := get(7); s.kind == "LSTM" && P != nil && !eq(P.Shape(), D, 3*H) {
		return nil, op.Errorf("P has shape %v, expected [%d %d]", P.Shape(), D, 3*H)
	}
	// Budget the largest output before the work starts.
	if _, err := ctx.CheckShape(X.DType(), []int{p.seq, D, p.batch, H}); err != nil {
		return nil, err
	}
	return p, nil
}

// input returns in[i], nil when it is absent.
func input(in []*tensor.Tensor, i int) *tensor.Tensor {
	if i < len(in) {
		return in[i]
	}
	return nil
}

// setup checks the inputs and reads their values as float64, converting
// layout 1 to layout 0.
func (s *spec) setup(ctx *op.Context, in []*tensor.Tensor) (*problem, error) {
	p, err := s.check(ctx, in)
	if err != nil {
		return nil, err
	}
	get := func(i int) *tensor.Tensor { return input(in, i) }
	H, G, D := p.hidden, s.gates, s.dirs
	if p.x, err = floats(get(0), "X"); err != nil {
		return nil, err
	}
	if s.layout == 1 {
		p.x = swap01(p.x, p.batch, p.seq, p.input)
	}
	if p.w, err = floats(get(1), "W"); err != nil {
		return nil, err
	}
	if p.r, err = floats(get(2), "R"); err != nil {
		return nil, err
	}
	if B := get(3); B != nil {
		if p.b, err = floats(B, "B"); err != nil {
			return nil, err
		}
	} else {
		p.b = make([]float64, D*2*G*H)
	}
	state := func(t *tensor.Tensor, what string) ([]float64, error) {
		if t == nil {
			return make([]float64, D*p.batch*H), nil
		}
		v, err := floats(t, what)
		if err != nil {
			return nil, err
		}
		if s.layout == 1 {
			v = swap01(v, p.batch, D, H)
		}
		return v, nil
	}
	if p.h0, err = state(get(5), "initial_h"); err != nil {
		return nil, err
	}
	if s.kind == "LSTM" {
		if p.c0, err = state(get(6), "initial_c"); err != nil {
			return nil, err
		}
		if P := get(7); P != nil {
			if p.p, err = floats(P, "P"); err != nil {
				return nil, err
			}
		} else {
			p.p = make([]float64, D*3*H)
		}
	}
	return p, nil
}

func eq(shape []int, want ...int) bool {
	if len(shape) != len(want) {
		return false
	}
	for i := range want {
		if shape[i] != want[i] {
			return false
		}
	}
	return true
}

// swap01 transposes the first two axes of an [a, b, c] array.
func swap01(v []float64, a, b, c int) []float64 {
	out := make([]float64, len(v))
	for i := 0; i < a; i++ {
		for j := 0; j < b; j++ {
			copy(out[(j*a+i)*c:(j*a+i+1)*c], v[(i*b+j)*c:(i*b+j+1)*c])
		}
	}
	return out
}

// cell advances one direction by one step for one batch entry: x is the
// input row, h (and c for LSTM) the state, updated in place. gates is
// scratch space of G*H values already holding x·Wᵀ + h·Rᵀ + Wb + Rb except
// where the cell needs them split (GRU), which it receives through dir.
type cell func(d *dirData, x, h, c, gates []float64)

// dirData is one direction's weights, sliced out of the inputs.
type dirData struct {
	s        *spec
	H, I     int
	w, r     []float64 // [G*H, I], [G*H, H]
	wb, rb   []float64 // [G*H] each
	p        []float64 // LSTM peepholes [3*H]
	acts     []activation
	scratchR []float64 // G*H, for h·Rᵀ kept apart (GRU)
}

// clipped applies the clip threshold to an activation's input.
func (d *dirData) clipped(x float64) float64 {
	if c := d.s.clip; c > 0 {
		return math.Max(-c, math.Min(c, x))
	}
	return x
}

// matvec adds m·v (m is [rows, cols]) into out for rows [r0, r1).
func matvec(out, m, v []float64, r0, r1, cols int) {
	for j := r0; j < r1; j++ {
		row := m[j*cols : (j+1)*cols]
		sum := 0.0
		for k, x := range v {
			sum += row[k] * x
		}
		out[j-r0] += sum
	}
}

// run drives all directions over the sequence and assembles Y, Y_h (and
// Y_c) in the requested layout.
func (s *spec) run(ctx *op.Context, dt tensor.DType, p *problem, step cell, outputs int) ([]*tensor.Tensor, error) {
	H, G, D, I, B, T := p.hidden, s.gates, s.dirs, p.input, p.batch, p.seq
	y := make([]float64, T*D*B*H)
	yh := make([]float64, D*B*H)
	var yc []float64
	if s.kind == "LSTM" {
		yc = make([]float64, D*B*H)
	}
	gates := make([]float64, G*H)
	for d := 0; d < D; d++ {
		dd := &dirData{
			s: s, H: H, I: I,
			w:        p.w[d*G*H*I : (d+1)*G*H*I],
			r:        p.r[d*G*H*H : (d+1)*G*H*H],
			wb:       p.b[d*2*G*H : d*2*G*H+G*H],
			rb:       p.b[d*2*G*H+G*H : (d+1)*2*G*H],
			acts:     s.acts[d],
			scratchR: make([]float64, G*H),
		}
		if p.p != nil {
			dd.p = p.p[d*3*H : (d+1)*3*H]
		}
		backward := s.reverse || d == 1
		for b := 0; b < B; b++ {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			h := append([]float64(nil), p.h0[(d*B+b)*H:(d*B+b+1)*H]...)
			var c []float64
			if p.c0 != nil {
				c = append([]float64(nil), p.c0[(d*B+b)*H:(d*B+b+1)*H]...)
			}
			L := p.lens[b]
			for k := 0; k < L; k++ {
				t := k
				if backward {
					t = L - 1 - k // reverse within the sequence's own length
				}
				x := p.x[(t*B+b)*I : (t*B+b+1)*I]
				step(dd, x, h, c, gates)
				copy(y[((t*D+d)*B+b)*H:], h)
			}
			copy(yh[(d*B+b)*H:], h)
			if yc != nil {
				copy(yc[(d*B+b)*H:], c)
			}
		}
	}
	res := make([]*tensor.Tensor, outputs)
	if s.layout == 0 {
		res[0] = store(ctx, dt, []int{T, D, B, H}, y)
		res[1] = store(ctx, dt, []int{D, B, H}, yh)
		if outputs > 2 {
			res[2] = store(ctx, dt, []int{D, B, H}, yc)
		}
		return res, nil
	}
	// Layout 1: Y is [batch, seq, dirs, hidden], states [batch, dirs, hidden].
	y1 := make([]float64, len(y))
	for t := 0; t < T; t++ {
		for d := 0; d < D; d++ {
			for b := 0; b < B; b++ {
				copy(y1[((b*T+t)*D+d)*H:((b*T+t)*D+d+1)*H], y[((t*D+d)*B+b)*H:((t*D+d)*B+b+1)*H])
			}
		}
	}
	res[0] = store(ctx, dt, []int{B, T, D, H}, y1)
	res[1] = store(ctx, dt, []int{B, D, H}, swap01(yh, D, B, H))
	if outputs > 2 {
		res[2] = store(ctx, dt, []int{B, D, H}, swap01(yc, D, B, H))
	}
	return res, nil
}

// kernel wraps a cell into an op kernel: float32 inputs take the float32
// path (fast.go) when the attributes allow, the rest the float64 driver.
func kernel(n *op.Node, s *spec, step cell, outputs int) op.Kernel {
	f := newFast(n, s)
	return op.KernelFunc(func(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
		if f.applies(in) {
			p, err := s.check(ctx, in)
			if err != nil {
				return nil, err
			}
			return f.run(ctx, in, p, outputs)
		}
		p, err := s.setup(ctx, in)
		if err != nil {
			return nil, err
		}
		return s.run(ctx, in[0].DType(), p, step, outputs)
	})
}
