package bank

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuestionFiles decodes every questions/*.yaml file of the repository
// and checks the bank's own bar: at least 50 questions and five question
// types per file, and an explanation and a PR number on every question.
func TestQuestionFiles(t *testing.T) {
	dir := filepath.Join("..", "..", "questions")
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Skipf("no .yaml files in %s yet", dir)
	}
	const minQuestions, minTypes = 50, 5
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			f, err := Decode(name, data)
			if err != nil {
				t.Fatalf("Decode:\n%v", err)
			}
			if got := len(f.Questions); got < minQuestions {
				t.Errorf("got %d questions, want at least %d", got, minQuestions)
			}
			types := map[string]int{}
			for i, q := range f.Questions {
				types[string(q.Type)]++
				if strings.TrimSpace(q.Explanation) == "" {
					t.Errorf("%s:%d: question %q has no explanation", name, f.Lines[i], q.ExtID)
				}
				if len(q.Source.PRs) == 0 {
					t.Errorf("%s:%d: question %q has no PR number", name, f.Lines[i], q.ExtID)
				}
			}
			if len(types) < minTypes {
				t.Errorf("got %d question types %v, want at least %d", len(types), types, minTypes)
			}
			t.Logf("%d questions, types %v", len(f.Questions), types)
		})
	}
}
