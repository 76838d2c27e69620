package ops_test

// The robustness sweep: every registered operator, at every registered
// version, is built into a one-node model and run on deterministic
// pseudo-random inputs (counts, dtypes, ranks, empty dims) and attribute
// values (good ones and obviously bad ones), and on mutations of valid
// configurations taken from the node suite (robustness_seeds_test.go).
// Whatever the op makes of them, the API must answer with a coded error
// that is not GORT_INTERNAL (a recovered panic: a bug in gort), never
// panic, and finish quickly. The sweep also counts how configurations
// ended (ran / load error / run error) and holds them to floors
// (checkTallies), so that it cannot pass by failing everything at load.
// The conformance suite checks what ops compute; this checks how they fail.

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gort-dev/gort/ops/internal/modeltest"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/errs"
	pb "github.com/gort-dev/gort/runtime/onnxpb"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

const (
	// robustMaxBytes is the session budget: small, so that a hostile size
	// is refused quickly instead of being allocated.
	robustMaxBytes = 64 << 20
	// robustRunLimit is how long one configuration may take. Every input is
	// tiny, so anything slower is a hang or a size that escaped the budget.
	robustRunLimit = 2 * time.Second
	// robustPerVersion bounds the configurations of one (op, version); older
	// versions of an op get a third of it, as they mostly share its code.
	robustPerVersion = 1500
)

// robustTrace (GORT_ROBUST_TRACE=1) prints each configuration before it runs.
var robustTrace = os.Getenv("GORT_ROBUST_TRACE") != ""

// TestRobustness sweeps every registered op at every registered version,
// in every domain the registry has, and then asserts that the sweep
// exercised the kernels: each op version must have configurations that run
// to completion (see tally.check), so a sweep in which everything failed at
// load cannot pass.
func TestRobustness(t *testing.T) {
	sweep(t, func(domain, name string) bool { return true })
}

// failure is one defect found by the sweep: the op (label), the
// configuration that shows it, and what went wrong.
type failure struct{ label, config, detail string }

// stackSite finds the first frame in package ops of a recovered panic's
// stack, which is where the fix goes.
var stackSite = regexp.MustCompile(`/ops/[\w/]+\.go:\d+`)

// summary is the first line of a failure's detail plus the ops frame the
// panic came from, if any: failures with the same summary are one defect.
func (f failure) summary() string {
	s := firstLine(f.detail)
	if m := stackSite.FindString(f.detail); m != "" {
		s += " at " + m
	}
	return s
}

// tally counts how one op version's configurations ended.
type tally struct {
	ran      int // loaded and ran to completion
	loadErr  int // refused by runtime.Load (bad attributes, missing inputs...)
	runErr   int // loaded, then Run returned an error
	failures int // panics, GORT_INTERNAL, hangs: defects
}

func (t *tally) add(o tally) {
	t.ran += o.ran
	t.loadErr += o.loadErr
	t.runErr += o.runErr
	t.failures += o.failures
}

func (t tally) total() int { return t.ran + t.loadErr + t.runErr + t.failures }

func (t tally) String() string {
	return fmt.Sprintf("ran %d, load-error %d, run-error %d, defects %d", t.ran, t.loadErr, t.runErr, t.failures)
}

