package kernels

import (
	"math"
	"math/rand"
	"testing"
)

// refAttend is the naive float64 reference of Attend: one query row at a
// time, every score materialised.
func refAttend(h *AttnHead[float32]) []float64 {
	out := make([]float64, h.S*h.Dv)
	for i := 0; i < h.S; i++ {
		s := make([]float64, h.T)
		row32 := make([]float32, h.T)
		for j := range s {
			var d float64
			for x := 0; x < h.D; x++ {
				d += float64(h.Q[i*h.LdQ+x]) * float64(h.K[j*h.LdK+x])
			}
			d *= h.Scale
			if h.Softcap > 0 {
				d = h.Softcap * math.Tanh(d/h.Softcap)
			}
			row32[j] = float32(d)
		}
		if h.Row != nil {
			h.Row(i, row32)
		}
		mx := math.Inf(-1)
		for j := range s {
			s[j] = float64(row32[j])
			mx = math.Max(mx, s[j])
		}
		if h.Smooth {
			mx = math.Max(mx, 0)
		}
		if math.IsInf(mx, -1) {
			continue
		}
		var sum float64
		for j := range s {
			s[j] = math.Exp(s[j] - mx)
			sum += s[j]
		}
		if h.Smooth {
			sum += math.Exp(-mx)
		}
		for j := range s {
			for x := 0; x < h.Dv; x++ {
				out[i*h.Dv+x] += s[j] / sum * float64(h.V[j*h.LdV+x])
			}
		}
	}
	return out
}

func TestAttend(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	causal := func(i int, row []float32) {
		for j := i + 1; j < len(row); j++ {
			row[j] = float32(math.Inf(-1))
		}
	}
	allMasked := func(i int, row []float32) {
		if i%2 == 1 {
			for j := range row {
				row[j] = float32(math.Inf(-1))
			}
		}
	}
	for _, c := range []struct {
		name        string
		s, t, d, dv int
		pad         int // extra row stride
		softcap     float64
		smooth      bool
		row         func(int, []float32)
	}{
		{"small", 3, 5, 4, 4, 0, 0, false, nil},
		{"odd", 7, 9, 5, 3, 2, 0, false, nil},
		{"blocks", 70, 41, 8, 6, 0, 0, false, causal},
		{"softcap", 9, 13, 7, 7, 3, 2.5, false, nil},
		{"smooth", 5, 6, 3, 2, 0, 0, true, causal},
		{"masked rows", 6, 4, 3, 3, 0, 0, false, allMasked},
		{"one key", 4, 1, 2, 5, 0, 0, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ld, ldv := c.d+c.pad, c.dv+c.pad
			h := &AttnHead[float32]{
				Q: randSlice(r, c.s*ld), K: randSlice(r, c.t*ld), V: randSlice(r, c.t*ldv), Out: make([]float32, c.s*ldv),
				LdQ: ld, LdK: ld, LdV: ldv, LdOut: ldv, S: c.s, T: c.t, D: c.d, Dv: c.dv,
				Scale: 1 / math.Sqrt(float64(c.d)), Softcap: c.softcap, Smooth: c.smooth, Row: c.row,
			}
			for i := range h.Q {
				h.Q[i] *= 3
			}
			Attend(h, nil)
			want := refAttend(h)
			for i := 0; i < c.s; i++ {
				for x := 0; x < c.dv; x++ {
					got, w := float64(h.Out[i*ldv+x]), want[i*c.dv+x]
					if math.Abs(got-w) > 1e-5+1e-4*math.Abs(w) {
						t.Fatalf("out[%d][%d] = %g, want %g", i, x, got, w)
					}
				}
			}
		})
	}
}
