package quiz

// Rating is the grade a learner gives their recall of a card. Its values
// are the scheduler's (fsrs.Rating): 1 Again to 4 Easy.
type Rating int8

// The four ratings.
const (
	Again Rating = 1
	Hard  Rating = 2
	Good  Rating = 3
	Easy  Rating = 4
)

// Valid reports whether r is one of the four ratings.
func (r Rating) Valid() bool { return r >= Again && r <= Easy }

// ratingLabels are the ratings' names, by rating.
var ratingLabels = [...]string{Again: "もう一度", Hard: "難しい", Good: "正解", Easy: "簡単"}

// Label is the rating's name as learners read it, on the grade buttons and
// in exports: もう一度, 難しい, 正解 or 簡単; "" for an invalid rating.
func (r Rating) Label() string {
	if !r.Valid() {
		return ""
	}
	return ratingLabels[r]
}
