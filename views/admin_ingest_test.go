package views

import "testing"

func TestEditField(t *testing.T) {
	tests := []struct {
		typ, field        string
		wantLabel, wantIn string
	}{
		{"single_choice", "prompt", "問題文", "edit-prompt"},
		{"single_choice", "choices", "選択肢", "edit-choices"},
		{"single_choice", "choices[0]", "選択肢 (1 つ目)", "edit-choices"},
		{"multi_choice", "answers[11]", "正解 (12 つ目)", "edit-answers"},
		{"single_choice", "answer", "答え", "edit-answer"},
		{"typed", "accept[1]", "別解 (2 つ目)", "edit-accept"},
		{"true_false", "answer", "正誤", "edit-truth"},
		{"flashcard", "answer", "裏面 (答え)", "edit-answer"},
		{"order", "items[3]", "項目 (4 つ目)", "edit-items"},
		{"cloze", "explanation", "解説", "edit-explanation"},
		// No input on the form: the field as the validator names it.
		{"cloze", "answer", "answer", ""},
		{"single_choice", "id", "id", ""},
		{"single_choice", "source.prs[0]", "source.prs[0]", ""},
		{"single_choice", "choices[x]", "choices[x]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.field, func(t *testing.T) {
			label, in := editField(tt.typ, tt.field)
			if label != tt.wantLabel || in != tt.wantIn {
				t.Errorf("editField(%q, %q) = %q, %q; want %q, %q", tt.typ, tt.field, label, in, tt.wantLabel, tt.wantIn)
			}
		})
	}
}
