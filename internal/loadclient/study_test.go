package loadclient

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStudyOnceReportsGrades runs reviews against a stand-in of the study
// routes and checks what OnGraded and OnResponse are told: the grade
// form's question and presentation, the rating sent, the times around the
// request, and whether the answer said the review was recorded.
func TestStudyOnceReportsGrades(t *testing.T) {
	tests := []struct {
		name     string
		graded   string // the grade's answer
		recorded bool
		wantErr  error
	}{
		{"recorded, next card", `<section id="study"><p>Good で記録しました。次の復習は 10分後です。</p>` + questionPage + `</section>`, true, nil},
		{"stale, next card", `<section id="study"><p>このカードは、この画面を表示した後に評価済みです。</p>` + questionPage + `</section>`, false, nil},
		{"recorded, queue empty", `<section id="study"><p>Again で記録しました。</p></section>`, true, ErrQueueEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var (
				mu    sync.Mutex
				posts []string
			)
			mux := http.NewServeMux()
			mux.HandleFunc("GET /study", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, questionPage) })
			mux.HandleFunc("POST /study/answer", func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("HX-Request") != "true" {
					http.Error(w, "not htmx", http.StatusBadRequest)
					return
				}
				io.WriteString(w, gradePage)
			})
			mux.HandleFunc("POST /study/grade", func(w http.ResponseWriter, r *http.Request) {
				if err := r.ParseForm(); err != nil || r.Header.Get("X-CSRF-Token") != "tok" {
					http.Error(w, "bad form", http.StatusBadRequest)
					return
				}
				mu.Lock()
				posts = append(posts, r.PostForm.Get("rating"))
				mu.Unlock()
				io.WriteString(w, tt.graded)
			})
			srv := httptest.NewServer(mux)
			defer srv.Close()

			b := New(srv.URL, "learner", "", srv.Client().Transport, 1)
			var (
				grades    []Grade
				responses []string
			)
			b.OnGraded = func(g Grade) { grades = append(grades, g) }
			b.OnResponse = func(method, path string, status int, took time.Duration) {
				if took <= 0 {
					t.Errorf("%s %s took %s", method, path, took)
				}
				responses = append(responses, method+" "+path+" "+http.StatusText(status))
			}
			rec := NewRecorder()
			before := time.Now()
			if err := b.StudyOnce(context.Background(), rec); err != tt.wantErr {
				t.Fatalf("StudyOnce = %v; want %v", err, tt.wantErr)
			}
			if len(grades) != 1 {
				t.Fatalf("OnGraded told of %d grades; want 1", len(grades))
			}
			g := grades[0]
			if g.Question != "12" || g.Presentation != "0123456789abcdef0123456789abcdef" || g.Rating != posts[0] || g.Recorded != tt.recorded {
				t.Errorf("grade %+v; want question 12, the form's presentation, rating %s, recorded %v", g, posts[0], tt.recorded)
			}
			if g.Sent.Before(before) || g.Acked.Before(g.Sent) || g.Acked.After(time.Now()) {
				t.Errorf("sent %s, acked %s: want both within the call, in order", g.Sent, g.Acked)
			}
			want := []string{"GET /study OK", "POST /study/answer OK", "POST /study/grade OK"}
			if strings.Join(responses, ",") != strings.Join(want, ",") {
				t.Errorf("OnResponse told of %q; want %q", responses, want)
			}
			if b.Graded() != 1 || len(rec.Latencies(OpAnswer)) != 1 || len(rec.Latencies(OpGrade)) != 1 {
				t.Errorf("graded %d, latencies %v; want one review", b.Graded(), rec.lat)
			}
		})
	}
}

