package main

import (
	"errors"
	"io"
	"strings"
	"testing"

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
