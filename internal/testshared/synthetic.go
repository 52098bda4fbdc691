package testshared

import (
	"fmt"
	"strings"
)

// SyntheticChangelog is the cost tests' large document: an upstream
// CHANGELOG of at most size bytes whose Feature entries each promote
// their own gate, N counting up:
//
//   - Graduated FeatureGateN to GA. ([#N](…/pull/N), [@someone](…)) [SIG Node]
func SyntheticChangelog(size int) []byte {
	var sb strings.Builder
	sb.WriteString("# v1.99.0\n\n## Changelog since v1.98.0\n\n## Changes by Kind\n\n### Feature\n\n")
	for n := 1; ; n++ {
		line := fmt.Sprintf("- Graduated FeatureGate%d to GA. ([#%d](https://github.com/kubernetes/kubernetes/pull/%d), [@someone](https://github.com/someone)) [SIG Node]\n", n, n, n)
		if sb.Len()+len(line) > size {
			break
		}
		sb.WriteString(line)
	}
	return []byte(sb.String())
}
