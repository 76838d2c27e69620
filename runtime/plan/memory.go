package plan

import (
	"fmt"
	"sort"
	"strings"
)

// ValueSize is one value's size in a memory estimate.
type ValueSize struct {
	Name  string
	Bytes int64
}

// MemoryEstimate is what a run of the main graph holds at its peak, from
// the step order and the values' lifetimes (the buffer pool recycles a
// value's memory after its last reader, so the peak is the largest set of
// simultaneously live values, not their sum).
type MemoryEstimate struct {
	// Peak is the most bytes of computed values alive at once (constants
	// and feeds not included), with pool rounding.
	Peak int64
	// AtPeak lists the values alive at the peak, largest first.
	AtPeak []ValueSize
	// Unknown lists values whose size could not be inferred (not counted).
	Unknown []string
}

// poolOverhead is the worst-case rounding of the buffer pool's size
// classes (8 per power of two).
const poolOverhead = 1.125

// Estimate simulates a run; bytesOf gives a value's size when known.
func (p *Plan) Estimate(bytesOf func(name string) (int64, bool)) MemoryEstimate {
	var est MemoryEstimate
	live := map[int]int64{}
	var cur int64
	record := func() {
		if cur <= est.Peak {
			return
		}
		est.Peak = cur
		est.AtPeak = est.AtPeak[:0]
		for s, b := range live {
			est.AtPeak = append(est.AtPeak, ValueSize{p.Names[s], b})
		}
	}
	for _, st := range p.Steps {
		for _, s := range st.Out {
			if s < 0 {
				continue
			}
			name := p.Names[s]
			switch st.Transfer {
			case Upload:
				continue // device memory
			case Download:
				name = st.Node.Inputs[0]
			}
			b, ok := bytesOf(name)
			if !ok {
				est.Unknown = append(est.Unknown, p.Names[s])
				continue
			}
			b = int64(float64(b) * poolOverhead)
			live[s] = b
			cur += b
		}
		record()
		for _, s := range st.Free {
			cur -= live[s]
			delete(live, s)
		}
	}
	sort.Slice(est.AtPeak, func(i, j int) bool {
		if est.AtPeak[i].Bytes != est.AtPeak[j].Bytes {
			return est.AtPeak[i].Bytes > est.AtPeak[j].Bytes
		}
		return est.AtPeak[i].Name < est.AtPeak[j].Name
	})
	return est
}

// Largest describes the biggest values at the peak, for error messages.
func (e MemoryEstimate) Largest(k int) string {
	var parts []string
	for i, v := range e.AtPeak {
		if i == k {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.AtPeak)-k))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", v.Name, FormatBytes(v.Bytes)))
	}
	return strings.Join(parts, ", ")
}

// FormatBytes writes a byte count with a binary unit.
func FormatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}
