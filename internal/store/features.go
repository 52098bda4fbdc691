package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"kubequiz/internal/changelog"
)

// maxFeatureNames bounds the names one FeaturesWithHistory call looks up.
const maxFeatureNames = 32

// featuresWithHistoryQuery reads the stages of the features whose keys
// are in ?1, a JSON array: a row a stage, the caller keeps each key once.
const featuresWithHistoryQuery = `SELECT feature_key, feature FROM feature_stages
	WHERE feature_key IN (SELECT value FROM json_each(?1))`

// HistoryVersion is the version of the stored feature history (migration
// 0019), read with a card (CardPreview.History): every change to the
// stored stages, whichever process makes it, moves it on. The zero value
// is no version.
type HistoryVersion int64

// featuresCacheMax bounds the name lists featuresCache keeps; a full cache
// is emptied.
const featuresCacheMax = 20000

// featuresCache keeps what FeaturesWithHistory found for a list of
// feature keys at one version of the history. Every answer's feedback
// asks (its links to feature pages), and the history changes only when a
// document is stored or deleted.
type featuresCache struct {
	mu sync.Mutex
	m  map[string]cachedFeatures // by the keys, joined with NUL
}

// cachedFeatures are the keys of a list that have a timeline, as read at
// a version of the history or a later one.
type cachedFeatures struct {
	version HistoryVersion
	found   []string
}

func (c *featuresCache) get(list string, v HistoryVersion) ([]string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[list]
	return e.found, ok && v != 0 && e.version == v
}

func (c *featuresCache) put(list string, v HistoryVersion, found []string) {
	if v == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= featuresCacheMax {
		c.m = make(map[string]cachedFeatures)
	}
	c.m[list] = cachedFeatures{v, found}
}

// FeaturesWithHistory returns those of names that a stored document gives
// a stage, matched as FeatureTimeline matches them (ignoring case and
// spaces): the names that have a timeline. They keep the order and the
// spelling given, each once; only the first maxFeatureNames names are
// looked up. asOf, the history's version read with the question the names
// are of, lets an answer found at that version be used again; with the
// zero version the history is read.
func (db *DB) FeaturesWithHistory(ctx context.Context, asOf HistoryVersion, names []string) ([]string, error) {
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
	joined := strings.Join(keys, "\x00")
	found, ok := db.features.get(joined, asOf)
	if !ok {
		var err error
		if found, err = db.featureKeysWithHistory(ctx, keys); err != nil {
			return nil, fmt.Errorf("store: features with history: %w", err)
		}
		// Read after asOf: what is kept is of asOf or a later version.
		db.features.put(joined, asOf, found)
	}
	out := make([]string, 0, len(found))
	for _, k := range found {
		out = append(out, named[k])
	}
	return out, nil
}

// featureKeysWithHistory returns those of keys that a stored document
// gives a stage, in their order.
func (db *DB) featureKeysWithHistory(ctx context.Context, keys []string) ([]string, error) {
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	// The feature is read too: a row an earlier migration keyed with
	// SQLite's lower(), which folds ASCII only, counts when its name has
	// the key FeatureTimeline looks for.
	rows, err := db.reads.QueryContext(ctx, featuresWithHistoryQuery, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := map[string]bool{}
	for rows.Next() {
		var key, feature string
		if err := rows.Scan(&key, &feature); err != nil {
			return nil, err
		}
		if changelog.FeatureKey(feature) == key {
			found[key] = true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var out []string
	for _, k := range keys {
		if found[k] {
			out = append(out, k)
		}
	}
	return out, nil
}
