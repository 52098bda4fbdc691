package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"

	"kubequiz/internal/quiz"
)

// uploadTTL is how long an upload waits for its admin to apply or cancel it.
const uploadTTL = 24 * time.Hour

// UploadedFile is one file of an upload.
type UploadedFile struct {
	Name string
	Data []byte
}

// SaveUpload keeps files an admin uploaded for preview and returns the
// upload's id. Uploads older than a day are dropped on the way.
func (db *DB) SaveUpload(ctx context.Context, userID int64, kind string, files []UploadedFile, now time.Time) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("store: upload id: %w", err)
	}
	id := hex.EncodeToString(b[:])
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM uploads WHERE created_at < ?`, ms(now.Add(-uploadTTL))); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO uploads (id, user_id, kind, created_at) VALUES (?, ?, ?, ?)`, id, userID, kind, ms(now)); err != nil {
			return err
		}
		for i, f := range files {
			if _, err := tx.ExecContext(ctx, `INSERT INTO upload_files (upload_id, position, name, data) VALUES (?, ?, ?, ?)`, id, i, f.Name, f.Data); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("store: save upload: %w", err)
	}
	return id, nil
}

// Upload returns the files of an upload of the given kind made by userID.
// Another user's upload, or an expired one, is not found.
func (db *DB) Upload(ctx context.Context, id string, userID int64, kind string, now time.Time) ([]UploadedFile, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT f.name, f.data FROM uploads u JOIN upload_files f ON f.upload_id = u.id
		WHERE u.id = ? AND u.user_id = ? AND u.kind = ? AND u.created_at >= ? ORDER BY f.position`,
		id, userID, kind, ms(now.Add(-uploadTTL)))
	if err != nil {
		return nil, fmt.Errorf("store: upload: %w", err)
	}
	defer rows.Close()
	var files []UploadedFile
	for rows.Next() {
		var f UploadedFile
		if err := rows.Scan(&f.Name, &f.Data); err != nil {
			return nil, fmt.Errorf("store: upload: %w", err)
		}
		files = append(files, f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: upload: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("store: upload %s: %w", id, quiz.ErrNotFound)
	}
	return files, nil
}

// takeUpload drops, within an apply's transaction, the upload id of userID
// of kind; one already gone (applied or cancelled by a request that came
// first) is quiz.ErrNotFound, so that a repeated submit applies once.
func takeUpload(ctx context.Context, tx *sql.Tx, id string, userID int64, kind string) error {
	return expectOne(tx.ExecContext(ctx, `DELETE FROM uploads WHERE id = ? AND user_id = ? AND kind = ?`, id, userID, kind))
}

// DeleteUpload drops an upload of userID's; deleting a missing one is not an error.
func (db *DB) DeleteUpload(ctx context.Context, id string, userID int64) error {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM uploads WHERE id = ? AND user_id = ?`, id, userID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete upload: %w", err)
	}
	return nil
}
