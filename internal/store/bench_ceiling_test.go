package store

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestWriteProbe(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		sync Sync
		want string // PRAGMA synchronous
	}{
		{SyncFull, "2"},
		{SyncNormal, "1"},
	} {
		t.Run(string(tc.sync), func(t *testing.T) {
			p, err := OpenWriteProbe(ctx, filepath.Join(t.TempDir(), "probe.db"), tc.sync)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			var observed int
			n, err := p.Run(ctx, time.Now().Add(time.Minute), 50, func(time.Duration) { observed++ })
			if err != nil {
				t.Fatal(err)
			}
			if n != 50 || observed != 50 {
				t.Errorf("Run = %d transactions, %d observed; want 50 (the limit) and 50", n, observed)
			}
			var rows int
			if err := p.db.QueryRowContext(ctx, `SELECT count(*) FROM probe`).Scan(&rows); err != nil || rows != 50 {
				t.Errorf("probe table has %d rows (%v), want 50", rows, err)
			}
			for pragma, want := range map[string]string{"journal_mode": "wal", "synchronous": tc.want} {
				var got string
				if err := p.db.QueryRowContext(ctx, `PRAGMA `+pragma).Scan(&got); err != nil || got != want {
					t.Errorf("%s = %q (%v), want %q", pragma, got, err, want)
				}
			}
			if n, err := p.Run(ctx, time.Now(), 50, nil); err != nil || n != 0 {
				t.Errorf("Run past its end = %d, %v; want 0, nil", n, err)
			}
		})
	}
	if _, err := OpenWriteProbe(ctx, filepath.Join(t.TempDir(), "probe.db"), "OFF"); err == nil {
		t.Error("OpenWriteProbe with synchronous OFF: no error")
	}
}
