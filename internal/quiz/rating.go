package quiz

import "kubequiz/internal/fsrs"

// RatingLabel is the word a learner sees for rating r: on the grade
// buttons, in the messages about a grade and in the exports' rating_label
// column. It is "" for a value that is no rating.
//
// The words are Anki's own in its Japanese interface (もう一度, 難しい,
// 正解, 簡単), which learners who come from Anki already read as the four
// grades; the scheduler's English names are not shown. 正解 for Good also
// agrees with the verdict of a right answer, for which Good is the grade
// suggested.
func RatingLabel(r fsrs.Rating) string {
	switch r {
	case fsrs.Again:
		return "もう一度"
	case fsrs.Hard:
		return "難しい"
	case fsrs.Good:
		return "正解"
	case fsrs.Easy:
		return "簡単"
	}
	return ""
}
