package changelog

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseRelease reads "1.36", "v1.36", "1.36.0" or "v1.36.0-rc.1" and returns
// the major and minor numbers. ok is false for anything else.
func ParseRelease(s string) (major, minor int, ok bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "v"), "V")
	if i := strings.IndexByte(s, '-'); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, 0, false
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		if p == "" || len(p) > 4 {
			return 0, 0, false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return 0, 0, false
		}
		nums[i] = n
	}
	if nums[0] == 0 && nums[1] == 0 {
		return 0, 0, false
	}
	return nums[0], nums[1], true
}

// NormalizeRelease returns the "MAJOR.MINOR" form of s, or an error wrapping
// ErrInvalidOption.
func NormalizeRelease(s string) (string, error) {
	major, minor, ok := ParseRelease(s)
	if !ok {
		return "", fmt.Errorf("changelog: release %q: %w", s, ErrInvalidOption)
	}
	return formatRelease(major, minor), nil
}

func formatRelease(major, minor int) string {
	return strconv.Itoa(major) + "." + strconv.Itoa(minor)
}

// CompareReleases orders releases numerically, so that "1.9" < "1.10" <
// "1.36". It returns -1, 0 or +1. Strings that are not releases sort before
// every release and compare among themselves as strings.
func CompareReleases(a, b string) int {
	amaj, amin, aok := ParseRelease(a)
	bmaj, bmin, bok := ParseRelease(b)
	switch {
	case !aok && !bok:
		return strings.Compare(a, b)
	case !aok:
		return -1
	case !bok:
		return 1
	}
	if amaj != bmaj {
		return cmpInt(amaj, bmaj)
	}
	return cmpInt(amin, bmin)
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
