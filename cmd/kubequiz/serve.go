package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"kubequiz/internal/metrics"
	"kubequiz/internal/store"
	"kubequiz/internal/web"
	"kubequiz/questions"
)

// shutdownGrace is how long in-flight requests may take after a stop signal.
const shutdownGrace = 10 * time.Second

func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, nil))
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// serve opens the database, listens, and serves until ctx is cancelled; then
// it stops accepting, lets in-flight requests finish and closes the database.
func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := serveConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := newLogger(cfg.LogFormat, stderr)

	// Listen first: a bad address or a port in use stops the server
	// before it creates or changes anything.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen: %w", err)
	}
	defer ln.Close() // on early returns; Serve closes it otherwise
	var (
		mln net.Listener
		m   *metrics.Metrics
	)
	dbOpts := store.Options{Sync: cfg.Sync}
	if cfg.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			return fmt.Errorf("cannot listen for metrics: %w", err)
		}
		defer mln.Close()
		m = metrics.New()
		dbOpts.OnBatch = m.ReviewBatch
	}

	db, err := store.OpenWith(ctx, cfg.DB, dbOpts)
	if err != nil {
		return err
	}
	defer func() {
		if err := db.Close(); err != nil {
			log.Error("close database", "err", err)
		}
	}()

	if err := loadBundledBank(ctx, db, log); err != nil {
		return err
	}

	handler, err := web.New(web.Config{SecureCookies: cfg.SecureCookies, TrustedProxies: cfg.TrustedProxies, Metrics: m}, db, log)
	if err != nil {
		return err
	}
	handler.StartMaintenance()
	defer handler.Close() // on early returns; Close may run twice
	if cfg.BackupDir != "" {
		if err := os.MkdirAll(cfg.BackupDir, 0o750); err != nil {
			return fmt.Errorf("backup folder: %w", err)
		}
		stopBackups := startBackups(ctx, backupSchedule{db: cfg.DB, dir: cfg.BackupDir, every: cfg.BackupEvery, keep: cfg.BackupKeep,
			log: log, now: time.Now, after: time.After})
		defer stopBackups() // before the database closes: deferred after its Close
	}

	srv := web.HTTPServer(handler, log)
	log.Info("serving", "addr", ln.Addr().String(), "db", cfg.DB)
	fmt.Fprintf(stdout, "kubequiz is listening on %s\n", listenURL(ln.Addr().String()))
	stopMetrics := serveMetrics(mln, m, stdout, log)
	defer stopMetrics(context.Background()) // on early returns; it may run twice
	if err := announceSetup(ctx, handler, ln.Addr().String(), stdout, log); err != nil {
		return err
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", shutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	stopMetrics(sctx)
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: requests still running after %s were cut off: %w", shutdownGrace, err)
	}
	handler.Close()
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("stopped")
	return nil
}

// serveMetrics serves m at metrics.Path on ln, its own listener, with the
// headers of every kubequiz response, and returns what stops it. Without
// a listener it serves nothing.
func serveMetrics(ln net.Listener, m *metrics.Metrics, stdout io.Writer, log *slog.Logger) (stop func(context.Context)) {
	if ln == nil {
		return func(context.Context) {}
	}
	srv := web.HTTPServer(web.SecurityHeaders(m.Handler(log)), log)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics stopped", "err", err)
		}
	}()
	addr := ln.Addr().String()
	log.Info("serving metrics", "addr", addr)
	where := "http://" + addr + metrics.Path
	if base, all, err := localBase(addr); err == nil {
		where = base + metrics.Path
		if all {
			where += " (all interfaces)"
		}
	}
	fmt.Fprintf(stdout, "metrics are served on %s\n", where)
	return func(ctx context.Context) {
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("metrics shutdown", "err", err)
		}
		<-done
	}
}

// listenURL is the address a browser on this machine opens for a listening
// address, saying when the server listens on all interfaces.
func listenURL(addr string) string {
	base, all, err := localBase(addr)
	if err != nil {
		return "http://" + addr + "/"
	}
	if all {
		return base + "/ (all interfaces)"
	}
	return base + "/"
}

// localBase is the base URL ("http://host:port") a browser on this machine
// opens for a listening address: an unspecified host (0.0.0.0 or ::, all
// interfaces) is localhost.
func localBase(addr string) (base string, allInterfaces bool, err error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", false, err
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host, allInterfaces = "localhost", true
	}
	return "http://" + net.JoinHostPort(host, port), allInterfaces, nil
}

// healthcheck asks a running server for /healthz. Container images use it as
// their HEALTHCHECK, so it needs no shell or curl.
func healthcheck(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	var addr string
	fs := newFlagSet("healthcheck", stderr)
	target := settingAddr
	target.help = "address of the server to check, as it listens"
	stringVar(fs, &addr, target, getenv)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageError{fmt.Sprintf("-addr %q: %v", addr, err)}
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	url := "http://" + net.JoinHostPort(host, port) + "/healthz"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	return nil
}

// loadBundledBank imports the embedded question bank into an empty database.
func loadBundledBank(ctx context.Context, db *store.DB, log *slog.Logger) error {
	empty, err := db.IsEmpty(ctx)
	if err != nil || !empty {
		return err
	}
	files, err := readFS(questions.FS())
	if err != nil {
		return fmt.Errorf("bundled question bank: %w", err)
	}
	var out strings.Builder
	if err := importFiles(ctx, db, files, store.ImportOptions{Actor: "bundled", Now: time.Now()}, &out, &out); err != nil {
		return fmt.Errorf("bundled question bank: %w: %s", err, out.String())
	}
	log.Info("loaded the bundled question bank", "files", len(files))
	return nil
}

// announceSetup shows the one-time first-admin setup link while no admin
// account exists. serve calls it once it listens on addr. The link carries
// a secret, so it goes to standard output, for the operator, and the log
// only says that it was printed.
func announceSetup(ctx context.Context, srv *web.Server, addr string, stdout io.Writer, log *slog.Logger) error {
	base, _, err := localBase(addr)
	if err != nil {
		return fmt.Errorf("setup link: %w", err)
	}
	link, ok, err := srv.SetupLink(ctx, base)
	if err != nil || !ok {
		return err
	}
	fmt.Fprintf(stdout, "No admin account yet. Open this one-time link within 24 hours to create one\n"+
		"(use the server's public address if you reach it through a proxy):\n  %s\n"+
		"or run: kubequiz user add -admin LOGIN (bin/kubequiz after make run), with the same -db\n", link)
	log.Warn("no admin account yet; a one-time setup link was printed on standard output", "valid_for", "24h")
	return nil
}