// sweep runs the configurations of the ops include accepts. GORT_ROBUST_OPS,
// a regular expression, narrows the sweep to matching op types (to
// reproduce one op's failures).
func sweep(t *testing.T, include func(domain, name string) bool) {
	var only *regexp.Regexp
	if p := os.Getenv("GORT_ROBUST_OPS"); p != "" {
		only = regexp.MustCompile(p)
	}
	seeds, err := loadSeeds()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	outcomes = map[string]int{}
	var all tally
	perVersion := map[string]tally{} // label → tally
	var labels []string
	var fails []failure
	seen := map[string]bool{}
	for _, domain := range op.Default.Domains() {
		for _, name := range op.Default.Ops(domain) {
			if !include(domain, name) || (only != nil && !only.MatchString(name)) {
				continue
			}
			versions := op.Default.Versions(domain, name)
			for i, v := range versions {
				budget := robustPerVersion
				if i < len(versions)-1 {
					budget /= 3
				}
				label, tl, fs := sweepOp(domain, name, v, budget, seeds[domain+"/"+name])
				all.add(tl)
				perVersion[label] = tl
				labels = append(labels, label)
				for _, f := range fs {
					key := f.label + "|" + f.summary()
					if !seen[key] {
						seen[key] = true
						fails = append(fails, f)
					}
				}
			}
		}
	}
	t.Logf("%d configurations in %v: %v; outcomes by code %v", all.total(), time.Since(start).Round(time.Millisecond), all, outcomes)
	perOp := map[string]int{}
	for _, f := range fails {
		perOp[f.label]++
		if perOp[f.label] > 3 {
			continue
		}
		t.Errorf("%s: %s\n\twith %s", f.label, trim(f.summary(), 400), f.config)
	}
	t.Logf("%d distinct failures in %d op versions", len(fails), len(perOp))
	if os.Getenv("GORT_ROBUST_TALLY") != "" {
		for _, l := range labels {
			t.Logf("tally %s: %v", l, perVersion[l])
		}
	}
	for _, p := range checkTallies(labels, perVersion, only == nil) {
		t.Error(p)
	}
}

// sweepOp runs up to budget configurations of one op version and returns
// its label ("domain.Op-version"), how they ended and the failures.
func sweepOp(domain, name string, version, budget int, seeds []seed) (string, tally, []failure) {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", domain, name, version)
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	g := &gen{rng: rng}
	label := name + "-" + fmt.Sprint(version)
	if domain != "" {
		label = domain + "." + label
	}

	var fails []failure
	relevant, probeFails := relevantAttrs(domain, name, version)
	for _, f := range probeFails {
		f.label = label
		fails = append(fails, f)
	}

	// Attribute variants: none, every relevant one at a good value, and
	// then each relevant attribute at each of its test values on top of
	// the good ones (so that a required attribute does not hide the rest).
	good := map[string]*pb.AttributeProto{}
	for _, ra := range relevant {
		good[ra.name] = attrValues(ra)[0]
	}
	variants := [][]*pb.AttributeProto{nil, mapAttrs(good, "", nil)}
	for _, ra := range relevant {
		for _, a := range attrValues(ra)[1:] {
			variants = append(variants, mapAttrs(good, ra.name, a))
		}
	}

	// The first two variants get most of the budget: they reach the
	// kernels most often. The others get a few input sets each.
	perVariant := make([]int, len(variants))
	rest := budget
	if len(variants) > 2 {
		each := max(2, budget/2/(len(variants)-2))
		for i := 2; i < len(variants); i++ {
			perVariant[i] = each
			rest -= each
		}
	}
	perVariant[0] = max(rest/2, 8)
	perVariant[1] = max(rest-rest/2, 8)
	if len(relevant) == 0 {
		perVariant[0] = budget
		perVariant[1] = 0
	}

	var tl tally
	tl.failures = len(fails)
	run := func(c config, prefix string) (int, error) {
		if robustTrace {
			// A fatal error (out of memory) kills the test binary
			// without a report; this names the configuration.
			fmt.Fprintf(os.Stderr, "robust: %s %s%s\n", label, prefix, c.describe())
		}
		end, err, f := runConfig(domain, name, version, c)
		switch {
		case f != "":
			tl.failures++
			fails = append(fails, failure{label, prefix + c.describe(), f})
		case end == endRan:
			tl.ran++
		case end == endLoad:
			tl.loadErr++
		default:
			tl.runErr++
		}
		return end, err
	}
	for vi, attrs := range variants {
		for k := 0; k < perVariant[vi]; k++ {
			c := g.config(k)
			c.attrs = attrs
			run(c, "")
		}
	}

	// Seeds: each unmutated (at the version its case resolves to, it must
	// run), then mutated.
	mutations := seedMutations
	if version != op.Default.Versions(domain, name)[len(op.Default.Versions(domain, name))-1] {
		mutations /= 3
	}
	for _, sd := range seeds {
		end, err := run(sd.c, "seed "+sd.name+": ")
		if end != endRan && op.Default.Resolve(domain, name, sd.opset).Version == version {
			tl.failures++
			fails = append(fails, failure{label, "seed " + sd.name + ": " + sd.c.describe(),
				fmt.Sprintf("a node-suite case that passes does not run here: %v", err)})
		}
		for k := 0; k < mutations; k++ {
			run(mutate(rng, g, sd.c), "mutated seed "+sd.name+": ")
		}
	}
	return label, tl, fails
}

