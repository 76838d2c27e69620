package exec

import "testing"

// TestPoolTakesLargerBuffer: a value takes a parked buffer of its own size
// class or of one of the next largerClasses classes (up to twice its size),
// never a smaller one or one more than twice as large; a reused buffer
// comes back zeroed and keeps its capacity, so it returns to its own class.
func TestPoolTakesLargerBuffer(t *testing.T) {
	for _, tc := range []struct {
		parked, n int
		reuse     bool
	}{
		{parked: 1000, n: 1000, reuse: true},
		{parked: 1000, n: 990, reuse: true},   // same class
		{parked: 1000, n: 600, reuse: true},   // 1.7× larger
		{parked: 1000, n: 520, reuse: true},   // just under twice
		{parked: 1000, n: 400, reuse: false},  // 2.5× larger: wasteful
		{parked: 1000, n: 1100, reuse: false}, // too small
		{parked: 40, n: 10, reuse: true},      // the smallest class holds both
		{parked: 3 << 20, n: 2 << 20, reuse: true},
	} {
		p := NewPool()
		b := p.get(tc.parked)
		for i := range b {
			b[i] = 1
		}
		p.put(b)
		got := p.get(tc.n)
		reused := p.Fresh() == 1
		if reused != tc.reuse {
			t.Errorf("parked %d, asked %d: reused %v, want %v", tc.parked, tc.n, reused, tc.reuse)
		}
		if len(got) != tc.n {
			t.Errorf("parked %d, asked %d: len %d", tc.parked, tc.n, len(got))
		}
		for i, v := range got {
			if v != 0 {
				t.Fatalf("parked %d, asked %d: element %d is %v, want 0", tc.parked, tc.n, i, v)
			}
		}
		if reused && cap(got) != cap(b) {
			t.Errorf("parked %d, asked %d: cap %d, want the parked buffer's %d", tc.parked, tc.n, cap(got), cap(b))
		}
		if p.Held() != 0 && reused {
			t.Errorf("held %d bytes after taking the only buffer", p.Held())
		}
	}
}
