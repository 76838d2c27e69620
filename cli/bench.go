package cli

import (
	"context"
	"fmt"
	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/plan"
	"io"
	"math"
	"slices"
	"sort"
	"text/tabwriter"
	"time"
)

// benchResult is bench's JSON form.
type benchResult struct {
	Model      string   `json:"model"`
	Runs       int      `json:"runs"`
	CreateMs   float64  `json:"createMs"`
	FirstRunMs float64  `json:"firstRunMs"`
	MedianMs   float64  `json:"medianMs"`
	P90Ms      float64  `json:"p90Ms"`
	Inputs     []string `json:"inputs"`
}

// cmdBench times a model the way an application meets it: the cold create
// (decode, load and plan, once), the first run (which pays for first-use
// allocations), then the steady state as the median and 90th percentile of
// the runs after the first, on the same inputs.
func cmdBench(e *env, args []string) int {
	f := newFlags(e, "bench", "model.onnx", "Loads the model once and runs it N times on the same inputs: the cold create (load and\nplan), the first run, and the median and 90th percentile of the runs after the first.")
	d := addDataFlags(f, false)
	runs := f.Int("runs", 10, "number of runs, the first included")
	profile := f.Bool("profile", false, "also print where the steady-state time goes: per op type and the slowest nodes")
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	if *runs < 1 {
		fmt.Fprintln(e.err, "gort bench: --runs must be at least 1")
		return exitUsage
	}
	s, create, feeds, notes, code := e.loadWithFeeds(pos[0], d)
	if s == nil {
		return code
	}
	times := make([]time.Duration, 0, *runs)
	prof := newProfile(s.Plan())
	for r := 0; r < *runs; r++ {
		if e.progress {
			fmt.Fprintf(e.err, "\r  run %d/%d", r+1, *runs)
		}
		var ro runtime.RunOptions
		if *profile && (r > 0 || *runs == 1) {
			ro.Profile = prof.add
		}
		t0 := time.Now()
		_, err := s.RunWith(context.Background(), feeds, nil, ro)
		times = append(times, time.Since(t0))
		if err != nil && r == 0 {
			// Guessed inputs the model refuses: bench on ones it takes
			// (the first run below then follows the probes).
			if f, n, ok := e.retryGuesses(s, d, err); ok {
				feeds, notes = f, append(n, "the first run follows the runs that found these inputs: it is not cold")
				times = times[:0]
				r--
				continue
			}
		}
		if err != nil {
			e.endProgress()
			fmt.Fprintf(e.err, "gort: %v\n", err)
			return exitFailed
		}
	}
	e.endProgress()
	warm := slices.Clone(times)
	if len(warm) > 1 {
		warm = warm[1:]
	}
	slices.Sort(warm)
	median, p90 := percentile(warm, 50), percentile(warm, 90)
	if *f.json {
		e.writeJSON(benchResult{Model: pos[0], Runs: *runs, CreateMs: ms(create), FirstRunMs: ms(times[0]), MedianMs: ms(median), P90Ms: ms(p90), Inputs: notes})
		return exitOK
	}
	fmt.Fprintf(e.out, "%s: %d run(s)\n", pos[0], *runs)
	for _, n := range notes {
		fmt.Fprintf(e.out, "  %s\n", n)
	}
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  cold create\t%v\n", create.Round(time.Microsecond))
	fmt.Fprintf(tw, "  first run\t%v\n", times[0].Round(time.Microsecond))
	fmt.Fprintf(tw, "  median\t%v\n", median.Round(time.Microsecond))
	fmt.Fprintf(tw, "  p90\t%v\n", p90.Round(time.Microsecond))
	tw.Flush()
	if *profile {
		prof.print(e.out, max(*runs-1, 1))
	}
	return exitOK
}

// profile sums kernel time per node and per op type over the profiled
// runs; the plan's transfer steps (op types Upload and Download) are
// nodes too, with their sizes where known at load.
type profile struct {
	byNode map[*graph.Node]time.Duration
	order  []*graph.Node
	bytes  map[*graph.Node]int64
}

func newProfile(p *plan.Plan) *profile {
	pr := &profile{byNode: map[*graph.Node]time.Duration{}, bytes: map[*graph.Node]int64{}}
	for _, st := range p.Steps {
		if st.Transfer != plan.NoTransfer && st.Bytes > 0 {
			pr.bytes[st.Node] = st.Bytes
		}
	}
	return pr
}

func (p *profile) add(n *graph.Node, d time.Duration) {
	if _, ok := p.byNode[n]; !ok {
		p.order = append(p.order, n)
	}
	p.byNode[n] += d
}

// print writes the time per run by op type, then the 15 slowest nodes.
func (p *profile) print(w io.Writer, runs int) {
	var total time.Duration
	type row struct {
		name  string
		d     time.Duration
		count int
		bytes int64
	}
	byOp := map[string]*row{}
	for _, n := range p.order {
		d := p.byNode[n]
		total += d
		key := n.OpType
		if n.Fused != nil && len(n.Fused.Fused) > 0 {
			key += " (fused)"
		}
		r := byOp[key]
		if r == nil {
			r = &row{name: key}
			byOp[key] = r
		}
		r.d += d
		r.count++
		r.bytes += p.bytes[n]
	}
	var ops []*row
	for _, r := range byOp {
		ops = append(ops, r)
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].d > ops[j].d })
	per := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d)/float64(runs)/1e6) }
	pct := func(d time.Duration) string { return fmt.Sprintf("%.1f%%", 100*float64(d)/float64(max(total, 1))) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  profile (per run, kernels only)\t%s\n", per(total))
	for _, r := range ops {
		name := r.name
		if r.bytes > 0 {
			name += ", " + plan.FormatBytes(r.bytes) + " per run"
		}
		fmt.Fprintf(tw, "    %s ×%d\t%s\t%s\n", name, r.count, per(r.d), pct(r.d))
	}
	nodes := slices.Clone(p.order)
	sort.SliceStable(nodes, func(i, j int) bool { return p.byNode[nodes[i]] > p.byNode[nodes[j]] })
	fmt.Fprintf(tw, "  slowest nodes\t\t\n")
	for _, n := range nodes[:min(15, len(nodes))] {
		what := n.OpType
		if b := p.bytes[n]; b > 0 {
			what += ", " + plan.FormatBytes(b)
		}
		fmt.Fprintf(tw, "    %s (%s)\t%s\t%s\n", n.Name, what, per(p.byNode[n]), pct(p.byNode[n]))
	}
	tw.Flush()
}

// percentile is the nearest-rank p-th percentile of ascending durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}