// config is one node to run: its inputs (nil for an omitted one), the
// number of outputs it lists, and its attributes.
type config struct {
	inputs []*tensor.Tensor
	nOut   int
	attrs  []*pb.AttributeProto
}

func (c config) describe() string {
	var ins []string
	for _, in := range c.inputs {
		if in == nil {
			ins = append(ins, "-")
			continue
		}
		ins = append(ins, fmt.Sprintf("%s%v", in.DType(), in.Shape()))
	}
	var as []string
	for _, a := range c.attrs {
		as = append(as, attrString(a))
	}
	return fmt.Sprintf("inputs (%s) outputs %d attrs {%s}", strings.Join(ins, ", "), c.nOut, strings.Join(as, ", "))
}

func attrString(a *pb.AttributeProto) string {
	switch a.GetType() {
	case pb.AttributeProto_INT:
		return fmt.Sprintf("%s=%d", a.GetName(), a.GetI())
	case pb.AttributeProto_INTS:
		return fmt.Sprintf("%s=%v", a.GetName(), a.GetInts())
	case pb.AttributeProto_FLOAT:
		return fmt.Sprintf("%s=%g", a.GetName(), a.GetF())
	case pb.AttributeProto_FLOATS:
		return fmt.Sprintf("%s=%v", a.GetName(), a.GetFloats())
	case pb.AttributeProto_STRING:
		return fmt.Sprintf("%s=%q", a.GetName(), a.GetS())
	case pb.AttributeProto_STRINGS:
		return fmt.Sprintf("%s=%q", a.GetName(), a.GetStrings())
	case pb.AttributeProto_TENSOR:
		return fmt.Sprintf("%s=tensor(%v %v)", a.GetName(), tensor.DType(a.GetT().GetDataType()), a.GetT().GetDims())
	}
	return a.GetName() + "=" + a.GetType().String()
}

// How a configuration ended when it was not a defect.
const (
	endRan  = iota // loaded and ran to completion
	endLoad        // runtime.Load refused it
	endRun         // Run returned an error
)

// runConfig builds and runs one configuration and returns how it ended,
// its error, and what is wrong with the outcome ("" when nothing is).
func runConfig(domain, name string, version int, c config) (int, error, string) {
	data, feeds, outs := buildModel(domain, name, version, c)
	type result struct {
		err      error
		atLoad   bool
		panicked any
	}
	done := make(chan result, 1)
	t0 := time.Now()
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				r.panicked = p
			}
			done <- r
		}()
		s, err := runtime.Load(data, &runtime.Options{MaxTensorBytes: robustMaxBytes})
		if err != nil {
			r.err, r.atLoad = err, true
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), robustRunLimit)
		defer cancel()
		_, r.err = s.Run(ctx, feeds, outs...)
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(5 * robustRunLimit):
		// The goroutine is left behind: a kernel that ignores cancellation
		// cannot be stopped, and the sweep must go on.
		return endRun, nil, fmt.Sprintf("still running after %v", 5*robustRunLimit)
	}
	end := endRun
	if r.atLoad {
		end = endLoad
	}
	if r.panicked != nil {
		return end, nil, fmt.Sprintf("panic escaped the API: %v", r.panicked)
	}
	if d := time.Since(t0); d > robustRunLimit {
		return end, r.err, fmt.Sprintf("took %v (error: %v)", d.Round(time.Millisecond), r.err)
	}
	if r.err == nil {
		outcomes["ok"]++
		return endRan, nil, ""
	}
	outcomes[string(errs.CodeOf(r.err))]++
	var e *errs.Error
	if !errors.As(r.err, &e) || e.Code == "" {
		return end, r.err, fmt.Sprintf("error is not a coded *errs.Error: %v", r.err)
	}
	switch {
	case e.Code == errs.Internal:
		return end, r.err, r.err.Error()
	case e.Code == errs.BadModel && strings.Contains(e.Msg, "failed: "):
		// buildKernel recovered a panic in a builder: an opaque message.
		return end, r.err, "builder panicked: " + r.err.Error()
	}
	return end, r.err, ""
}

