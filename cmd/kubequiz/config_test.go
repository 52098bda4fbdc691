package main

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"kubequiz/internal/store"
)

func TestTrustedProxyConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     func(string) string
		want    []string // networks, as net.IPNet.String
		wantErr string
	}{
		{"default: none", []string{}, env(), nil, ""},
		{"flag", []string{"-trusted-proxy", "10.0.0.0/8, 2001:db8::/32"}, env(), []string{"10.0.0.0/8", "2001:db8::/32"}, ""},
		{"environment", []string{}, env("KUBEQUIZ_TRUSTED_PROXY", "192.0.2.10"), []string{"192.0.2.10/32"}, ""},
		{"flag over environment", []string{"-trusted-proxy", "::1"}, env("KUBEQUIZ_TRUSTED_PROXY", "10.0.0.0/8"), []string{"::1/128"}, ""},
		{"bad CIDR", []string{"-trusted-proxy", "10.0.0.0/33"}, env(), nil, "trusted-proxy"},
		{"not an address", []string{"-trusted-proxy", "proxy.local"}, env(), nil, "trusted-proxy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := serveConfig(tt.args, tt.env, io.Discard)
			if tt.wantErr != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a usage error about %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range c.TrustedProxies {
				got = append(got, n.String())
			}
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("trusted proxies = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestSyncConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     func(string) string
		want    store.Sync
		wantErr bool
	}{
		{"default", []string{}, env(), store.SyncNormal, false},
		{"flag", []string{"-sync", "full"}, env(), store.SyncFull, false},
		{"environment", []string{}, env("KUBEQUIZ_SYNC", "FULL"), store.SyncFull, false},
		{"flag over environment", []string{"-sync", "normal"}, env("KUBEQUIZ_SYNC", "full"), store.SyncNormal, false},
		{"off is refused", []string{"-sync", "off"}, env(), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := serveConfig(tt.args, tt.env, io.Discard)
			var ue usageError
			if tt.wantErr {
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-sync") {
					t.Fatalf("err = %v, want a usage error about -sync", err)
				}
				return
			}
			if err != nil || c.Sync != tt.want {
				t.Errorf("sync = %q (%v), want %q", c.Sync, err, tt.want)
			}
		})
	}
}

func TestBackupConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     func(string) string
		dir     string
		every   time.Duration
		keep    int
		wantErr string // a fragment of the usage error; "" for none
	}{
		{"default: off", []string{}, env(), "", 24 * time.Hour, 7, ""},
		{"flags", []string{"-backup-dir", "b", "-backup-every", "6h", "-backup-keep", "28"}, env(), "b", 6 * time.Hour, 28, ""},
		{"environment", []string{}, env("KUBEQUIZ_BACKUP_DIR", "/var/backups/kubequiz", "KUBEQUIZ_BACKUP_EVERY", "90m", "KUBEQUIZ_BACKUP_KEEP", "3"),
			"/var/backups/kubequiz", 90 * time.Minute, 3, ""},
		{"flags over environment", []string{"-backup-dir", "b", "-backup-every", "1m", "-backup-keep", "1"},
			env("KUBEQUIZ_BACKUP_DIR", "e", "KUBEQUIZ_BACKUP_EVERY", "2h", "KUBEQUIZ_BACKUP_KEEP", "9"), "b", time.Minute, 1, ""},
		{"every under a minute", []string{"-backup-every", "59s"}, env(), "", 0, 0, "-backup-every 59s: want at least 1m0s"},
		{"every under a minute from the environment", []string{}, env("KUBEQUIZ_BACKUP_EVERY", "10s"), "", 0, 0, "-backup-every 10s"},
		{"every not a duration", []string{"-backup-every", "daily"}, env(), "", 0, 0, "backup-every"},
		{"every not a duration in the environment", []string{}, env("KUBEQUIZ_BACKUP_EVERY", "24"), "", 0, 0, `KUBEQUIZ_BACKUP_EVERY="24"`},
		{"keep none", []string{"-backup-keep", "0"}, env(), "", 0, 0, "-backup-keep 0: want at least 1"},
		{"keep negative from the environment", []string{}, env("KUBEQUIZ_BACKUP_KEEP", "-1"), "", 0, 0, "-backup-keep -1"},
		{"keep not a number in the environment", []string{}, env("KUBEQUIZ_BACKUP_KEEP", "seven"), "", 0, 0, `KUBEQUIZ_BACKUP_KEEP="seven"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := serveConfig(tt.args, tt.env, io.Discard)
			if tt.wantErr != "" {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a usage error saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.BackupDir != tt.dir || c.BackupEvery != tt.every || c.BackupKeep != tt.keep {
				t.Errorf("backups = %q every %s keep %d, want %q every %s keep %d", c.BackupDir, c.BackupEvery, c.BackupKeep, tt.dir, tt.every, tt.keep)
			}
		})
	}
}

func TestMetricsAddrConfig(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		env     func(string) string
		want    string
		wantErr bool
	}{
		{"default: off", []string{}, env(), "", false},
		{"flag", []string{"-metrics-addr", "127.0.0.1:9090"}, env(), "127.0.0.1:9090", false},
		{"environment", []string{}, env("KUBEQUIZ_METRICS_ADDR", "127.0.0.1:9090"), "127.0.0.1:9090", false},
		{"flag over environment", []string{"-metrics-addr", "127.0.0.1:9091"}, env("KUBEQUIZ_METRICS_ADDR", "127.0.0.1:9090"), "127.0.0.1:9091", false},
		{"another port of the public host", []string{"-addr", "127.0.0.1:8080", "-metrics-addr", "127.0.0.1:9090"}, env(), "127.0.0.1:9090", false},
		{"the same port of another host", []string{"-addr", "127.0.0.1:8080", "-metrics-addr", "10.0.0.1:8080"}, env(), "10.0.0.1:8080", false},
		{"any free port twice", []string{"-addr", "127.0.0.1:0", "-metrics-addr", "127.0.0.1:0"}, env(), "127.0.0.1:0", false},
		{"the public address", []string{"-addr", "127.0.0.1:8080", "-metrics-addr", "127.0.0.1:8080"}, env(), "", true},
		{"the default public address", []string{}, env("KUBEQUIZ_METRICS_ADDR", "127.0.0.1:8080"), "", true},
		{"the public port on all interfaces", []string{"-addr", "127.0.0.1:8080", "-metrics-addr", ":8080"}, env(), "", true},
		{"the public port, public on all interfaces", []string{"-addr", "0.0.0.0:8080", "-metrics-addr", "127.0.0.1:8080"}, env(), "", true},
		{"not host:port", []string{"-metrics-addr", "9090"}, env(), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := serveConfig(tt.args, tt.env, io.Discard)
			if tt.wantErr {
				var ue usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), "-metrics-addr") {
					t.Fatalf("err = %v, want a usage error about -metrics-addr", err)
				}
				return
			}
			if err != nil || c.MetricsAddr != tt.want {
				t.Errorf("metrics address = %q (%v), want %q", c.MetricsAddr, err, tt.want)
			}
		})
	}
}
