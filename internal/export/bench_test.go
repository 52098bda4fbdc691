//go:build linux

package export

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"kubequiz/internal/bank"
	"kubequiz/internal/quiz"
	"kubequiz/internal/store"
	"kubequiz/internal/testshared"
)

// BenchmarkExportReviews exports a learner's reviews, 10,000 and then
// 1,000,000 of them, from a database that also holds another learner's
// (a tenth as many), to io.Discard, and the sqlite3 shell exports the same
// rows with the same joins in CSV to /dev/null in the same run. It reports
// rows per second of wall time and of CPU time for each, their ratios
// (goal: kubequiz at least 0.67 of the shell), and the peak memory of
// each: kubequiz's Go heap in use and resident set (VmHWM, reset before
// the export), the shell's resident set. Memory should stay flat from
// 10,000 to 1,000,000 rows. On a machine that others share, the rates by
// CPU time are the ones to compare. (Linux only: it reads /proc.)
//
//	go test -run '^$' -bench BenchmarkExportReviews -benchtime 3x ./internal/export
func BenchmarkExportReviews(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		bd := newBenchDB(b, n)
		var ours, shell rates
		b.Run(fmt.Sprintf("rows=%d/kubequiz", n), func(b *testing.B) {
			ctx := context.Background()
			runtime.GC()
			rssReset := resetPeakRSS()
			peak := testshared.PeakHeap(10*time.Millisecond, testshared.HeapObjects, testshared.HeapUnused) // runtime.MemStats.HeapInuse
			cpu := cpuTime(b)
			rows := 0
			for b.Loop() {
				got, err := WriteReviews(io.Discard, bd.db.ExportReviews(ctx, bd.learner), Options{BOM: true})
				if err != nil {
					b.Fatal(err)
				}
				if got != n {
					b.Fatalf("exported %d reviews, want %d", got, n)
				}
				rows += got
			}
			ours = rates{float64(rows) / b.Elapsed().Seconds(), float64(rows) / (cpuTime(b) - cpu).Seconds()}
			heap := peak()
			ours.report(b)
			b.ReportMetric(float64(heap)/(1<<20), "peak-heap-MB")
			if rss, ok := peakRSS(os.Getpid()); ok && rssReset {
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MB")
			}
		})
		b.Run(fmt.Sprintf("rows=%d/sqlite3", n), func(b *testing.B) {
			shellPath, err := exec.LookPath("sqlite3")
			if err != nil {
				b.Skip("no sqlite3 shell to compare with (apt-get install sqlite3)")
			}
			query := fmt.Sprintf(`SELECT r.reviewed_at, d.slug, q.ext_id, q.prompt, q.type, r.rating, r.correct, r.answer,
				r.duration_ms, r.due_before, r.due_after, r.state_before
				FROM review_log r JOIN questions q ON q.id = r.question_id JOIN decks d ON d.id = q.deck_id
				WHERE r.user_id = %d ORDER BY r.reviewed_at, r.state_before, r.id`, bd.learner)
			var (
				cpu    time.Duration
				maxRSS int64
			)
			for b.Loop() {
				cmd := exec.Command(shellPath, "-csv", "-header", bd.path, query) // output to /dev/null
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				rss := sampleRSS(cmd.Process.Pid)
				err := cmd.Wait()
				maxRSS = max(maxRSS, rss())
				if err != nil {
					b.Fatalf("sqlite3: %v\n%s", err, stderr.String())
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			rows := float64(n) * float64(b.N)
			shell = rates{rows / b.Elapsed().Seconds(), rows / cpu.Seconds()}
			shell.report(b)
			if maxRSS > 0 {
				b.ReportMetric(float64(maxRSS)/(1<<20), "peak-RSS-MB")
			}
		})
		if ours.wall > 0 && shell.wall > 0 {
			fmt.Printf("rows=%d: kubequiz/sqlite3 %.2f by wall time, %.2f by CPU time (goal 0.67)\n",
				n, ours.wall/shell.wall, ours.cpu/shell.cpu)
		}
	}
}

// rates are rows per second of wall time and of CPU time (every thread's,
// user and system).
type rates struct{ wall, cpu float64 }

func (r rates) report(b *testing.B) {
	b.ReportMetric(r.wall, "rows/s")
	b.ReportMetric(r.cpu, "rows/CPU-s")
	b.ReportMetric(0, "ns/op") // rows/s says it
}

// cpuTime is the CPU time the process has used.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatalf("CPU time: %v", err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// benchDeck has a question of each type but flashcard, whose answer the
// export leaves empty.
const benchDeck = `deck:
  slug: v1-36-sig-node
  title: "v1.36 SIG-Node"
  release: "1.36"
  sig: SIG-Node
  language: ja
questions:
  - id: imagevolume-ga
    type: single_choice
    prompt: ImageVolume が GA (stable) になったのはどのリリース?
    choices: ["1.34", "1.35", "1.36", "1.37"]
    answer: "1.36"
    explanation: OCI イメージをボリュームとしてマウントする機能。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
  - id: ga-in-1-36
    type: multi_choice
    prompt: 1.36 で GA になった機能をすべて選べ
    choices: [ImageVolume, KubeletPSI, MemoryQoS, PLEGOnDemandRelist]
    answers: [ImageVolume, KubeletPSI]
    explanation: ImageVolume と KubeletPSI が GA。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
  - id: memoryqos-ga-false
    type: true_false
    prompt: MemoryQoS は 1.36 で GA になった。
    answer: false
    explanation: MemoryQoS は 1.36 でも GA ではない。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [137584]}
  - id: imagevolume-cloze
    type: cloze
    prompt: "{{ImageVolume|image volume}} フィーチャーゲートが 1.36 で GA になった"
    explanation: ImageVolume は 1.36 で GA。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
  - id: reservation-policy-typed
    type: typed
    prompt: Guaranteed Pod に memory.min を設定させる MemoryReservationPolicy の値は?
    answer: TieredReservation
    explanation: TieredReservation を指定すると memory.min が設定される。
    source: {release: "1.36", sig: SIG-Node, kind: api-change, prs: [137584]}
  - id: imagevolume-timeline
    type: order
    prompt: ImageVolume の段階を古い順に並べよ
    items: ["alpha (1.31)", "beta (1.33)", "デフォルト有効 (1.35)", "GA (1.36)"]
    explanation: 1.31 で alpha、1.33 で beta、1.35 でデフォルト有効、1.36 で GA。
    source: {release: "1.36", sig: SIG-Node, kind: feature, prs: [136711]}
`

// benchAnswers are answers to benchDeck's questions, by id.
func benchAnswers() map[string]quiz.Response {
	no := false
	return map[string]quiz.Response{
		"imagevolume-ga":           {Choice: 2},
		"ga-in-1-36":               {Choice: -1, Selected: []int{0, 2}},
		"memoryqos-ga-false":       {Choice: -1, Bool: &no},
		"imagevolume-cloze":        {Choice: -1, Texts: []string{"イメージボリューム"}},
		"reservation-policy-typed": {Choice: -1, Texts: []string{"=TieredReservation"}},
		"imagevolume-timeline":     {Choice: -1, Order: []int{0, 2, 1, 3}},
	}
}

type benchDB struct {
	db      *store.DB
	path    string
	learner int64
}

// newBenchDB builds a database where the learner has n reviews, 30
// seconds apart, and another learner n/10 between them; it is closed (its
// write-ahead log checkpointed) and opened again before the runs.
func newBenchDB(b *testing.B, n int) benchDB {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "bench.db")
	db, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	f, err := bank.Decode("bench.yaml", []byte(benchDeck))
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := db.ImportBank(ctx, []bank.Decoded{{SHA256: "bench", File: f}}, store.ImportOptions{Actor: "bench", Now: start}); err != nil {
		b.Fatal(err)
	}
	qs, err := db.DeckQuestions(ctx, "v1-36-sig-node", true)
	if err != nil {
		b.Fatal(err)
	}
	var ids []int64
	var answers []quiz.Response
	for _, q := range qs {
		ids = append(ids, q.ID)
		answers = append(answers, benchAnswers()[q.Question.ExtID])
	}
	var users [2]int64
	for i, login := range []string{"learner", "other"} {
		u, err := db.CreateUser(ctx, store.NewUser{Login: login, PasswordHash: "x", Role: quiz.RoleMember}, start)
		if err != nil {
			b.Fatal(err)
		}
		users[i] = u.ID
	}
	if err := db.BulkReviews(ctx, users[0], ids, answers, n, start, 30*time.Second); err != nil {
		b.Fatal(err)
	}
	if err := db.BulkReviews(ctx, users[1], ids, answers, n/10, start.Add(15*time.Second), 300*time.Second); err != nil {
		b.Fatal(err)
	}
	if err := db.Close(); err != nil {
		b.Fatal(err)
	}
	if db, err = store.Open(ctx, path); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return benchDB{db: db, path: path, learner: users[0]}
}

// sampleRSS samples the peak resident set size of the running process pid
// every 2 ms until the returned function is called, once the process has
// ended, which returns the last sample. (A child's rusage cannot tell it:
// started from this process, it inherits this one's peak.)
func sampleRSS(pid int) func() int64 {
	var last atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			if rss, ok := peakRSS(pid); ok {
				last.Store(rss)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		<-done
		return last.Load()
	}
}

// resetPeakRSS resets the process's peak resident set size, and reports
// whether it could (Linux can).
func resetPeakRSS() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSS returns the peak resident set size of process pid (since
// resetPeakRSS, for this one), when the system tells it.
func peakRSS(pid int) (int64, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