// outcomes counts the results of the sweep by error code ("ok": no error),
// to show how many configurations reached a kernel and ran through.
var outcomes = map[string]int{}

// buildModel returns the serialized one-node model (every input fed, the
// outputs untyped: a tensor of any dtype or a sequence), its feeds and its
// outputs.
func buildModel(domain, name string, version int, c config) ([]byte, map[string]tensor.Value, []string) {
	data, feeds, outs, err := modeltest.Build(modeltest.Node{Domain: domain, Op: name, Opset: version, Attrs: c.attrs,
		In: c.inputs, Fed: len(c.inputs), NOut: c.nOut})
	if err != nil {
		panic(err)
	}
	return data, feeds, outs
}

// gen makes pseudo-random inputs.
type gen struct{ rng *rand.Rand }

var (
	robustShapes = [][]int{{}, {0}, {1}, {3}, {2, 3}, {3, 2}, {2, 0}, {1, 2, 3}, {2, 3, 4}, {1, 1, 4, 4}, {2, 3, 4, 5}, {2, 3, 0, 2}, {1, 2, 3, 2, 2}}
	// robustDTypes is weighted towards the common types.
	robustDTypes = []tensor.DType{tensor.Float, tensor.Float, tensor.Float, tensor.Int64, tensor.Int64, tensor.Bool,
		tensor.Float16, tensor.String, tensor.Int32, tensor.Uint8, tensor.Double}
)

func (g *gen) pick(n int) int { return g.rng.IntN(n) }

func (g *gen) shape() []int { return robustShapes[g.pick(len(robustShapes))] }

func (g *gen) dtype() tensor.DType { return robustDTypes[g.pick(len(robustDTypes))] }

// config returns the k-th input set; the kinds rotate so that every budget
// sees each of them.
func (g *gen) config(k int) config {
	c := config{nOut: 1}
	if g.pick(6) == 0 {
		c.nOut = 1 + g.pick(4)
	}
	n := []int{0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 8, 10}[g.pick(12)]
	switch k % 6 {
	case 0: // all alike: the likeliest to pass validation and reach the kernel.
		dt, sh := g.dtype(), g.shape()
		if g.pick(2) == 0 {
			dt = tensor.Float
		}
		for i := 0; i < n; i++ {
			c.inputs = append(c.inputs, g.tensor(dt, sh))
		}
	case 1: // a data input, then small int64 vectors (shapes, axes, indices, k).
		c.inputs = append(c.inputs, g.tensor(tensor.Float, g.shape()))
		for i := 1; i < n; i++ {
			sh := []int{1 + g.pick(4)}
			if g.pick(4) == 0 {
				sh = []int{}
			}
			c.inputs = append(c.inputs, g.tensor(tensor.Int64, sh))
		}
	case 2: // float inputs of one rank-4 shape family with some omitted.
		for i := 0; i < n; i++ {
			if i > 0 && g.pick(3) == 0 {
				c.inputs = append(c.inputs, nil)
				continue
			}
			c.inputs = append(c.inputs, g.tensor(tensor.Float, robustShapes[8+g.pick(4)]))
		}
	case 3: // a data input, then small float vectors (scales, roi, bias), some omitted.
		c.inputs = append(c.inputs, g.tensor(tensor.Float, g.shape()))
		for i := 1; i < n; i++ {
			if g.pick(3) == 0 {
				c.inputs = append(c.inputs, nil)
				continue
			}
			c.inputs = append(c.inputs, g.tensor(tensor.Float, []int{g.pick(5)}))
		}
	default: // anything.
		for i := 0; i < n; i++ {
			if i > 0 && g.pick(5) == 0 {
				c.inputs = append(c.inputs, nil)
				continue
			}
			c.inputs = append(c.inputs, g.tensor(g.dtype(), g.shape()))
		}
	}
	return c
}

