package schema

import (
	"reflect"
	"testing"
)

// The lazy per-op parse must give what parsing the whole table gives, for
// every op of every domain, and must know exactly the ops the table holds.
func TestLazyParseMatchesWholeTable(t *testing.T) {
	whole := parse(table)
	for _, d := range Domains() {
		if whole[d] == nil {
			t.Fatalf("domain %q indexed but not in the table", d)
		}
		if got, want := len(Ops(d)), len(whole[d]); got != want {
			t.Fatalf("domain %q: %d ops indexed, the table has %d", d, got, want)
		}
		for _, op := range Ops(d) {
			if !reflect.DeepEqual(versions(d, op), whole[d][op]) {
				t.Fatalf("%q %s: lazily parsed versions differ from the whole table's", d, op)
			}
		}
	}
	if len(Domains()) != len(whole) {
		t.Fatalf("%d domains indexed; the table has %d", len(Domains()), len(whole))
	}
}
