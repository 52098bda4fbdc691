package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is `kubequiz serve` running as a child process on loopback, with
// its log in a file of its own.
type server struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	metrics string // http://127.0.0.1:PORT/metrics
	logPath string
	done    chan struct{} // closed when the process has exited
	waitErr error

	mu      sync.Mutex
	peakRSS int64 // bytes: the highest VmHWM read
	lastRSS int64 // bytes: the last VmRSS read
}

// startupTimeout bounds the wait for the server's first lines.
const startupTimeout = time.Minute

// Lines of serve's standard output that give its addresses.
var (
	listeningLine = regexp.MustCompile(`^kubequiz is listening on (http://\S+)`)
	metricsLine   = regexp.MustCompile(`^metrics are served on (http://\S+)`)
)

// startServer runs bin serve on the database db, on free loopback ports
// for the app and its metrics, with its log (standard error) in dir, and
// waits until it says where it listens. The child's environment has no
// KUBEQUIZ_* variable: its flags are all it is given.
func startServer(ctx context.Context, bin, db, dir string) (*server, error) {
	logPath := filepath.Join(dir, "server.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "-db", db, "-addr", "127.0.0.1:0", "-metrics-addr", "127.0.0.1:0")
	cmd.Env = childEnv(os.Environ())
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	s := &server{cmd: cmd, logPath: logPath, done: make(chan struct{})}
	lines := make(chan string)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go func() {
		<-read // Wait closes the pipe: only once all of it is read
		s.waitErr = cmd.Wait()
		logFile.Close()
		close(s.done)
	}()
	// The rest of its output is read and dropped, so that it never blocks.
	drain := func() {
		go func() {
			for range lines {
			}
		}()
	}
	timeout := time.NewTimer(startupTimeout)
	defer timeout.Stop()
	for s.base == "" || s.metrics == "" {
		select {
		case line, ok := <-lines:
			if !ok {
				<-s.done
				return nil, fmt.Errorf("the server stopped before it listened (%v); its log: %s", s.waitErr, tail(logPath))
			}
			if m := listeningLine.FindStringSubmatch(line); m != nil {
				s.base = strings.TrimRight(m[1], "/")
			}
			if m := metricsLine.FindStringSubmatch(line); m != nil {
				s.metrics = m[1]
			}
		case <-timeout.C:
			drain()
			s.kill()
			return nil, fmt.Errorf("the server did not say where it listens within %s; its log: %s", startupTimeout, tail(logPath))
		case <-ctx.Done():
			drain()
			s.kill()
			return nil, ctx.Err()
		}
	}
	drain()
	return s, nil
}

// childEnv is env without kubequiz's own variables.
func childEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "KUBEQUIZ_") {
			out = append(out, kv)
		}
	}
	return out
}

// pid is the server's process id.
func (s *server) pid() int { return s.cmd.Process.Pid }

// sampleMemory reads the server's VmHWM (its peak resident set) and VmRSS
// every interval until ctx ends or the server exits.
func (s *server) sampleMemory(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		s.readMemory()
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		case <-s.done:
			return
		}
	}
}

// readMemory reads the server's memory figures once.
func (s *server) readMemory() {
	hwm, rss, err := procMemory(fmt.Sprintf("/proc/%d/status", s.pid()))
	if err != nil {
		return // the process has just exited, or there is no /proc
	}
	s.mu.Lock()
	s.peakRSS = max(s.peakRSS, hwm)
	s.lastRSS = rss
	s.mu.Unlock()
}

// memory is the highest VmHWM and the last VmRSS read, in bytes.
func (s *server) memory() (peak, last int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peakRSS, s.lastRSS
}

// procMemory reads VmHWM and VmRSS, in bytes, from a /proc/PID/status file.
func procMemory(path string) (hwm, rss int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, ok := strings.Cut(line, ":")
		if !ok || (name != "VmHWM" && name != "VmRSS") {
			continue
		}
		f := strings.Fields(value)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("%s: %q", path, line)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %q", path, line)
		}
		if name == "VmHWM" {
			hwm = kb << 10
		} else {
			rss = kb << 10
		}
	}
	if hwm == 0 {
		return 0, 0, fmt.Errorf("%s: no VmHWM", path)
	}
	return hwm, rss, nil
}

// stopGrace is how long the server may take to stop after SIGTERM: its
// own grace for requests in flight, and some.
const stopGrace = 20 * time.Second

// stop asks the server to stop (SIGTERM, as a service manager does) and
// waits for it; it returns its exit error, if any.
func (s *server) stop() error {
	select {
	case <-s.done:
		return fmt.Errorf("the server had stopped before the end: %v", s.waitErr)
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-s.done:
		return s.waitErr
	case <-time.After(stopGrace):
		s.kill()
		return fmt.Errorf("the server did not stop within %s of SIGTERM: killed", stopGrace)
	}
}

// kill ends the server at once and waits for it.
func (s *server) kill() {
	s.cmd.Process.Kill()
	<-s.done
}

// scrape reads the server's metrics.
func (s *server) scrape(ctx context.Context, client *http.Client) (metricSet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.metrics, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics: status %d", resp.StatusCode)
	}
	return parseMetrics(resp.Body)
}

// logScan is what the server's log says about errors.
type logScan struct {
	Lines      int      `json:"lines"`
	Errors     int      `json:"error_lines"` // level=ERROR
	Busy       int      `json:"busy_lines"`  // SQLITE_BUSY, "database is locked" or "busy"
	BusySample []string `json:"busy_sample,omitempty"`
	ErrSample  []string `json:"error_sample,omitempty"`
}

// busyText finds SQLite's busy errors as the server would log them: the
// error's name, its message, or the word busy.
var busyText = regexp.MustCompile(`(?i)SQLITE_BUSY|database is locked|database table is locked|\bbusy\b`)

// scanLog reads a server log (slog's text or JSON lines).
func scanLog(r io.Reader) (logScan, error) {
	var s logScan
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		s.Lines++
		if strings.Contains(line, "level=ERROR") || strings.Contains(line, `"level":"ERROR"`) {
			s.Errors++
			if len(s.ErrSample) < 3 {
				s.ErrSample = append(s.ErrSample, clip(line, 300))
			}
		}
		if busyText.MatchString(line) {
			s.Busy++
			if len(s.BusySample) < 3 {
				s.BusySample = append(s.BusySample, clip(line, 300))
			}
		}
	}
	return s, sc.Err()
}

func scanLogFile(path string) (logScan, error) {
	f, err := os.Open(path)
	if err != nil {
		return logScan{}, err
	}
	defer f.Close()
	return scanLog(f)
}

// tail is the end of a file, for an error message.
func tail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return strings.TrimSpace(string(b[max(0, len(b)-2000):]))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// runBackup runs bin backup -db db dst, the real command, and returns its
// output line.
func runBackup(ctx context.Context, bin, db, dst string) (string, error) {
	cmd := exec.CommandContext(ctx, bin, "backup", "-db", db, dst)
	cmd.Env = childEnv(os.Environ())
	out, err := cmd.CombinedOutput()
	line := strings.TrimSpace(string(out))
	if err != nil {
		return line, fmt.Errorf("%s backup: %w: %s", bin, err, line)
	}
	return line, nil
}