// robustInts are the integer values inputs hold: mostly small (valid
// indices, sizes and axes), sometimes out of range or extreme.
var robustInts = []int64{0, 1, 1, 2, 2, 3, -1, -2, 0, 1, 2, 4, 5, 7, 100, -100, 1 << 20, math.MaxInt64, math.MinInt64}

func (g *gen) tensor(dt tensor.DType, shape []int) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	switch d := t.Data().(type) {
	case []float32:
		for i := range d {
			d[i] = g.float()
		}
	case []float64:
		for i := range d {
			d[i] = float64(g.float())
		}
	case []int64:
		for i := range d {
			d[i] = robustInts[g.pick(len(robustInts))]
		}
	case []int32:
		for i := range d {
			d[i] = int32(robustInts[g.pick(12)])
		}
	case []uint8:
		for i := range d {
			d[i] = uint8(g.pick(256))
		}
	case []bool:
		for i := range d {
			d[i] = g.pick(2) == 0
		}
	case []string:
		words := []string{"", "a", "Hello", "world x", "ÄÖ"}
		for i := range d {
			d[i] = words[g.pick(len(words))]
		}
	}
	return t
}

func (g *gen) float() float32 {
	switch g.pick(40) {
	case 0:
		return float32(math.NaN())
	case 1:
		return float32(math.Inf(1))
	case 2:
		return float32(math.Inf(-1))
	case 3:
		return 0
	}
	return float32(g.rng.Float64()*6 - 3)
}

// relevantAttr is an attribute an op reads, with the type it expects.
type relevantAttr struct {
	name string
	typ  pb.AttributeProto_AttributeType
}

// robustAttrNames are the attribute names probed; every name some op in
// package ops reads is worth listing here.
var robustAttrNames = []string{
	"axis", "axes", "mode", "alpha", "beta", "epsilon", "dtype", "scale", "kernel_shape", "keepdims", "value",
	"reduction", "direction", "strides", "shape", "pads", "dilations", "to", "stash_type", "saturate", "reverse",
	"p", "output_dtype", "onesided", "k", "group", "exclusive", "block_size", "blocksize", "align_corners", "bias",
	"auto_pad", "starts", "ends", "split", "perm", "output_shape", "output_padding", "transA", "transB",
	"training_mode", "time_axis", "batch_axis", "storage_order", "start", "end", "sorted", "size",
	"select_last_index", "sample_size", "num_scan_inputs", "num_outputs", "num_heads", "num_groups",
	"noop_with_empty_axes", "new_axis", "layout", "largest", "is_causal", "hidden_size", "batch_dims",
	"ceil_mode", "count_include_pad", "upper", "center_point_box", "allowzero", "fmod", "chunk_size",
	"q_num_heads", "kv_num_heads", "rotary_embedding_dim", "interleaved", "softcap", "sampling_ratio",
	"output_height", "output_width", "spatial_scale", "min_gram_length", "max_gram_length", "max_skip_count",
	"ngram_counts", "ngram_indexes", "pool_int64s", "equation", "activations", "linear_before_reset",
	"input_forget", "clip", "lambd", "ratio", "seed", "high", "low", "mean", "threshold", "inverse",
	"detect_negative", "detect_positive", "nearest_mode", "coordinate_transformation_mode", "cubic_coeff_a",
	"exclude_outside", "extrapolation_value", "antialias", "keep_aspect_ratio_policy", "padding_mode",
	"periodic", "output_datatype", "precision", "qk_matmul_output_mode", "left_window_size",
	"right_window_size", "offset_group", "ignore_index", "value_float", "value_int", "value_ints",
	"value_floats", "value_string", "value_strings", "default_int64", "default_float", "default_string",
	"delimiter", "maxsplit", "pattern", "case_change_action", "stopwords", "is_case_sensitive", "weights",
	"activation", "approximate", "round_mode", "update_rule", "norm_coefficient", "decay_factor",
	"post_transform", "aggregate_function", "n_targets", "tree_roots", "leaf_targetids", "leaf_weights",
	"nodes_featureids", "nodes_modes", "nodes_splits", "nodes_truenodeids", "nodes_falsenodeids",
	"nodes_trueleafs", "nodes_falseleafs", "membership_values", "classes_strings", "default_tensor",
	"scales", "activation_alpha", "activation_beta", "gamma", "momentum", "spatial",
}

