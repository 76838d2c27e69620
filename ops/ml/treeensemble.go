package ml

import (
	"math"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

func init() {
	op.Default.Register(Domain, "TreeEnsemble", []int{5}, buildTreeEnsemble)
}

// Node comparison modes of TreeEnsemble (nodes_modes).
const (
	branchLEQ = iota
	branchLT
	branchGTE
	branchGT
	branchEQ
	branchNEQ
	branchMember
)

type treeNode struct {
	mode            uint8
	feature         int
	split           float64
	members         map[float64]bool // BRANCH_MEMBER set (NaN never listed)
	nanTrue         bool
	trueID, falseID int
	trueLeaf        bool
	falseLeaf       bool
}

type ensemble struct {
	nodes     []treeNode
	roots     []int
	leafW     []float64
	leafT     []int
	nTargets  int
	aggregate int
	post      int
	nFeatures int // 1 + the largest feature id used
}

// buildTreeEnsemble validates the whole forest once, at load, so that
// evaluation can index without checks: every child id is in range and every
// walk from a root terminates (a cycle is rejected by bounding walk length).
func buildTreeEnsemble(n *op.Node) (any, error) {
	a := &op.Attribs{N: n}
	e := &ensemble{
		aggregate: int(a.Int("aggregate_function", 1)),
		post:      int(a.Int("post_transform", 0)),
		nTargets:  int(a.Int("n_targets", 0)),
	}
	leafT := a.Ints("leaf_targetids")
	leafW := a.Tensor("leaf_weights")
	members := a.Tensor("membership_values")
	falseLeaf := a.Ints("nodes_falseleafs")
	falseID := a.Ints("nodes_falsenodeids")
	feat := a.Ints("nodes_featureids")
	nanTrue := a.Ints("nodes_missing_value_tracks_true")
	modes := a.Tensor("nodes_modes")
	splits := a.Tensor("nodes_splits")
	trueLeaf := a.Ints("nodes_trueleafs")
	trueID := a.Ints("nodes_truenodeids")
	roots := a.Ints("tree_roots")
	if a.Err != nil {
		return nil, a.Err
	}
	if leafW == nil || modes == nil || splits == nil {
		return nil, n.Errorf("leaf_weights, nodes_modes and nodes_splits are required")
	}
	if e.aggregate < 0 || e.aggregate > 3 || e.post < 0 || e.post > 4 {
		return nil, n.Errorf("invalid aggregate_function %d or post_transform %d", e.aggregate, e.post)
	}
	nn := len(feat)
	modeV, err := modes.Int64s()
	if err != nil {
		return nil, n.Errorf("nodes_modes must be uint8")
	}
	splitV, err := splits.Float64s()
	if err != nil {
		return nil, n.Errorf("nodes_splits must be float")
	}
	if len(falseLeaf) != nn || len(falseID) != nn || len(trueLeaf) != nn || len(trueID) != nn ||
		len(modeV) != nn || len(splitV) != nn || (nanTrue != nil && len(nanTrue) != nn) {
		return nil, n.Errorf("nodes_* attributes must all have %d entries", nn)
	}
	if e.leafW, err = leafW.Float64s(); err != nil {
		return nil, n.Errorf("leaf_weights must be float")
	}
	if len(leafT) != len(e.leafW) {
		return nil, n.Errorf("leaf_targetids and leaf_weights differ in length")
	}
	for _, t := range leafT {
		if t < 0 || int(t) >= e.nTargets {
			return nil, n.Errorf("leaf target %d is outside [0, %d)", t, e.nTargets)
		}
		e.leafT = append(e.leafT, int(t))
	}
	var memberV []float64
	if members != nil {
		if memberV, err = members.Float64s(); err != nil {
			return nil, n.Errorf("membership_values must be float")
		}
	}
	e.nodes = make([]treeNode, nn)
	for i := range e.nodes {
		t := &e.nodes[i]
		t.mode = uint8(modeV[i])
		t.feature = int(feat[i])
		t.split = splitV[i]
		t.nanTrue = nanTrue != nil && nanTrue[i] != 0
		t.trueID, t.falseID = int(trueID[i]), int(falseID[i])
		t.trueLeaf, t.falseLeaf = trueLeaf[i] != 0, falseLeaf[i] != 0
		if modeV[i] < 0 || modeV[i] > branchMember || feat[i] < 0 {
			return nil, n.Errorf("node %d: invalid mode %d or feature %d", i, modeV[i], feat[i])
		}
		e.nFeatures = max(e.nFeatures, t.feature+1)
		for _, c := range []struct {
			id   int
			leaf bool
		}{{t.trueID, t.trueLeaf}, {t.falseID, t.falseLeaf}} {
			limit := nn
			if c.leaf {
				limit = len(e.leafW)
			}
			if c.id < 0 || c.id >= limit {
				return nil, n.Errorf("node %d: child %d is out of range", i, c.id)
			}
		}
		if t.mode == branchMember {
			// Sets are listed in node order, each terminated by NaN.
			t.members = map[float64]bool{}
			for len(memberV) > 0 && !math.IsNaN(memberV[0]) {
				t.members[memberV[0]] = true
				memberV = memberV[1:]
			}
			if len(memberV) > 0 {
				memberV = memberV[1:]
			}
		}
	}
	for _, r := range roots {
		if r < 0 || int(r) >= nn {
			return nil, n.Errorf("tree root %d is out of range", r)
		}
		e.roots = append(e.roots, int(r))
	}
	return op.KernelFunc(e.run), nil
}

func (t *treeNode) goTrue(x float64) bool {
	if math.IsNaN(x) {
		return t.nanTrue
	}
	switch t.mode {
	case branchLEQ:
		return x <= t.split
	case branchLT:
		return x < t.split
	case branchGTE:
		return x >= t.split
	case branchGT:
		return x > t.split
	case branchEQ:
		return x == t.split
	case branchNEQ:
		return x != t.split
	}
	return t.members[x]
}

// leaf walks one tree for a row and returns the leaf index, or -1 if the
// walk exceeds the node count (a cycle in the model).
func (e *ensemble) leaf(root int, row []float64) int {
	id := root
	for steps := 0; steps <= len(e.nodes); steps++ {
		t := &e.nodes[id]
		next, isLeaf := t.falseID, t.falseLeaf
		if t.goTrue(row[t.feature]) {
			next, isLeaf = t.trueID, t.trueLeaf
		}
		if isLeaf {
			return next
		}
		id = next
	}
	return -1
}

func (e *ensemble) run(ctx *op.Context, in []*tensor.Tensor) ([]*tensor.Tensor, error) {
	if len(in) < 1 || in[0] == nil {
		return nil, op.Errorf("TreeEnsemble needs X")
	}
	x := in[0]
	if !x.DType().IsFloat() && x.DType() != tensor.Double {
		return nil, op.Errorf("TreeEnsemble needs a float input, got %s", x.DType())
	}
	sh := x.Shape()
	rows, feats := 1, 0
	switch len(sh) {
	case 1:
		feats = sh[0]
	case 2:
		rows, feats = sh[0], sh[1]
	default:
		return nil, op.Errorf("TreeEnsemble input must be [N, F], got %v", sh)
	}
	if feats < e.nFeatures {
		return nil, op.Errorf("TreeEnsemble input has %d features, the trees use %d", feats, e.nFeatures)
	}
	xs, _ := x.Float64s()
	out := ctx.New(x.DType(), rows, e.nTargets)
	res := make([]float64, rows*e.nTargets)
	acc := make([]float64, e.nTargets)
	hit := make([]bool, e.nTargets)
	for r := 0; r < rows; r++ {
		if r%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		row := xs[r*feats : (r+1)*feats]
		for k := range acc {
			acc[k], hit[k] = 0, false
		}
		for _, root := range e.roots {
			l := e.leaf(root, row)
			if l < 0 {
				return nil, op.Errorf("TreeEnsemble: tree at node %d has a cycle", root)
			}
			tg, w := e.leafT[l], e.leafW[l]
			switch {
			case !hit[tg] || e.aggregate <= 1:
				acc[tg] += w
			case e.aggregate == 2:
				acc[tg] = math.Min(acc[tg], w)
			default:
				acc[tg] = math.Max(acc[tg], w)
			}
			hit[tg] = true
		}
		if e.aggregate == 0 && len(e.roots) > 0 {
			for k := range acc {
				acc[k] /= float64(len(e.roots))
			}
		}
		postTransform(e.post, acc)
		copy(res[r*e.nTargets:], acc)
	}
	if d, ok := out.Data().([]float64); ok {
		copy(d, res)
	} else {
		d := out.F32()
		for i, v := range res {
			d[i] = float32(v)
		}
	}
	return ctx.One(out), nil
}

// postTransform applies NONE (0), SOFTMAX (1), LOGISTIC (2), SOFTMAX_ZERO (3:
// softmax that leaves exact zeros at zero) or PROBIT (4) in place.
func postTransform(kind int, v []float64) {
	switch kind {
	case 1, 3:
		m := math.Inf(-1)
		for _, x := range v {
			if kind == 1 || x != 0 {
				m = math.Max(m, x)
			}
		}
		sum := 0.0
		for i, x := range v {
			if kind == 3 && x == 0 {
				continue
			}
			v[i] = math.Exp(x - m)
			sum += v[i]
		}
		for i, x := range v {
			if kind == 3 && x == 0 {
				continue
			}
			v[i] = x / sum
		}
	case 2:
		for i, x := range v {
			v[i] = 1 / (1 + math.Exp(-x))
		}
	case 4:
		for i, x := range v {
			v[i] = math.Sqrt2 * math.Erfinv(2*x-1)
		}
	}
}
