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

// SpecRequiredInputs names the input slots of an op version up to its last
// required one ("" for an optional slot before it), from the ONNX spec; nil
// when none is required or the spec does not know the op. The loader checks
// them so that kernels may index their required inputs without a check.
func SpecRequiredInputs(domain, opType string, version int) []string {
	return specRequired[CanonicalDomain(domain)][opType][version]
}