var expectedType = regexp.MustCompile(`attribute (\w+) is \w+, expected (\w+)`)

// relevantAttrs finds the attributes the op's builder reads by giving each
// probed name a type no op expects: a builder that reads it fails with
// "attribute NAME is ..., expected TYPE". It also reports builders that
// panic on the probe.
func relevantAttrs(domain, name string, version int) ([]relevantAttr, []failure) {
	res := op.Default.Resolve(domain, name, version)
	if res.Builder == nil {
		return nil, nil
	}
	var out []relevantAttr
	var fails []failure
	for _, an := range robustAttrNames {
		n := &op.Node{Name: "n", OpType: name, Domain: domain, Inputs: []string{"x0", "x1", "x2"}, Outputs: []string{"y0"},
			Version: res.Version, Opset: version, MaxBytes: robustMaxBytes,
			Attrs: map[string]*pb.AttributeProto{an: {Name: an, Type: pb.AttributeProto_TYPE_PROTOS}}}
		err := func() (err error) {
			defer func() {
				if p := recover(); p != nil {
					fails = append(fails, failure{config: "builder probe with attribute " + an + " of type TYPE_PROTOS",
						detail: fmt.Sprintf("builder panicked: %v\n%s", p, debug.Stack())})
				}
			}()
			_, err = res.Builder(n)
			return err
		}()
		if err == nil {
			continue
		}
		if m := expectedType.FindStringSubmatch(err.Error()); m != nil && m[1] == an {
			if t, ok := pb.AttributeProto_AttributeType_value[m[2]]; ok {
				out = append(out, relevantAttr{an, pb.AttributeProto_AttributeType(t)})
			}
		}
	}
	return out, fails
}

