package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// TableChecksums returns a SHA-256 of every table's full content, keyed by
// table name. Two databases (or one, before and after an operation) with the
// same checksums hold the same data. It is meant for tests and checks of
// all-or-nothing operations; it reads every row.
func (db *DB) TableChecksums(ctx context.Context) (map[string]string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: list tables: %w", err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list tables: %w", err)
	}
	sums := make(map[string]string, len(tables))
	for _, t := range tables {
		sum, err := db.tableChecksum(ctx, t)
		if err != nil {
			return nil, err
		}
		sums[t] = sum
	}
	return sums, nil
}

// tableChecksum hashes one table. The name comes from sqlite_schema, never
// from input, and is quoted as an identifier.
func (db *DB) tableChecksum(ctx context.Context, table string) (string, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT * FROM "`+table+`" ORDER BY 1, 2`)
	if err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	h := sha256.New()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return "", fmt.Errorf("store: checksum %s: %w", table, err)
		}
		for _, v := range vals {
			fmt.Fprintf(h, "%T:%v\x1f", v, v)
		}
		h.Write([]byte{'\n'})
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("store: checksum %s: %w", table, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
