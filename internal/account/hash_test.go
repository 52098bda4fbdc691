package account

import (
	"regexp"
	"strings"
	"testing"
)

// cheapHashes keeps argon2id fast in tests; production costs are checked
// in TestHash.
var cheapHashes = HashParams{Memory: 64, Time: 1, Threads: 1}

func TestHash(t *testing.T) {
	d := DefaultHashParams()
	if d.Memory != 19*1024 || d.Time != 2 || d.Threads != 1 {
		t.Errorf("default argon2id costs %+v, want OWASP's m=19456 t=2 p=1", d)
	}
	h := cheapHashes
	enc, err := h.Hash("pässwörd with spaces ")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\$argon2id\$v=19\$m=64,t=1,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$`).MatchString(enc) {
		t.Fatalf("hash %q is not a PHC argon2id string", enc)
	}
	if again, _ := h.Hash("pässwörd with spaces "); again == enc {
		t.Error("two hashes of one password are equal: no salt")
	}
	tests := []struct {
		name       string
		params     HashParams
		encoded    string
		password   string
		ok, rehash bool
		wantErr    bool
	}{
		{"right", h, enc, "pässwörd with spaces ", true, false, false},
		{"wrong", h, enc, "pässwörd with spaces", false, false, false},
		{"costlier params ask to rehash", HashParams{Memory: 128, Time: 1, Threads: 1}, enc, "pässwörd with spaces ", true, true, false},
		{"not phc", h, "plain", "x", false, false, true},
		{"bcrypt", h, "$2a$10$abcdefghijklmnopqrstuv", "x", false, false, true},
		{"huge memory", h, strings.Replace(enc, "m=64", "m=99999999", 1), "x", false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, rehash, err := tt.params.Verify(tt.encoded, tt.password)
			if (err != nil) != tt.wantErr || ok != tt.ok || rehash != tt.rehash {
				t.Errorf("Verify = %v, %v, %v; want ok %v rehash %v err %v", ok, rehash, err, tt.ok, tt.rehash, tt.wantErr)
			}
		})
	}
}

// BenchmarkHashDefault measures one argon2id hash at the production costs
// (go test -run XXX -bench HashDefault ./internal/account).
func BenchmarkHashDefault(b *testing.B) {
	h := DefaultHashParams()
	for b.Loop() {
		if _, err := h.Hash("correct horse battery staple"); err != nil {
			b.Fatal(err)
		}
	}
}