// attrValues lists the values tried for an attribute; the first is meant
// to be a good one.
func attrValues(ra relevantAttr) []*pb.AttributeProto {
	i := func(v int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: ra.name, Type: pb.AttributeProto_INT, I: v}
	}
	is := func(v ...int64) *pb.AttributeProto {
		return &pb.AttributeProto{Name: ra.name, Type: pb.AttributeProto_INTS, Ints: v}
	}
	f := func(v float32) *pb.AttributeProto {
		return &pb.AttributeProto{Name: ra.name, Type: pb.AttributeProto_FLOAT, F: v}
	}
	fs := func(v ...float32) *pb.AttributeProto {
		return &pb.AttributeProto{Name: ra.name, Type: pb.AttributeProto_FLOATS, Floats: v}
	}
	s := func(v string) *pb.AttributeProto {
		return &pb.AttributeProto{Name: ra.name, Type: pb.AttributeProto_STRING, S: []byte(v)}
	}
	ss := func(v ...string) *pb.AttributeProto {
		a := &pb.AttributeProto{Name: ra.name, Type: pb.AttributeProto_STRINGS}
		for _, x := range v {
			a.Strings = append(a.Strings, []byte(x))
		}
		return a
	}
	tn := func(t *tensor.Tensor) *pb.AttributeProto {
		return &pb.AttributeProto{Name: ra.name, Type: pb.AttributeProto_TENSOR, T: protoconv.Proto("", t)}
	}
	switch ra.typ {
	case pb.AttributeProto_INT:
		first := int64(1)
		switch ra.name {
		case "axis", "batch_dims", "batch_axis", "time_axis", "new_axis", "exclusive", "reverse", "keepdims",
			"center_point_box", "storage_order", "select_last_index", "layout", "start":
			first = 0
		case "to", "dtype", "output_dtype", "output_datatype":
			first = int64(tensor.Float)
		case "hidden_size", "num_heads", "q_num_heads", "kv_num_heads", "num_groups", "blocksize", "block_size":
			first = 2
		}
		return []*pb.AttributeProto{i(first), i(0), i(-1), i(2), i(100), i(-100), i(1 << 40), i(math.MinInt64)}
	case pb.AttributeProto_INTS:
		first := []int64{2, 2}
		switch ra.name {
		case "axes":
			first = []int64{0}
		case "perm":
			first = []int64{1, 0}
		case "pads":
			first = []int64{0, 0, 0, 0}
		case "strides", "dilations":
			first = []int64{1, 1}
		}
		return []*pb.AttributeProto{is(first...), is(), is(0), is(-1, -1), is(0, 0), is(100, -100), is(1, 1, 1, 1, 1, 1, 1, 1),
			is(1<<40, 1), is(-1, -1, -1, -1), is(1, 0, 5)}
	case pb.AttributeProto_FLOAT:
		return []*pb.AttributeProto{f(0.5), f(0), f(-1), f(float32(math.NaN())), f(float32(math.Inf(1))), f(1e30)}
	case pb.AttributeProto_FLOATS:
		return []*pb.AttributeProto{fs(1, 1), fs(), fs(float32(math.NaN())), fs(-1, 0, 1, 2, 3)}
	case pb.AttributeProto_STRING:
		return []*pb.AttributeProto{s(""), s("bogus"), s("SAME_UPPER"), s("VALID")}
	case pb.AttributeProto_STRINGS:
		return []*pb.AttributeProto{ss("a", "b"), ss(), ss("")}
	case pb.AttributeProto_TENSOR:
		return []*pb.AttributeProto{tn(tensor.Of([]int{1}, []float32{1})), tn(tensor.New(tensor.Float, 0)),
			tn(tensor.Scalar[int64](3)), tn(tensor.New(tensor.String, 2, 0)), tn(tensor.Of([]int{2, 1}, []bool{true, false}))}
	}
	return []*pb.AttributeProto{{Name: ra.name, Type: ra.typ}}
}

