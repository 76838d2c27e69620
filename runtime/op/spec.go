package op

import "sort"

// SpecVersions lists the since_versions the ONNX spec defines for an op
// (ascending; nil if the spec does not know the op in that domain).
func SpecVersions(domain, opType string) []int {
	return specVersions[CanonicalDomain(domain)][opType]
}

// SpecOps lists the op types the spec defines in a domain, sorted.
func SpecOps(domain string) []string {
	var out []string
	for o := range specVersions[CanonicalDomain(domain)] {
		out = append(out, o)
	}
	sort.Strings(out)
	return out
}
