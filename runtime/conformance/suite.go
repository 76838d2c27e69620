// Package conformance runs the ONNX backend node test suite (vendored in
// testdata/onnx-node) against gort and compares the results with the
// manifest in testdata/conformance/manifest.txt.
package conformance

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	_ "github.com/gort-dev/gort/ops" // the operator set
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gort-dev/gort/runtime"
	"github.com/gort-dev/gort/runtime/compare"
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/protoconv"
	"github.com/gort-dev/gort/runtime/tensor"
)

// TolerancesFile lists the per-case tolerances, each with its reason; the JS
// harness reads the same file. The path is relative to this package's
// directory, where its tests run.
var TolerancesFile = "../../testdata/conformance/tolerances.txt"

var (
	tolOnce  sync.Once
	tolCases map[string]compare.Tolerance
	tolErr   error
)

// caseTolerance returns the tolerance for a case: its line in TolerancesFile,
// or the default.
func caseTolerance(name string) (compare.Tolerance, error) {
	tolOnce.Do(func() { tolCases, tolErr = readTolerances(TolerancesFile) })
	if tolErr != nil {
		return compare.Tolerance{}, tolErr
	}
	if t, ok := tolCases[name]; ok {
		return t, nil
	}
	return compare.DefaultTolerance, nil
}

// RandomReason is the failure reason of a case whose expected values are
// random draws (tolerances line "<case> random # <why>") and whose outputs
// match them in kind, dtype and shape. Such a case can never be listed as
// passing: its values are not checked, and a fixed reason keeps the manifest
// stable however the draws fall.
const RandomReason = "random: expected values are RNG draws the spec does not fix; only dtype and shape are checked"

// readTolerances parses lines "<case> rtol=<r> atol=<a> # <why>" and
// "<case> random # <why>"; a line without a reason is an error, so no
// tolerance goes unexplained.
func readTolerances(path string) (map[string]compare.Tolerance, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]compare.Tolerance{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		spec, why, _ := strings.Cut(line, "#")
		fields := strings.Fields(spec)
		bad := func() error {
			return fmt.Errorf("%s:%d: want \"<case> rtol=<r> atol=<a> # <why>\" or \"<case> random # <why>\", got %q", path, i+1, line)
		}
		if strings.TrimSpace(why) == "" || len(fields) < 2 {
			return nil, bad()
		}
		var t compare.Tolerance
		if len(fields) == 2 && fields[1] == "random" {
			t.StructureOnly = true
		} else if n, err := fmt.Sscanf(strings.Join(fields[1:], " "), "rtol=%g atol=%g", &t.Rtol, &t.Atol); n != 2 || err != nil || len(fields) != 3 {
			return nil, bad()
		}
		out[fields[0]] = t
	}
	return out, nil
}

// RunCase runs every test_data_set_* of one case directory and returns ""
// on success or the reason for failure (a single line).
func RunCase(dir string) (reason string) { return RunCaseWith(dir, plan.All) }

// RunCaseWith is RunCase at a given optimisation level.
func RunCaseWith(dir string, level plan.Level) (reason string) {
	return RunCaseOptions(dir, &runtime.Options{Optimization: level}, nil)
}

// RunCaseOptions is RunCase with session options (an accelerator, say);
// inspect, when set, sees the loaded session first and may fail the case
// (by returning a reason), e.g. when a node is not placed where expected.
func RunCaseOptions(dir string, opts *runtime.Options, inspect func(*runtime.Session) string) (reason string) {
	defer func() {
		if p := recover(); p != nil {
			reason = fmt.Sprintf("harness panic: %v", p)
		}
	}()
	name := filepath.Base(dir)
	tol, err := caseTolerance(name)
	if err != nil {
		return "tolerances: " + err.Error()
	}
	data, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return "read model: " + err.Error()
	}
	s, err := runtime.Load(data, opts)
	if err != nil {
		return oneLine(err)
	}
	if inspect != nil {
		if r := inspect(s); r != "" {
			return r
		}
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	if len(sets) == 0 {
		return "no test_data_set_*"
	}
	g := s.Model().Graph
	for _, set := range sets {
		feeds, reason := ReadFeeds(s, set)
		if reason != "" {
			return reason
		}
		got, err := s.Run(context.Background(), feeds)
		if err != nil {
			return oneLine(err)
		}
		for i, out := range g.Outputs {
			b, err := os.ReadFile(filepath.Join(set, fmt.Sprintf("output_%d.pb", i)))
			if err != nil {
				return err.Error()
			}
			want, err := protoconv.DecodeValue(b, out.Type.ValueKind(), 0)
			if err != nil {
				return "expected output " + out.Name + ": " + oneLine(err)
			}
			if d := compare.Compare(got[out.Name], want, tol); d != "" {
				return fmt.Sprintf("output %q: %s", out.Name, d)
			}
		}
	}
	if tol.StructureOnly {
		return RandomReason
	}
	return ""
}

// ReadFeeds reads a test_data_set_* directory's inputs for s: like the
// ONNX backend runner, input_<i>.pb feeds the i-th input that is not an
// initializer (IR-3 models also list their weights as inputs). It returns
// the reason when they cannot be read.
func ReadFeeds(s *runtime.Session, set string) (map[string]tensor.Value, string) {
	feeds := map[string]tensor.Value{}
	for i, in := range s.Inputs() {
		b, err := os.ReadFile(filepath.Join(set, fmt.Sprintf("input_%d.pb", i)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // omitted optional input
			}
			return nil, err.Error()
		}
		v, err := protoconv.DecodeValue(b, in.Type.ValueKind(), 0)
		if err != nil {
			return nil, "input " + in.Name + ": " + oneLine(err)
		}
		feeds[in.Name] = v
	}
	return feeds, ""
}

// oneLine shortens an error for the manifest: code and message, first line, bounded.
func oneLine(err error) string {
	s := err.Error()
	if errs.CodeOf(err) == errs.Internal {
		if i := strings.Index(s, "\n"); i >= 0 {
			s = s[:i]
		}
	}
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 200 {
		s = s[:197] + "..."
	}
	return s
}

// Manifest maps a case name to "pass" or "fail: <reason>".
type Manifest map[string]string

// ReadManifest reads lines "case pass" / "case fail: reason"; # starts a comment.
func ReadManifest(path string) (Manifest, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := Manifest{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, status, _ := strings.Cut(line, " ")
		m[name] = status
	}
	return m, sc.Err()
}

// WriteManifest writes the manifest sorted by case name.
func WriteManifest(path string, m Manifest, header string) error {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(header)
	for _, n := range names {
		fmt.Fprintf(&b, "%s %s\n", n, m[n])
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// PrimaryOps reads the inventory's case → primary op column.
func PrimaryOps(inventory string) (map[string]string, error) {
	f, err := os.Open(inventory)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range rows[1:] {
		out[r[0]] = r[1]
	}
	return out, nil
}
