package account

import (
	"strings"
	"testing"
)

func TestPasswordPolicy(t *testing.T) {
	tests := []struct {
		name, password, login string
		ok                    bool
	}{
		{"ten characters", "tqbfjotld9", "x", true},
		{"nine characters", "tqbfjotld", "x", false},
		{"ten Japanese characters", "かきくけこさしすせそ", "x", true},
		{"passphrase, lower case only", "correct horse battery staple", "x", true},
		{"64 characters", strings.Repeat("abcdefgh", 7) + "zyxwvuts", "x", true},
		{"256 characters", strings.Repeat("k8s.quiz", 32), "x", true},
		{"257 characters", strings.Repeat("k8s.quiz", 32) + "!", "x", false},
		{"common", "1234567890", "x", false},
		{"common upper case", "QWERTYUIOP", "x", false},
		{"common plus digits", "basketball99", "x", false},
		{"common short word plus digits", "password2024!", "x", false},
		{"login", "frederickson", "frederickson", false},
		{"login plus digits", "frederickson42", "frederickson", false},
		{"app name", "kubernetes2025", "x", false},
		{"run", "abcdefghijkl", "x", false},
		{"descending run", "9876543210", "x", false},
		{"repeat", "abababababab", "x", false},
		{"single repeated", "zzzzzzzzzzzz", "x", false},
		{"invalid utf-8", "abcdefghij\xff", "x", false},
		{"a common word said twice", "passwordpassword", "x", false},
		{"a common word said twice, in capitals", "DragonDragon", "x", false},
		{"the login said twice", "fredrickfredrick", "fredrick", false},
		{"a run said twice", "abcdefabcdef", "x", false},
		{"a passphrase said twice", "correct horse battery staple correct horse battery staple ", "x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPassword(tt.password, tt.login, "")
			if (err == nil) != tt.ok {
				t.Errorf("CheckPassword(%q) = %v, want ok %v", tt.password, err, tt.ok)
			}
		})
	}
}
