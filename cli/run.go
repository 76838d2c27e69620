package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/diverge"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/npy"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

func (e *env) load(path string, opt plan.Level) (*runtime.Session, time.Duration, int) {
	b, err := readFile(path)
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return nil, 0, exitUsage
	}
	t0 := time.Now()
	s, err := runtime.Load(b, &runtime.Options{Optimization: opt})
	if err != nil {
		fmt.Fprintf(e.err, "gort: %s: %v\n", path, err)
		return nil, 0, exitUsage
	}
	return s, time.Since(t0), 0
}

// loadWithFeeds loads the model (optimised) and reads its feeds from the
// data flags, as run, compare, diverge and bench start; a nil session comes
// with the exit code, the error already written.
func (e *env) loadWithFeeds(path string, d *dataFlags) (*runtime.Session, time.Duration, map[string]tensor.Value, []string, int) {
	s, loadTime, code := e.load(path, plan.All)
	if s == nil {
		return nil, 0, nil, nil, code
	}
	feeds, notes, err := d.feeds(s)
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return nil, 0, nil, nil, exitUsage
	}
	return s, loadTime, feeds, notes, 0
}

// guesses are tried in order when a run on random feeds fails on what gort
// guessed: larger symbolic dims first (a model that frames audio or pools
// an image needs more than 1), then smaller integer ranges (token types,
// indices into a short axis).
var guesses = func() []guess {
	var gs []guess
	for _, dim := range []int{1, 16, 64, 256, 1024} {
		for _, hi := range []int64{4, 2, 1} {
			if g := (guess{dim, hi}); g != firstGuess {
				gs = append(gs, g)
			}
		}
	}
	return gs
}()

// retryGuesses is called when the first run failed (err): if gort guessed
// some of the random feeds' sizes or values and the run failed on its
// values, it tries the other guesses and returns the first feeds that run,
// with notes saying so. ok is false when nothing was guessed or nothing
// runs.
func (e *env) retryGuesses(s *runtime.Session, d *dataFlags, err error) (feeds map[string]tensor.Value, notes []string, ok bool) {
	if !d.guessed {
		return nil, nil, false
	}
	switch errs.CodeOf(err) {
	case errs.Runtime, errs.InvalidFeed:
	default:
		return nil, nil, false
	}
	for _, g := range guesses {
		feeds, notes, ferr := d.feedsGuessing(s, g)
		if ferr != nil {
			continue
		}
		if _, rerr := s.Run(context.Background(), feeds); rerr == nil {
			note := fmt.Sprintf("with symbolic dims of 1 and integers in [0, 3] the run failed (%v); it runs with unset dims of %d and integers in [0, %d] (--dim and --int-range choose)", err, g.dim, g.intHi-1)
			return feeds, append(notes, note), true
		}
	}
	return nil, nil, false
}

// progressTrace shows "node i/N" on a terminal's stderr during long runs.
func (e *env) progressTrace(s *runtime.Session) func(*graph.Node, []tensor.Value) {
	if !e.progress {
		return nil
	}
	total := len(s.Model().Graph.Nodes)
	done := 0
	last := time.Now()
	return func(*graph.Node, []tensor.Value) {
		done++
		if time.Since(last) > 200*time.Millisecond {
			fmt.Fprintf(e.err, "\r  node %d/%d", min(done, total), total)
			last = time.Now()
		}
	}
}

func (e *env) endProgress() {
	if e.progress {
		fmt.Fprint(e.err, "\r\x1b[K")
	}
}

type outputSummary struct {
	Name     string  `json:"name"`
	DType    string  `json:"dtype"`
	Shape    []int   `json:"shape"`
	Checksum float64 `json:"checksum"`
}