// mapAttrs returns the attributes of m (sorted by name) with the one named
// override replaced by a.
func mapAttrs(m map[string]*pb.AttributeProto, override string, a *pb.AttributeProto) []*pb.AttributeProto {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []*pb.AttributeProto
	for _, k := range names {
		if k == override {
			out = append(out, a)
		} else {
			out = append(out, m[k])
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func trim(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestMissingRequiredInput: a node that lists fewer inputs than its op
// requires is refused at load with an error naming the missing input,
// instead of a kernel indexing past its inputs.
func TestMissingRequiredInput(t *testing.T) {
	cases := []struct {
		op      string
		version int
		inputs  []*tensor.Tensor
		want    string
	}{
		{"Gemm", 13, []*tensor.Tensor{tensor.New(tensor.Float, 2, 2)}, "requires input 1 (B)"},
		{"MatMul", 13, nil, "requires input 0 (A)"},
		{"Where", 16, []*tensor.Tensor{tensor.New(tensor.Bool, 1), nil, tensor.New(tensor.Float, 1)}, "requires input 1 (X)"},
	}
	for _, c := range cases {
		data, feeds, outs := buildModel("", c.op, c.version, config{inputs: c.inputs, nOut: 1})
		_, err := runtime.Load(data, &runtime.Options{MaxTensorBytes: robustMaxBytes})
		if err == nil {
			s, _ := runtime.Load(data, nil)
			_, err = s.Run(context.Background(), feeds, outs...)
		}
		if errs.CodeOf(err) != errs.BadModel || !strings.Contains(fmt.Sprint(err), c.want) {
			t.Errorf("%s-%d with %d inputs: got %v, want GORT_BAD_MODEL mentioning %q", c.op, c.version, len(c.inputs), err, c.want)
		}
	}
}

// neverRuns lists the ops no configuration of the sweep can run, with the
// reason; every other op must have configurations that run to completion.
var neverRuns = map[string]string{
	"ConcatFromSequence": "takes a sequence, and the sweep feeds tensors only",
	"SequenceAt":         "takes a sequence, and the sweep feeds tensors only",
	"SequenceErase":      "takes a sequence, and the sweep feeds tensors only",
	"SequenceInsert":     "takes a sequence, and the sweep feeds tensors only",
	"SequenceLength":     "takes a sequence, and the sweep feeds tensors only",
	"SequenceMap":        "takes sequences, and the sweep feeds tensors only",
}

// Floors of the whole sweep, about 0.8 of what it measured (544,041
// configurations: ran 144,427, load-error 198,310, run-error 201,304):
// a change that makes far fewer configurations reach or pass the kernels
// shows up here.
const (
	minConfigs  = 430_000
	minRanShare = 0.2
)

// checkTallies asserts what the sweep exercised: no defects, every op (over
// its versions) ran some configurations to completion unless neverRuns says
// why it cannot, each listed op really never runs, and, for a whole sweep
// (not one narrowed by GORT_ROBUST_OPS), the floors above.
func checkTallies(labels []string, per map[string]tally, whole bool) []string {
	perOp := map[string]*tally{}
	var ops []string
	var all tally
	for _, l := range labels {
		name := l[:strings.LastIndexByte(l, '-')]
		if perOp[name] == nil {
			perOp[name] = &tally{}
			ops = append(ops, name)
		}
		perOp[name].add(per[l])
		all.add(per[l])
	}
	var out []string
	for _, name := range ops {
		tl := *perOp[name]
		_, exempt := neverRuns[name]
		switch {
		case tl.ran == 0 && !exempt:
			out = append(out, fmt.Sprintf("%s: no configuration ran to completion (%v)", name, tl))
		case tl.ran > 0 && exempt:
			out = append(out, fmt.Sprintf("%s: listed in neverRuns but %d configurations ran", name, tl.ran))
		}
	}
	if !whole {
		return out
	}
	if all.total() < minConfigs {
		out = append(out, fmt.Sprintf("the sweep ran %d configurations, fewer than %d", all.total(), minConfigs))
	}
	if float64(all.ran) < minRanShare*float64(all.total()) {
		out = append(out, fmt.Sprintf("only %d of %d configurations ran to completion (floor %.0f%%)", all.ran, all.total(), 100*minRanShare))
	}
	if all.failures != 0 {
		out = append(out, fmt.Sprintf("%d defects", all.failures))
	}
	return out
}

// TestCheckTalliesCanFail feeds checkTallies a sweep in which every
// configuration failed at load.
func TestCheckTalliesCanFail(t *testing.T) {
	labels := []string{"Add-7", "Add-13", "SequenceAt-11", "Relu-14"}
	per := map[string]tally{
		"Add-7":         {loadErr: 300_000},
		"Add-13":        {loadErr: 100_000, runErr: 20},
		"SequenceAt-11": {ran: 1, loadErr: 10},
		"Relu-14":       {ran: 5, loadErr: 200_000},
	}
	got := checkTallies(labels, per, true)
	want := []string{"Add: no configuration ran", "SequenceAt: listed in neverRuns", "only 6 of 600036"}
	if len(got) != len(want) {
		t.Fatalf("got %q, want %d problems", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
}
