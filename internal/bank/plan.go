package bank

import (
	"strconv"
	"strings"

	"kubequiz/internal/quiz"
)

// Stored is what the database holds of one question of a deck, as far as
// planning an import needs it.
type Stored struct {
	ExtID       string
	ContentHash string
	Status      quiz.Status
}

// DeckPlan is what importing one file would do to its deck. Each list holds
// ext ids; Added, Updated and Unchanged are in file order, Retired in the
// order of the stored questions given to Plan.
type DeckPlan struct {
	Deck      quiz.Deck
	Added     []string // in the file, not stored
	Updated   []string // stored with another content hash, or retired and back in the file
	Unchanged []string // stored with the same content hash and not retired
	Retired   []string // stored, not retired, missing from the file, and prune was asked for
	// Revived lists the ids of Updated that were retired: the import
	// publishes them again.
	Revived []string
	// OldHash is the stored content hash of each id in Updated, so that the
	// caller can find the old text to show a Diff.
	OldHash map[string]string
}

// Changed reports whether applying the plan would change anything.
func (p DeckPlan) Changed() bool {
	return len(p.Added)+len(p.Updated)+len(p.Retired) > 0
}

// Plan computes what importing f would do to a deck that holds stored. A
// question keeps its ext id when its content changes, so it is updated,
// never deleted and added again. A stored question missing from the file is
// retired only when prune is true, and never deleted. f must be the result
// of a successful Decode, so its ids are unique.
func Plan(stored []Stored, f *File, prune bool) DeckPlan {
	plan := DeckPlan{Deck: f.Deck, OldHash: map[string]string{}}
	byID := make(map[string]Stored, len(stored))
	for _, s := range stored {
		if _, dup := byID[s.ExtID]; !dup {
			byID[s.ExtID] = s
		}
	}
	inFile := make(map[string]bool, len(f.Questions))
	for _, q := range f.Questions {
		inFile[q.ExtID] = true
		s, ok := byID[q.ExtID]
		switch {
		case !ok:
			plan.Added = append(plan.Added, q.ExtID)
		case s.Status == quiz.Retired:
			plan.Updated = append(plan.Updated, q.ExtID)
			plan.Revived = append(plan.Revived, q.ExtID)
			plan.OldHash[q.ExtID] = s.ContentHash
		case s.ContentHash != q.ContentHash():
			plan.Updated = append(plan.Updated, q.ExtID)
			plan.OldHash[q.ExtID] = s.ContentHash
		default:
			plan.Unchanged = append(plan.Unchanged, q.ExtID)
		}
	}
	if prune {
		seen := map[string]bool{}
		for _, s := range stored {
			if inFile[s.ExtID] || s.Status == quiz.Retired || seen[s.ExtID] {
				continue
			}
			seen[s.ExtID] = true
			plan.Retired = append(plan.Retired, s.ExtID)
		}
	}
	return plan
}

// FieldChange is one field that differs between two versions of a question,
// with both values as text. Field uses the names of the YAML format
// ("prompt", "choices", "source.prs").
type FieldChange struct {
	Field string
	Old   string
	New   string
}

// Diff lists the fields that differ between two versions of a question, in
// the order of the file format, for an admin to review an update. Lists are
// shown as ["a", "b"]; a true_false answer as true or false.
func Diff(old, new quiz.Question) []FieldChange {
	var changes []FieldChange
	add := func(field, o, n string) {
		if o != n {
			changes = append(changes, FieldChange{Field: field, Old: o, New: n})
		}
	}
	add("id", old.ExtID, new.ExtID)
	add("type", string(old.Type), string(new.Type))
	add("prompt", old.Prompt, new.Prompt)
	add("choices", listText(old.Choices), listText(new.Choices))
	add("answer", answerText(old), answerText(new))
	add("answers", listText(old.Answers), listText(new.Answers))
	add("accept", listText(old.Accept), listText(new.Accept))
	add("items", listText(old.Items), listText(new.Items))
	add("explanation", old.Explanation, new.Explanation)
	add("source.release", old.Source.Release, new.Source.Release)
	add("source.sig", old.Source.SIG, new.Source.SIG)
	add("source.kind", old.Source.Kind, new.Source.Kind)
	add("source.prs", intsText(old.Source.PRs), intsText(new.Source.PRs))
	add("source.url", old.Source.URL, new.Source.URL)
	add("tags", listText(old.Tags), listText(new.Tags))
	return changes
}

// answerText is the answer as written in the file: the boolean of a
// true_false question, else the answer text.
func answerText(q quiz.Question) string {
	if q.Truth != nil {
		return strconv.FormatBool(*q.Truth)
	}
	return q.Answer
}

// listText shows a list with each entry quoted, so that entries holding
// commas or spaces stay apart; an empty list is "".
func listText(list []string) string {
	if len(list) == 0 {
		return ""
	}
	quoted := make([]string, len(list))
	for i, s := range list {
		quoted[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

func intsText(list []int) string {
	if len(list) == 0 {
		return ""
	}
	texts := make([]string, len(list))
	for i, n := range list {
		texts[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(texts, ", ") + "]"
}
