package ops_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/gort-dev/gort/ops"
	"github.com/gort-dev/gort/ops/contrib"
	"github.com/gort-dev/gort/runtime/op"
)

// unregistered lists the spec versions, older than an op's newest
// registered one, that gort deliberately does not register, keyed
// "domain.Op-version" ("Op-version" in the default domain), each with the
// reason. A model whose opset resolves to one of them is refused with
// "Op-N needed" instead of running another version's semantics.
// docs/op-versions.md explains each entry.
var unregistered = map[string]string{}

// outsideSpec names the ops registered outside the ONNX spec on purpose:
// onnxruntime's contrib ops (ops/contrib), in its com.microsoft domain and
// the one it registers in the default domain. Their versions are
// onnxruntime's; ops/contrib tests them against onnxruntime itself.
func outsideSpec(domain, name string) bool {
	return domain == contrib.Domain || (domain == "" && name == "SimplifiedLayerNormalization")
}

// versionProblems checks registrations against the spec both ways: every
// registered version exists in the spec, and every spec version up to the
// newest registered one is registered or listed in skip with a reason.
// Entries of skip that are registered, or unknown to the spec, are
// problems too, so the table cannot go stale.
func versionProblems(r *op.Registry, specDomains []string, spec func(domain, name string) []int, skip map[string]string) []string {
	var out []string
	used := map[string]bool{}
	for _, d := range r.Domains() {
		if d == contrib.Domain {
			continue
		}
		if !slices.Contains(specDomains, d) {
			out = append(out, fmt.Sprintf("domain %q has registered ops but the spec does not define it", d))
		}
		for _, name := range r.Ops(d) {
			if outsideSpec(d, name) {
				continue
			}
			full := name
			if d != "" {
				full = d + "." + name
			}
			reg, sv := r.Versions(d, name), spec(d, name)
			for _, v := range reg {
				if !slices.Contains(sv, v) {
					out = append(out, fmt.Sprintf("%s-%d is registered, but the spec defines versions %v", full, v, sv))
				}
			}
			newest := reg[len(reg)-1]
			for _, v := range sv {
				k := fmt.Sprintf("%s-%d", full, v)
				switch {
				case slices.Contains(reg, v):
					if _, ok := skip[k]; ok {
						out = append(out, fmt.Sprintf("%s is listed as unregistered but is registered", k))
					}
					used[k] = true
				case v > newest:
				case skip[k] != "":
					used[k] = true
				default:
					out = append(out, fmt.Sprintf("%s is in the spec, older than the registered %s-%d, but neither registered nor listed with a reason", k, full, newest))
				}
			}
		}
	}
	for k := range skip {
		if !used[k] {
			out = append(out, fmt.Sprintf("unregistered table: %s is not a spec version of a registered op", k))
		}
	}
	slices.Sort(out)
	return out
}

// TestRegisteredVersionsMatchSpec guards the registry's promise: a model
// resolves to the newest *spec* version ≤ its opset, so an op registered at
// a version the spec does not define would be chosen for the wrong
// opsets, and a spec version silently skipped would run an older
// version's semantics... or be refused without anyone having decided so.
func TestRegisteredVersionsMatchSpec(t *testing.T) {
	for _, p := range versionProblems(op.Default, op.SpecDomains(), op.SpecVersions, unregistered) {
		t.Error(p)
	}
	missing := 0
	for _, d := range op.SpecDomains() {
		for _, name := range op.SpecOps(d) {
			if len(op.Default.Versions(d, name)) == 0 {
				missing++
				t.Logf("not implemented: %q %s %v", d, name, op.SpecVersions(d, name))
			}
		}
	}
	t.Logf("%d spec ops not implemented", missing)
}

// TestVersionProblemsCanFail runs the check on a made-up registry with one
// instance of each problem it must report.
func TestVersionProblemsCanFail(t *testing.T) {
	spec := map[string][]int{"Add": {1, 6, 7, 13}, "Abs": {1, 6, 13}, "Relu": {6, 14}, "x.Foo": {1}}
	lookup := func(d, name string) []int {
		if d != "" {
			name = d + "." + name
		}
		return spec[name]
	}
	b := func(n *op.Node) (any, error) { return nil, nil }
	r := op.NewRegistry()
	r.Register("", "Add", []int{1, 7, 13}, b)     // 6 missing, not listed
	r.Register("", "Abs", []int{1, 6, 13, 14}, b) // 14 not in spec
	r.Register("", "Relu", []int{6}, b)           // 14 newer than registered: fine
	r.Register("y", "Bar", []int{1}, b)           // unknown domain and op
	skip := map[string]string{"Abs-6": "listed but registered", "Abs-2": "not in spec"}
	got := versionProblems(r, []string{"", "x"}, lookup, skip)
	want := []string{
		"Abs-14 is registered",
		"Abs-6 is listed as unregistered but is registered",
		"Add-6 is in the spec",
		"domain \"y\"",
		"unregistered table: Abs-2",
		"y.Bar-1 is registered",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want prefix %q", i, got[i], want[i])
		}
	}
	delete(skip, "Abs-6")
	delete(skip, "Abs-2")
	skip["Add-6"] = "legacy broadcast"
	r2 := op.NewRegistry()
	r2.Register("", "Add", []int{1, 7, 13}, b)
	if got := versionProblems(r2, []string{""}, lookup, skip); len(got) != 0 {
		t.Errorf("a listed version is still reported: %q", got)
	}
}

// TestDomainsCoverSpec checks that Registry.Domains reaches the preview
// domain (FlexAttention), which a hand-written list once missed.
func TestDomainsCoverSpec(t *testing.T) {
	ds := op.Default.Domains()
	for _, d := range []string{"", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"} {
		if !slices.Contains(ds, d) {
			t.Errorf("Domains() = %q lacks %q", ds, d)
		}
	}
	if !slices.ContainsFunc(op.Default.List(), func(s string) bool { return strings.HasPrefix(s, "ai.onnx.preview.FlexAttention-") }) {
		t.Error("List() lacks ai.onnx.preview.FlexAttention")
	}
}

// TestNoRegistrationFromSpecTable: a registration that takes its versions
// from op.SpecVersions would claim every version a regenerated spec table
// adds, and make the check above pass by construction.
func TestNoRegistrationFromSpecTable(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(src, []byte("SpecVersions(")) {
			t.Errorf("%s calls op.SpecVersions: list the registered versions explicitly", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
