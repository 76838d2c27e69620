package shapes

import (
	"github.com/gort-dev/gort/runtime/graph"
)

func init() {
	rules["If"] = ifRule
	rules["Loop"] = loopRule
	rules["Scan"] = scanRule
	for _, o := range []string{"CumProd", "RotaryEmbedding", "EyeLike", "RandomUniformLike", "RandomNormalLike", "Bernoulli",
		"BitwiseNot", "Shrink"} {
		rules[o] = sameAsInput0
	}
	rules["Expand"] = expandRankRule
	rules["NegativeLogLikelihoodLoss"] = lossRule
	rules["SoftmaxCrossEntropyLoss"] = lossRule
	rules["LayerNormalization"] = layerNormRule
	rules["Attention"] = attentionRule
	rules["RNN"] = rnnRule
	rules["GRU"] = rnnRule
	rules["LSTM"] = rnnRule
	rules["DynamicQuantizeLinear"] = func(c *nodeCtx) {
		c.set(0, c.shape(0), "")
		c.set(1, []graph.Dim{}, "")
		c.set(2, []graph.Dim{}, "")
	}
	rules["Unique"] = func(c *nodeCtx) {
		for i := range c.outs {
			c.set(i, nil, "the number of unique values is known only at run time")
		}
		if c.shape(0) != nil {
			if _, hasAxis := c.attrs["axis"]; !hasAxis {
				c.set(0, []graph.Dim{unknownDim}, "")
				c.set(1, []graph.Dim{unknownDim}, "")
				c.set(2, []graph.Dim{product(c.shape(0))}, "")
				c.set(3, []graph.Dim{unknownDim}, "")
			}
		}
	}
	rules["NonMaxSuppression"] = func(c *nodeCtx) { c.set(0, []graph.Dim{unknownDim, known(3)}, "") }
	rules["GridSample"] = func(c *nodeCtx) {
		x, g := c.shape(0), c.shape(1)
		if x == nil || g == nil || len(g) != len(x) {
			c.set(0, nil, "")
			return
		}
		c.set(0, append([]graph.Dim{x[0], x[1]}, g[1:len(g)-1]...), "")
	}
	rules["Det"] = func(c *nodeCtx) {
		if x := c.shape(0); len(x) >= 2 {
			c.set(0, append(make([]graph.Dim, 0, len(x)-2), x[:len(x)-2]...), "")
		}
	}
	rules["QLinearMatMul"] = func(c *nodeCtx) { matmulOf(c, 0, 3) }
	rules["GatherND"] = gatherNDRule
}

func expandRankRule(c *nodeCtx) {
	if _, ok := c.sym(1); ok {
		expandRule(c)
		return
	}
	in, s := c.shape(0), c.shape(1)
	if in == nil || len(s) != 1 || !isKnown(s[0]) {
		c.set(0, nil, "the target shape is computed at run time")
		return
	}
	r := max(len(in), int(s[0].Value))
	out := make([]graph.Dim, r)
	for i := range out {
		out[i] = unknownDim
	}
	c.set(0, out, "")
}

// lossRule: per-element losses with reduction "none", a scalar otherwise.
func lossRule(c *nodeCtx) {
	target := c.shape(1)
	if c.attrString("reduction", "mean") == "none" {
		c.set(0, target, "")
	} else {
		c.set(0, []graph.Dim{}, "")
	}
	if len(c.outs) > 1 {
		c.set(1, c.shape(0), "") // SoftmaxCrossEntropyLoss log_prob
	}
}

func layerNormRule(c *nodeCtx) {
	x := c.shape(0)
	c.set(0, x, "")
	if x == nil {
		return
	}
	axis, ok := normAxis(c, c.attrInt("axis", -1), len(x))
	if !ok {
		return
	}
	stat := append([]graph.Dim(nil), x...)
	for i := axis; i < len(stat); i++ {
		stat[i] = known(1)
	}
	c.set(1, stat, "")
	c.set(2, stat, "")
}

