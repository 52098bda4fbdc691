package account

import (
	_ "embed"
	"path"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/unicode/norm"
)

// CheckTimezone reads a time zone name; it returns the zone as stored and
// a Problem when it is refused. Only a zone's own name is taken, in its
// clean form: not the server's own zone under any name ("Local",
// "localtime"), nor files of a zoneinfo folder that are no zones of their
// own ("posixrules", posix/ and right/ copies), which may be missing where
// the server runs next. Case does not matter: "america/los_angeles" is
// America/Los_Angeles, stored in its own spelling. A zone must load with
// load (time.LoadLocation, which reads the zone data); one newer than the
// built-in list is taken when it does.
func CheckTimezone(s string, load func(name string) (*time.Location, error)) (string, error) {
	zone := strings.TrimSpace(norm.NFKC.String(s))
	if zone == "" || len(zone) > 64 || path.Clean(zone) != zone || strings.HasPrefix(zone, "/") {
		return zone, Problem{Code: TimezoneUnknown}
	}
	if own, ok := zoneSpelling()[strings.ToLower(zone)]; ok && knownZone(own, load) {
		return own, nil
	}
	if knownZone(zone, load) {
		return zone, nil // a zone newer than the list, from the machine's own data
	}
	return zone, Problem{Code: TimezoneUnknown}
}

// knownZone reports whether zone is a time zone's own name that loads.
func knownZone(zone string, load func(string) (*time.Location, error)) bool {
	switch {
	case zone == "Local", zone == "localtime", zone == "posixrules", zone == "Factory",
		strings.HasPrefix(zone, "posix/"), strings.HasPrefix(zone, "right/"):
		return false
	}
	_, err := load(zone)
	return err == nil
}

// timezoneNames lists the zones of the time zone data built into Go (and
// into the kubequiz binary, with time/tzdata), one a line;
// TestTimezoneNames keeps it in step with the Go it is built with.
//
//go:embed timezones.txt
var timezoneNames string

// zoneSpelling maps each zone name in lower case to its own spelling,
// built at the first time zone checked rather than at every start.
var zoneSpelling = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, z := range strings.Fields(timezoneNames) {
		m[strings.ToLower(z)] = z
	}
	return m
})