func cmdRun(e *env, args []string) int {
	f := newFlags(e, "run", "model.onnx", "Runs the model and prints each output's dtype, shape and checksum (the sum of its values).")
	d := addDataFlags(f, false)
	repeat := f.Int("repeat", 1, "number of timed runs (the best is reported)")
	save := f.String("save", "", "write the outputs to this .npz file")
	saveValues := f.String("save-values", "", "write every node output to this folder as <value>.npy (a reference for diverge)")
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	s, loadTime, feeds, notes, code := e.loadWithFeeds(pos[0], d)
	if s == nil {
		return code
	}
	var out map[string]tensor.Value
	var err error
	var best time.Duration
	for r := 0; r < max(*repeat, 1); r++ {
		t0 := time.Now()
		if *saveValues != "" && r == 0 {
			rec, err := diverge.Record(context.Background(), s, feeds)
			if err == nil {
				err = writeValues(*saveValues, rec)
			}
			out = rec.Outputs
			if err != nil {
				fmt.Fprintf(e.err, "gort: %v\n", err)
				return exitFailed
			}
		} else {
			out, err = s.RunWith(context.Background(), feeds, nil, runtime.RunOptions{Trace: e.progressTrace(s)})
			e.endProgress()
			if err != nil && r == 0 {
				if f, n, ok := e.retryGuesses(s, d, err); ok {
					feeds, notes = f, n
					out, err = s.RunWith(context.Background(), feeds, nil, runtime.RunOptions{})
				}
			}
			if err != nil {
				fmt.Fprintf(e.err, "gort: %v\n", err)
				return exitFailed
			}
		}
		if d := time.Since(t0); r == 0 || d < best {
			best = d
		}
	}
	var sums []outputSummary
	for _, o := range s.Outputs() {
		t, ok := out[o.Name].(*tensor.Tensor)
		if !ok {
			sums = append(sums, outputSummary{Name: o.Name, DType: fmt.Sprintf("%T", out[o.Name])})
			continue
		}
		sums = append(sums, outputSummary{Name: o.Name, DType: t.DType().String(), Shape: t.Shape(), Checksum: checksum(t)})
	}
	if *save != "" {
		arrays := map[string]*tensor.Tensor{}
		var order []string
		for _, o := range s.Outputs() {
			if t, ok := out[o.Name].(*tensor.Tensor); ok {
				arrays[o.Name] = t
				order = append(order, o.Name)
			}
		}
		b, err := npy.WriteNPZ(arrays, order)
		if err == nil {
			err = writeFile(*save, b)
		}
		if err != nil {
			fmt.Fprintf(e.err, "gort: %v\n", err)
			return exitFailed
		}
	}
	if *f.json {
		e.writeJSON(map[string]any{"model": pos[0], "loadMs": ms(loadTime), "runMs": ms(best), "runs": max(*repeat, 1), "inputs": notes, "outputs": sums})
		return exitOK
	}
	fmt.Fprintf(e.out, "%s: loaded in %v, ran in %v (best of %d)\n", pos[0], loadTime.Round(time.Microsecond), best.Round(time.Microsecond), max(*repeat, 1))
	for _, n := range notes {
		fmt.Fprintf(e.out, "  %s\n", n)
	}
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
	for _, s := range sums {
		fmt.Fprintf(tw, "  %s\t%s%v\tchecksum %.6g\n", s.Name, s.DType, s.Shape, s.Checksum)
	}
	tw.Flush()
	return exitOK
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func writeValues(dir string, r *diverge.Run) error {
	if err := mkdirAll(dir); err != nil {
		return err
	}
	for name, v := range r.Values {
		t, ok := v.(*tensor.Tensor)
		if !ok || r.Repeated[name] {
			continue
		}
		b, err := npy.Write(t)
		if err != nil {
			continue // a dtype NumPy lacks (bfloat16, 8-bit floats)
		}
		if err := writeFile(filepath.Join(dir, fileName(name)+".npy"), b); err != nil {
			return err
		}
	}
	return nil
}

func checksum(t *tensor.Tensor) float64 {
	vals, err := t.Float64s()
	if err != nil {
		return 0
	}
	s := 0.0
	for _, v := range vals {
		s += v
	}
	return s
}

func tolFlags(f *cmdFlags) (*float64, *float64) {
	return f.Float64("rtol", compare.DefaultTolerance.Rtol, "relative tolerance"), f.Float64("atol", compare.DefaultTolerance.Atol, "absolute tolerance")
}

type outputComparison struct {
	Name  string         `json:"name"`
	Stats *compare.Stats `json:"stats,omitempty"`
	Note  string         `json:"note,omitempty"`
	Pass  bool           `json:"pass"`
}

func cmdCompare(e *env, args []string) int {
	f := newFlags(e, "compare", "model.onnx", "Runs the model and compares each output with the expected one: dtype and shape, max abs and\nrel error, mismatches at atol + rtol·|expected| (ONNX defaults rtol 1e-3, atol 1e-7), cosine\nsimilarity and the worst element. Exit code 1 when an output differs.")
	d := addDataFlags(f, true)
	rtol, atol := tolFlags(f)
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	if *d.data == "" && len(d.expected) == 0 {
		fmt.Fprintln(e.err, "gort compare: give --data DIR or --expected FILE")
		return exitUsage
	}
	s, _, feeds, notes, code := e.loadWithFeeds(pos[0], d)
	if s == nil {
		return code
	}
	want, err := d.expectedValues(s)
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return exitUsage
	}
	if len(want) == 0 {
		fmt.Fprintln(e.err, "gort compare: no expected outputs found")
		return exitUsage
	}
	got, err := s.RunWith(context.Background(), feeds, nil, runtime.RunOptions{Trace: e.progressTrace(s)})
	e.endProgress()
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return exitFailed
	}
	tol := compare.Tolerance{Rtol: *rtol, Atol: *atol}
	var results []outputComparison
	pass := true
	for _, o := range s.Outputs() {
		w, ok := want[o.Name]
		if !ok {
			results = append(results, outputComparison{Name: o.Name, Note: "no expected value", Pass: true})
			continue
		}
		r := outputComparison{Name: o.Name}
		gt, ok1 := got[o.Name].(*tensor.Tensor)
		wt, ok2 := w.(*tensor.Tensor)
		if ok1 && ok2 {
			st := compare.TensorStats(gt, wt, tol)
			r.Stats, r.Pass, r.Note = &st, st.Pass, st.Note
		} else {
			r.Note = compare.Compare(got[o.Name], w, tol)
			r.Pass = r.Note == ""
		}
		pass = pass && r.Pass
		results = append(results, r)
	}
	if *f.json {
		e.writeJSON(map[string]any{"model": pos[0], "pass": pass, "rtol": *rtol, "atol": *atol, "inputs": notes, "outputs": results})
	} else {
		for _, n := range notes {
			fmt.Fprintf(e.out, "%s\n", n)
		}
		e.printComparisons(results)
		verdict := "PASS"
		failed := 0
		for _, r := range results {
			if !r.Pass {
				failed++
			}
		}
		line := fmt.Sprintf("%s: %d of %d outputs match (rtol %g, atol %g)", verdict, len(results)-failed, len(results), *rtol, *atol)
		if !pass {
			line = e.paint(red, "FAIL"+strings.TrimPrefix(line, "PASS"))
		} else {
			line = e.paint(green, line)
		}
		fmt.Fprintln(e.out, line)
	}
	if !pass {
		return exitFailed
	}
	return exitOK
}

