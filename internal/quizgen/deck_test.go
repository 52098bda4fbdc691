package quizgen

import (
	"testing"

	"kubequiz/internal/changelog"
	"kubequiz/internal/quiz"
)

func TestDeck(t *testing.T) {
	tests := []struct {
		release, sig, lang string
		want               quiz.Deck
	}{
		{"1.36", "Node", "", quiz.Deck{Slug: "v1-36-sig-node", Title: "v1.36 SIG-Node", Release: "1.36", SIG: "SIG-Node", Language: "ja",
			Description: "Kubernetes 1.36 の SIG-Node の変更内容から生成した問題"}},
		{"1.36", "Cluster Lifecycle", "en", quiz.Deck{Slug: "v1-36-sig-cluster-lifecycle", Title: "v1.36 SIG-Cluster-Lifecycle", Release: "1.36",
			SIG: "SIG-Cluster-Lifecycle", Language: "en", Description: "Questions generated from the Kubernetes 1.36 SIG-Cluster-Lifecycle changes"}},
		{"1.21", "", "ja", quiz.Deck{Slug: "v1-21-changelog", Title: "v1.21 CHANGELOG", Release: "1.21", Language: "ja",
			Description: "Kubernetes 1.21 の CHANGELOG から生成した問題"}},
	}
	for _, tt := range tests {
		if got := Deck(&changelog.Document{Release: tt.release, SIG: tt.sig}, tt.lang); got != tt.want {
			t.Errorf("Deck(%s, %q, %q) = %+v, want %+v", tt.release, tt.sig, tt.lang, got, tt.want)
		}
	}
}