// attentionRule (opset 23+): Y follows Q with V's head size; 3-D inputs
// pack heads into the hidden size.
func attentionRule(c *nodeCtx) {
	q, k, v := c.shape(0), c.shape(1), c.shape(2)
	if q == nil || v == nil {
		for i := range c.outs {
			c.set(i, nil, "")
		}
		return
	}
	switch {
	case len(q) == 4 && len(v) == 4:
		c.set(0, []graph.Dim{q[0], q[1], q[2], v[3]}, "")
	case len(q) == 3 && len(v) == 3:
		qh, kvh := c.attrInt("q_num_heads", 0), c.attrInt("kv_num_heads", 0)
		if qh > 0 && kvh > 0 {
			c.set(0, []graph.Dim{q[0], q[1], dimMul(dimDiv(v[2], known(kvh)), known(qh))}, "")
		} else {
			c.set(0, []graph.Dim{q[0], q[1], unknownDim}, "")
		}
	default:
		c.set(0, nil, "")
	}
	// present_key / present_value: past length + current length, when both are 4-D.
	if len(c.outs) > 2 && k != nil && len(k) == 4 && len(v) == 4 {
		pk, pv := c.shape(4), c.shape(5)
		if pk != nil && pv != nil && len(pk) == 4 && len(pv) == 4 {
			c.set(1, []graph.Dim{k[0], k[1], dimAdd(pk[2], k[2]), k[3]}, "")
			c.set(2, []graph.Dim{v[0], v[1], dimAdd(pv[2], v[2]), v[3]}, "")
		} else if !c.has(4) {
			c.set(1, k, "")
			c.set(2, v, "")
		}
	}
	for i := 3; i < len(c.outs); i++ {
		c.set(i, nil, "the attention-score output is not inferred")
	}
}

// rnnRule: Y [seq, directions, batch, hidden] (batch first with layout=1),
// Y_h and Y_c [directions, batch, hidden].
func rnnRule(c *nodeCtx) {
	x := c.shape(0)
	h := c.attrInt("hidden_size", -1)
	dirs := int64(1)
	if c.attrString("direction", "forward") == "bidirectional" {
		dirs = 2
	}
	if x == nil || len(x) != 3 || h < 0 {
		for i := range c.outs {
			c.set(i, nil, "")
		}
		return
	}
	hd := known(h)
	seq, batch := x[0], x[1]
	layout := c.attrInt("layout", 0)
	if layout == 1 {
		seq, batch = x[1], x[0]
	}
	y := []graph.Dim{seq, known(dirs), batch, hd}
	state := []graph.Dim{known(dirs), batch, hd}
	if layout == 1 {
		y = []graph.Dim{batch, seq, known(dirs), hd}
		state = []graph.Dim{batch, known(dirs), hd}
	}
	c.set(0, y, "")
	for i := 1; i < len(c.outs); i++ {
		c.set(i, state, "")
	}
}

func matmulOf(c *nodeCtx, a, b int) {
	ins := c.ins
	c.ins = []*Info{c.input(a), c.input(b)}
	matmulRule(c)
	c.ins = ins
}

func gatherNDRule(c *nodeCtx) {
	data, idx := c.shape(0), c.shape(1)
	bd := int(c.attrInt("batch_dims", 0))
	if data == nil || idx == nil || len(idx) == 0 || !isKnown(idx[len(idx)-1]) {
		c.set(0, nil, "")
		return
	}
	last := int(idx[len(idx)-1].Value)
	if bd+last > len(data) {
		c.problem("RANK", "GatherND indices reach %d axes past %d batch dims of a rank-%d input", last, bd, len(data))
		return
	}
	out := append(append([]graph.Dim(nil), idx[:len(idx)-1]...), data[bd+last:]...)
	if out == nil {
		out = []graph.Dim{}
	}
	c.set(0, out, "")
}