func (e *env) printComparisons(rs []outputComparison) {
	tw := tabwriter.NewWriter(e.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OUTPUT\tDTYPE\tSHAPE\tMAX ABS\tMAX REL\tMISMATCHES\tCOSINE\tWORST (got / want)\tRESULT")
	for _, r := range rs {
		res := fmt.Sprintf("%-4s", "ok")
		if !r.Pass {
			res = e.paint(red, "FAIL")
		}
		if r.Stats == nil {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t%s\t%s\n", r.Name, dash(r.Note), res)
			continue
		}
		s := r.Stats
		worst := "-"
		if s.WorstIndex != nil {
			worst = fmt.Sprintf("%v %.6g / %.6g", s.WorstIndex, s.WorstGot, s.WorstWant)
		}
		if s.Note != "" {
			worst = s.Note
		}
		fmt.Fprintf(tw, "%s\t%s\t%v\t%.3g\t%.3g\t%d/%d\t%.6f\t%s\t%s\n", r.Name, s.GotDType, s.GotShape, s.MaxAbs, s.MaxRel, s.Mismatches, s.Elements, s.Cosine, worst, res)
	}
	tw.Flush()
}

func cmdDiverge(e *env, args []string) int {
	f := newFlags(e, "diverge", "model.onnx", "Runs the model with a trace of every node's outputs and names the first node, in\ntopological order, whose output differs from a reference beyond tolerance, with the\ncomparison of its outputs and whether its inputs still agreed. The reference is a folder\nof <value>.npy files (gort run --save-values, or dumped from another runtime), an .npz of\nvalues by name, or (--unoptimized) the same model run with graph optimization disabled.\nExit code 1 when a node diverges.")
	d := addDataFlags(f, false)
	ref := f.String("reference", "", "per-value reference outputs: a folder of <value>.npy files or an .npz")
	unopt := f.Bool("unoptimized", false, "compare the optimized run against a run with graph optimization disabled")
	rtol, atol := tolFlags(f)
	pos, code, ok := f.parse(args, 1)
	if !ok {
		return code
	}
	if (*ref == "") == !*unopt {
		fmt.Fprintln(e.err, "gort diverge: give exactly one of --reference or --unoptimized")
		return exitUsage
	}
	s, _, feeds, notes, code := e.loadWithFeeds(pos[0], d)
	if s == nil {
		return code
	}
	tol := compare.Tolerance{Rtol: *rtol, Atol: *atol}
	var div *diverge.Divergence
	var sum diverge.Summary
	var err error
	if *unopt {
		plain, _, code := e.load(pos[0], plan.Disabled)
		if plain == nil {
			return code
		}
		div, sum, err = diverge.Sessions(context.Background(), s, plain, feeds, tol)
	} else {
		var run *diverge.Run
		run, err = diverge.Record(context.Background(), s, feeds)
		if err == nil {
			var refs map[string]tensor.Value
			refs, err = readReference(*ref, run)
			if err == nil {
				div, sum = diverge.First(run, refs, tol)
				if sum.Compared == 0 {
					fmt.Fprintf(e.err, "gort diverge: no value of the run has a reference in %s\n", *ref)
					return exitUsage
				}
			}
		}
	}
	if err != nil {
		fmt.Fprintf(e.err, "gort: %v\n", err)
		return exitFailed
	}
	if *f.json {
		e.writeJSON(map[string]any{"model": pos[0], "diverged": div != nil, "divergence": div, "summary": sum, "inputs": notes})
	} else {
		for _, n := range notes {
			fmt.Fprintln(e.out, n)
		}
		if div == nil {
			fmt.Fprintln(e.out, e.paint(green, fmt.Sprintf("no divergence: %d values compared over %d nodes (%d without reference)", sum.Compared, sum.Steps, sum.Skipped)))
			return exitOK
		}
		fmt.Fprintln(e.out, e.paint(red, fmt.Sprintf("first divergence at node %s (%s, #%d in execution order)", div.Node, div.Op, div.Index)))
		var rs []outputComparison
		for _, o := range div.Outputs {
			st := o.Stats
			rs = append(rs, outputComparison{Name: o.Name, Stats: &st, Pass: st.Pass})
		}
		e.printComparisons(rs)
		if div.InputsAgreed {
			fmt.Fprintln(e.out, "its inputs agreed with the reference: the node itself computes differently")
		} else {
			fmt.Fprintf(e.out, "its inputs already differed: %s\n", strings.Join(div.InputNotes, "; "))
		}
	}
	if div != nil {
		return exitFailed
	}
	return exitOK
}

// readReference reads per-value references: an .npz by value name, or a
// folder of <fileName(value)>.npy.
func readReference(path string, run *diverge.Run) (map[string]tensor.Value, error) {
	out := map[string]tensor.Value{}
	if strings.HasSuffix(strings.ToLower(path), ".npz") {
		b, err := readFile(path)
		if err != nil {
			return nil, err
		}
		arrays, _, err := npy.ReadNPZ(b, 0)
		if err != nil {
			return nil, err
		}
		for k, v := range arrays {
			out[k] = v
		}
		return out, nil
	}
	st, err := stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s: want a folder of .npy files or an .npz", path)
	}
	names := make([]string, 0, len(run.Values))
	for n := range run.Values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := readFile(filepath.Join(path, fileName(n)+".npy"))
		if err != nil {
			continue
		}
		t, err := npy.Read(b, 0)
		if err != nil {
			return nil, fmt.Errorf("%s.npy: %w", fileName(n), err)
		}
		out[n] = t
	}
	return out, nil
}
