package quiz

import (
	"errors"
	"math"
	"testing"
)

func TestCheckDesiredRetention(t *testing.T) {
	tests := []struct {
		r    float64
		want bool // accepted
	}{
		{0.70, true},
		{0.9, true},
		{DefaultDesiredRetention, true},
		{0.97, true},
		{0.6999, false},
		{0.9701, false},
		{0, false},
		{1, false},
		{-0.9, false},
		{math.NaN(), false},
		{math.Inf(1), false},
	}
	for _, tt := range tests {
		err := CheckDesiredRetention(tt.r)
		if (err == nil) != tt.want {
			t.Errorf("CheckDesiredRetention(%v) = %v, want accepted %v", tt.r, err, tt.want)
			continue
		}
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrInvalid) || !errors.Is(err, SettingProblem{Code: RetentionOutOfRange}) {
			t.Errorf("CheckDesiredRetention(%v) = %#v, want a RetentionOutOfRange problem that is ErrInvalid", tt.r, err)
		}
		var p SettingProblem
		if !errors.As(err, &p) || p.Field() != "desired_retention" ||
			p.Error() != "目標正答率は 0.70 から 0.97 の間で指定してください。" {
			t.Errorf("CheckDesiredRetention(%v): field %q, message %q", tt.r, p.Field(), p.Error())
		}
	}
}
