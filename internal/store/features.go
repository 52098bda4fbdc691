package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"kubequiz/internal/changelog"
)

// maxFeatureNames bounds the names one FeaturesWithHistory call looks up.
const maxFeatureNames = 32

// FeaturesWithHistory returns those of names that a stored document gives
// a stage, matched as FeatureTimeline matches them (ignoring case and
// spaces): the names that have a timeline. They keep the order and the
// spelling given, each once; only the first maxFeatureNames names are
// looked up.
func (db *DB) FeaturesWithHistory(ctx context.Context, names []string) ([]string, error) {
	var (
		keys  []string
		named = map[string]string{} // key to the first name given
	)
	for _, n := range names {
		n = strings.TrimSpace(n)
		k := changelog.FeatureKey(n)
		if k == "" || named[k] != "" {
			continue
		}
		if len(keys) == maxFeatureNames {
			break
		}
		named[k] = n
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("store: features with history: %w", err)
	}
	// The feature is read too: a row an earlier migration keyed with
	// SQLite's lower(), which folds ASCII only, counts when its name has
	// the key FeatureTimeline looks for.
	rows, err := db.read.QueryContext(ctx, `SELECT DISTINCT feature_key, feature FROM feature_stages
		WHERE feature_key IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("store: features with history: %w", err)
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var key, feature string
		if err := rows.Scan(&key, &feature); err != nil {
			return nil, fmt.Errorf("store: features with history: %w", err)
		}
		if changelog.FeatureKey(feature) == key {
			found[key] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: features with history: %w", err)
	}
	var out []string
	for _, k := range keys {
		if found[k] {
			out = append(out, named[k])
		}
	}
	return out, nil
}
