package main

import (
	"fmt"
	"strconv"
	"time"

	"kubequiz/internal/loadclient"
	"kubequiz/internal/store"
)

// ack is a grade the server acknowledged to a learner.
type ack struct {
	login string
	loadclient.Grade
}

// backupResult is the backup taken during the soak and what its copy
// holds of the reviews the server acknowledged.
type backupResult struct {
	Taken        bool    `json:"taken"`
	AfterSeconds float64 `json:"after_seconds"` // from the soak's start to the backup's
	TookMS       float64 `json:"took_ms"`
	Output       string  `json:"output"` // kubequiz backup's line
	Error        string  `json:"error,omitempty"`
	Integrity    string  `json:"integrity"` // "ok", or what failed
	Schema       int     `json:"schema"`
	InCopy       int     `json:"reviews_in_copy"`
	copyMatch
}

// copyMatch is how the acknowledged reviews compare with a copy's.
type copyMatch struct {
	// AckedBefore are the reviews acknowledged as recorded before the
	// backup started; each must be in the copy.
	AckedBefore   int      `json:"acked_before"`
	Found         int      `json:"found"`
	Missing       int      `json:"missing"`
	MissingSample []string `json:"missing_sample,omitempty"`
	// AckedWhile were acknowledged while the backup ran: in the copy or
	// not, as they committed before its read began or after.
	AckedWhile      int `json:"acked_while"`
	AckedWhileFound int `json:"acked_while_found"`
	// SentAfter were sent after the backup had ended; none may be in the
	// copy.
	SentAfter      int `json:"sent_after"`
	SentAfterFound int `json:"sent_after_found"`
}

// ok reports whether the copy passed: integrity_check ok, and no
// acknowledged review missing or review from after it present.
func (b backupResult) ok() bool {
	return b.Taken && b.Error == "" && b.Integrity == "ok" && b.Missing == 0 && b.SentAfterFound == 0 && b.AckedBefore > 0
}

// matchAcks finds each grade acknowledged as recorded in the copy's
// review log rows. A review is identified by its learner, question and
// rating, and its time: the server dates a review when it handles the
// grade, between the request's sending and its answer's arrival. A
// learner studies one card at a time and a card comes back a minute
// later at the soonest, so one row at most fits each grade; each row is
// used once. started and ended bracket the backup command.
func matchAcks(acks []ack, rows []store.LoggedReview, started, ended time.Time) copyMatch {
	type row struct {
		at     int64
		rating string
		used   bool
	}
	byCard := map[string][]*row{}
	for _, r := range rows {
		k := r.Login + "\x00" + strconv.FormatInt(r.QuestionID, 10)
		byCard[k] = append(byCard[k], &row{at: r.At.UnixMilli(), rating: strconv.Itoa(int(r.Rating))})
	}
	var m copyMatch
	for _, a := range acks {
		if !a.Recorded {
			continue
		}
		found := false
		for _, r := range byCard[a.login+"\x00"+a.Question] {
			if !r.used && r.rating == a.Rating && r.at >= a.Sent.UnixMilli() && r.at <= a.Acked.UnixMilli() {
				r.used, found = true, true
				break
			}
		}
		switch {
		case a.Acked.Before(started):
			m.AckedBefore++
			if found {
				m.Found++
			} else {
				m.Missing++
				if len(m.MissingSample) < 5 {
					m.MissingSample = append(m.MissingSample, fmt.Sprintf("%s question %s rating %s acknowledged at %s",
						a.login, a.Question, a.Rating, a.Acked.Format(time.RFC3339Nano)))
				}
			}
		case a.Sent.After(ended):
			m.SentAfter++
			if found {
				m.SentAfterFound++
			}
		default:
			m.AckedWhile++
			if found {
				m.AckedWhileFound++
			}
		}
	}
	return m
}
