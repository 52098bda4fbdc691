package quiz

import (
	"fmt"
	"math"
)

// The desired retention a learner may choose: the probability of recall
// at which the scheduler makes a card due, and above which a card counts
// as mastered.
const (
	MinDesiredRetention     = 0.70
	MaxDesiredRetention     = 0.97
	DefaultDesiredRetention = 0.90
)

// SettingCode names one thing that can be wrong with a study setting.
type SettingCode int

// The problems the study settings' rules find.
const (
	// RetentionOutOfRange: a desired retention outside
	// MinDesiredRetention..MaxDesiredRetention (or not a number).
	RetentionOutOfRange SettingCode = iota + 1
)

// SettingProblem is a study setting refused, as an error. Its Error is the
// message shown to the learner. errors.Is matches problems by Code, and
// every problem is an ErrInvalid.
type SettingProblem struct {
	Code SettingCode
}

// Error is the problem in the words shown to the learner.
func (p SettingProblem) Error() string {
	switch p.Code {
	case RetentionOutOfRange:
		return fmt.Sprintf("目標正答率は %.2f から %.2f の間で指定してください。", MinDesiredRetention, MaxDesiredRetention)
	}
	return fmt.Sprintf("study setting problem %d", p.Code)
}

// Field names the input the problem is about, as the settings form names
// it.
func (p SettingProblem) Field() string {
	switch p.Code {
	case RetentionOutOfRange:
		return "desired_retention"
	}
	return ""
}

// Is reports whether target is ErrInvalid or a SettingProblem with the
// same Code.
func (p SettingProblem) Is(target error) bool {
	if target == ErrInvalid {
		return true
	}
	t, ok := target.(SettingProblem)
	return ok && t.Code == p.Code
}

// CheckDesiredRetention refuses a desired retention outside
// MinDesiredRetention..MaxDesiredRetention, bounds included, with a
// SettingProblem.
func CheckDesiredRetention(r float64) error {
	if math.IsNaN(r) || r < MinDesiredRetention || r > MaxDesiredRetention {
		return SettingProblem{Code: RetentionOutOfRange}
	}
	return nil
}
