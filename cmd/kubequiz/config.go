package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"kubequiz/internal/store"
)

// Config is the server's configuration: flags, with environment variables as
// fallbacks and defaults below those.
type Config struct {
	Addr           string
	DB             string
	SecureCookies  bool
	LogFormat      string
	TrustedProxies []*net.IPNet
	Sync           store.Sync
	// BackupDir, when not empty, is the folder of scheduled backups, taken
	// every BackupEvery; the newest BackupKeep are kept.
	BackupDir   string
	BackupEvery time.Duration
	BackupKeep  int
	MetricsAddr string
}

// setting describes one configuration value for flags, environment and docs.
type setting struct {
	flag, env, def, help string
}

var (
	settingAddr      = setting{"addr", "KUBEQUIZ_ADDR", "127.0.0.1:8080", "address to listen on"}
	settingDB        = setting{"db", "KUBEQUIZ_DB", "./data/kubequiz.db", "SQLite database file (its folder is created)"}
	settingSecure    = setting{"secure-cookies", "KUBEQUIZ_SECURE_COOKIES", "false", "mark cookies Secure and send HSTS (behind a TLS proxy)"}
	settingLogFormat = setting{"log-format", "KUBEQUIZ_LOG_FORMAT", "text", "log format: text or json"}
	settingProxy     = setting{"trusted-proxy", "KUBEQUIZ_TRUSTED_PROXY", "", "CIDR[,CIDR]: reverse proxies whose X-Forwarded-For gives the client address"}
	settingMetrics   = setting{"metrics-addr", "KUBEQUIZ_METRICS_ADDR", "", "address to serve Prometheus metrics on, at /metrics (empty: none); never the -addr one"}
	settingSync      = setting{"sync", "KUBEQUIZ_SYNC", "normal", "when commits reach the disk: normal (at checkpoints; a power loss may drop the last reviews) or full (every commit waits for the disk)"}
)

// Scheduled backups (backup_schedule.go).
var (
	settingBackupDir   = setting{"backup-dir", "KUBEQUIZ_BACKUP_DIR", "", "folder for scheduled backups of the database, named kubequiz-YYYYMMDDTHHMMSSZ.db (none: no scheduled backups)"}
	settingBackupEvery = setting{"backup-every", "KUBEQUIZ_BACKUP_EVERY", "24h", "time between scheduled backups, at least 1m"}
	settingBackupKeep  = setting{"backup-keep", "KUBEQUIZ_BACKUP_KEEP", "7", "scheduled backups kept in -backup-dir, at least 1; older ones are removed"}
)

// minBackupEvery is the shortest time between scheduled backups. Each one
// copies the whole database and reads the copy back: more often than
// this, the server would spend much of its time copying.
const minBackupEvery = time.Minute

// newFlagSet returns a flag set that reports errors instead of exiting.
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// stringVar registers a string flag whose default comes from the environment.
func stringVar(fs *flag.FlagSet, p *string, s setting, getenv func(string) string) {
	def := s.def
	if v := getenv(s.env); v != "" {
		def = v
	}
	fs.StringVar(p, s.flag, def, fmt.Sprintf("%s (env %s)", s.help, s.env))
}

func boolVar(fs *flag.FlagSet, p *bool, s setting, getenv func(string) string) error {
	def := s.def == "true"
	if v := getenv(s.env); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s=%q: want true or false", s.env, v)
		}
		def = b
	}
	fs.BoolVar(p, s.flag, def, fmt.Sprintf("%s (env %s)", s.help, s.env))
	return nil
}

// durationVar registers a duration flag whose default comes from the
// environment.
func durationVar(fs *flag.FlagSet, p *time.Duration, s setting, getenv func(string) string) error {
	def, err := time.ParseDuration(s.def)
	if err != nil {
		return fmt.Errorf("-%s: default %q: %w", s.flag, s.def, err)
	}
	if v := getenv(s.env); v != "" {
		if def, err = time.ParseDuration(v); err != nil {
			return fmt.Errorf("%s=%q: want a duration such as 24h or 90m", s.env, v)
		}
	}
	fs.DurationVar(p, s.flag, def, fmt.Sprintf("%s (env %s)", s.help, s.env))
	return nil
}