// TestThinkBeforeEachRequest checks that Think is asked before each
// request of a review, the page's only when the page is loaded.
func TestThinkBeforeEachRequest(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /study", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, questionPage) })
	mux.HandleFunc("POST /study/answer", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, gradePage) })
	mux.HandleFunc("POST /study/grade", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<section id="study">`+questionPage+`</section>`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b := New(srv.URL, "learner", "", srv.Client().Transport, 1)
	var asked []string
	b.Think = func(_ *rand.Rand, op string) time.Duration { asked = append(asked, op); return time.Millisecond }
	for range 2 {
		if err := b.StudyOnce(context.Background(), NewRecorder()); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{OpPage, OpAnswer, OpGrade, OpAnswer, OpGrade}
	if strings.Join(asked, ",") != strings.Join(want, ",") {
		t.Errorf("Think asked before %q; want %q", asked, want)
	}
}

// TestSendFiles checks the multipart form of an upload: its fields and
// its files under one name.
func TestSendFiles(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var names []string
		for _, fh := range r.MultipartForm.File["files"] {
			f, err := fh.Open()
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			data, _ := io.ReadAll(f)
			f.Close()
			names = append(names, fh.Filename+"="+string(data))
		}
		io.WriteString(w, r.FormValue("_csrf")+" "+strings.Join(names, ","))
	}))
	defer srv.Close()
	b := New(srv.URL, "admin", "", srv.Client().Transport, 1)
	code, err := b.SendFiles(context.Background(), "/admin/import", map[string][]string{"_csrf": {"tok"}}, "files",
		[]File{{Name: "a.yaml", Data: []byte("deck: a")}, {Name: "b.yaml", Data: []byte("deck: b")}})
	if err != nil || code != http.StatusOK {
		t.Fatalf("SendFiles = %d, %v", code, err)
	}
	if got, want := string(b.Body()), "tok a.yaml=deck: a,b.yaml=deck: b"; got != want {
		t.Errorf("the server read %q; want %q", got, want)
	}
}

func TestSummarise(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100 down to 1
	}
	tests := []struct {
		name          string
		lat           []time.Duration
		p50, p99, max float64
	}{
		{"none", nil, 0, 0, 0},
		{"one", ms(7), 7, 7, 7},
		{"unsorted", ms(5, 1, 3), 3, 5, 5},
		{"a hundred", ms(hundred...), 50, 99, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Summarise("op", tt.lat, 2*time.Second)
			if s.Count != len(tt.lat) || s.PerSec != float64(len(tt.lat))/2 || s.P50MS != tt.p50 || s.P99MS != tt.p99 || s.MaxMS != tt.max {
				t.Errorf("Summarise = %+v; want count %d, p50 %v, p99 %v, max %v", s, len(tt.lat), tt.p50, tt.p99, tt.max)
			}
		})
	}
}

// TestStop checks that a closed Stop ends a pause at once and that no
// request is sent after it.
func TestStop(t *testing.T) {
	var requests []string
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.Method+" "+r.URL.Path)
		switch r.URL.Path {
		case "/study":
			io.WriteString(w, questionPage)
		case "/study/answer":
			io.WriteString(w, gradePage)
		}
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	stop := make(chan struct{})
	b := New(srv.URL, "learner", "", srv.Client().Transport, 1)
	b.Stop = stop
	b.Think = func(_ *rand.Rand, op string) time.Duration {
		if op == OpGrade {
			close(stop) // the learner is told to stop while it reads the feedback
			return time.Hour
		}
		return 0
	}
	start := time.Now()
	if err := b.StudyOnce(context.Background(), NewRecorder()); err != ErrStopped {
		t.Fatalf("StudyOnce = %v; want ErrStopped", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("the pause went on for %s after Stop", time.Since(start))
	}
	if want := "GET /study,POST /study/answer"; strings.Join(requests, ",") != want {
		t.Errorf("requests %q; want %q (no grade after Stop)", requests, want)
	}
	if err := b.StudyOnce(context.Background(), NewRecorder()); err != ErrStopped || len(requests) != 2 {
		t.Errorf("StudyOnce after Stop = %v with %d requests; want ErrStopped and none sent", err, len(requests))
	}
}
