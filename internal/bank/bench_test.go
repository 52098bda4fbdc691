package bank

import (
	"fmt"
	"strings"
	"testing"

	"kubequiz/internal/quiz"
)

// genBank builds a valid file of n questions cycling through the seven
// types, written compactly so that 1,000 fit under MaxFileSize.
func genBank(n int) []byte {
	var b strings.Builder
	b.WriteString("deck:\n  slug: bench\n  title: Bench\n  release: 1.36\n  language: en\nquestions:\n")
	for i := range n {
		src := fmt.Sprintf("source: {release: 1.36, kind: feature, prs: [%d]}", 130000+i)
		fmt.Fprintf(&b, "  - {id: q%04d, ", i)
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, `type: single_choice, prompt: "Which release made gate %d GA?", choices: [1.34, 1.35, 1.36], answer: 1.36`, i)
		case 1:
			fmt.Fprintf(&b, `type: multi_choice, prompt: "Which of these are GA in %d?", choices: [A, B, C], answers: [A, C]`, i)
		case 2:
			fmt.Fprintf(&b, `type: true_false, prompt: "Gate %d is GA.", answer: true`, i)
		case 3:
			fmt.Fprintf(&b, `type: cloze, prompt: "{{Gate%d}} went GA in 1.36"`, i)
		case 4:
			fmt.Fprintf(&b, `type: typed, prompt: "Name gate %d.", answer: Gate%d, accept: [gate-%d]`, i, i, i)
		case 5:
			fmt.Fprintf(&b, `type: order, prompt: "Order the stages of gate %d.", items: [alpha, beta, GA]`, i)
		case 6:
			fmt.Fprintf(&b, `type: flashcard, prompt: "What is gate %d?", answer: A feature gate.`, i)
		}
		fmt.Fprintf(&b, ", explanation: Explained in the changelog., %s}\n", src)
	}
	return []byte(b.String())
}

func TestGenBank(t *testing.T) {
	data := genBank(1000)
	if len(data) > MaxFileSize {
		t.Fatalf("generated %d bytes, over MaxFileSize", len(data))
	}
	f, err := Decode("bench.yaml", data)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if got := len(f.Questions); got != 1000 {
		t.Fatalf("got %d questions, want 1000", got)
	}
	counts := map[quiz.Type]int{}
	for _, q := range f.Questions {
		counts[q.Type]++
	}
	if len(counts) != len(quiz.Types()) {
		t.Errorf("got types %v, want all seven", counts)
	}
	if got := f.Questions[0].Choices[2]; got != "1.36" {
		t.Errorf("Choices[2] = %q, want 1.36", got)
	}
	t.Logf("%d bytes", len(data))
}

func BenchmarkDecode(b *testing.B) {
	data := genBank(1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode("bench.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