// intVar registers an integer flag whose default comes from the
// environment.
func intVar(fs *flag.FlagSet, p *int, s setting, getenv func(string) string) error {
	def, err := strconv.Atoi(s.def)
	if err != nil {
		return fmt.Errorf("-%s: default %q: %w", s.flag, s.def, err)
	}
	if v := getenv(s.env); v != "" {
		if def, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("%s=%q: want a whole number", s.env, v)
		}
	}
	fs.IntVar(p, s.flag, def, fmt.Sprintf("%s (env %s)", s.help, s.env))
	return nil
}

// parseFlags parses args and turns flag errors into usage errors.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))}
	}
	return nil
}

func serveConfig(args []string, getenv func(string) string, stderr io.Writer) (Config, error) {
	var c Config
	var proxies, sync string
	fs := newFlagSet("serve", stderr)
	stringVar(fs, &c.Addr, settingAddr, getenv)
	stringVar(fs, &c.DB, settingDB, getenv)
	stringVar(fs, &c.LogFormat, settingLogFormat, getenv)
	stringVar(fs, &proxies, settingProxy, getenv)
	stringVar(fs, &sync, settingSync, getenv)
	stringVar(fs, &c.BackupDir, settingBackupDir, getenv)
	stringVar(fs, &c.MetricsAddr, settingMetrics, getenv)
	for _, err := range []error{
		boolVar(fs, &c.SecureCookies, settingSecure, getenv),
		durationVar(fs, &c.BackupEvery, settingBackupEvery, getenv),
		intVar(fs, &c.BackupKeep, settingBackupKeep, getenv),
	} {
		if err != nil {
			return c, usageError{err.Error()}
		}
	}
	if err := parseFlags(fs, args); err != nil {
		return c, err
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		return c, usageError{fmt.Sprintf("-log-format %q: want text or json", c.LogFormat)}
	}
	var err error
	if c.TrustedProxies, err = parseCIDRs(proxies); err != nil {
		return c, usageError{fmt.Sprintf("-trusted-proxy: %v", err)}
	}
	if c.Sync, err = store.ParseSync(sync); err != nil {
		return c, usageError{fmt.Sprintf("-sync: %v", err)}
	}
	if c.BackupEvery < minBackupEvery {
		return c, usageError{fmt.Sprintf("-backup-every %s: want at least %s (each backup copies the whole database and reads the copy back)", c.BackupEvery, minBackupEvery)}
	}
	if c.BackupKeep < 1 {
		return c, usageError{fmt.Sprintf("-backup-keep %d: want at least 1 (the backup just taken is one of those kept)", c.BackupKeep)}
	}
	if err := checkMetricsAddr(c.MetricsAddr, c.Addr); err != nil {
		return c, usageError{fmt.Sprintf("-metrics-addr: %v", err)}
	}
	return c, nil
}

// checkMetricsAddr refuses a metrics address that is not host:port, or
// that is the public address: the same port on the same host, or on all
// interfaces of either. (Port 0, any free port, is never the same.)
func checkMetricsAddr(metrics, public string) error {
	if metrics == "" {
		return nil
	}
	mh, mp, err := net.SplitHostPort(metrics)
	if err != nil {
		return fmt.Errorf("%q: %v", metrics, err)
	}
	ph, pp, err := net.SplitHostPort(public)
	if err != nil || mp != pp || mp == "0" {
		return nil // a bad -addr fails when the server listens on it
	}
	all := func(h string) bool { ip := net.ParseIP(h); return h == "" || ip != nil && ip.IsUnspecified() }
	if mh == ph || all(mh) || all(ph) {
		return fmt.Errorf("%q is the public address (-addr %q): metrics need an address of their own", metrics, public)
	}
	return nil
}

// parseCIDRs reads a comma-separated list of networks; a bare address
// stands for itself alone (/32 or /128). Empty is no network.
func parseCIDRs(list string) ([]*net.IPNet, error) {
	var out []*net.IPNet
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if !strings.Contains(item, "/") {
			ip := net.ParseIP(item)
			if ip == nil {
				return nil, fmt.Errorf("%q is neither an address nor a CIDR", item)
			}
			bits := 8 * net.IPv6len
			if ip4 := ip.To4(); ip4 != nil {
				ip, bits = ip4, 8*net.IPv4len
			}
			out = append(out, &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)})
			continue
		}
		_, n, err := net.ParseCIDR(item)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR", item)
		}
		out = append(out, n)
	}
	return out, nil
}
