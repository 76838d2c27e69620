package cli

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"
)

func TestBench(t *testing.T) {
	p := model(t, t.TempDir(), nil)
	out, errs, code := gort("bench", "--runs", "4", p)
	if code != exitOK {
		t.Fatalf("bench: exit %d, %s", code, errs)
	}
	// The header, the random-input note, then four aligned timings.
	want := regexp.MustCompile(`^\S+: 4 run\(s\)\n  input x: random float32\[2 3\]\n  cold create  \S+\n  first run    \S+\n  median       \S+\n  p90          \S+\n$`)
	if !want.MatchString(out) {
		t.Errorf("bench output:\n%s", out)
	}
	out, _, code = gort("bench", "--json", "--runs", "3", p)
	var r benchResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || code != exitOK {
		t.Fatalf("bench --json: exit %d, %v\n%s", code, err, out)
	}
	if r.Runs != 3 || r.CreateMs <= 0 || r.FirstRunMs <= 0 || r.MedianMs <= 0 || r.P90Ms < r.MedianMs || len(r.Inputs) != 1 {
		t.Errorf("bench --json: %+v", r)
	}
	for _, args := range [][]string{{"bench", "--runs", "0", p}, {"bench"}, {"bench", "--runs", "x", p}, {"bench", p + ".missing"}} {
		if _, _, code := gort(args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestPercentile(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{ms(5), 50, 5 * time.Millisecond},
		{ms(5), 90, 5 * time.Millisecond},
		{ms(1, 2), 50, 1 * time.Millisecond},
		{ms(1, 2), 90, 2 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 50, 5 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 90, 9 * time.Millisecond},
		{ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), 90, 10 * time.Millisecond},
	} {
		if got := percentile(c.sorted, c.p); got != c.want {
			t.Errorf("percentile(%v, %g) = %v, want %v", c.sorted, c.p, got, c.want)
		}
	}
}
