package loadclient

import (
	"slices"
	"testing"
)

// gradePage is a grade form as views.StudyAnswered renders it.
const gradePage = `<section id="study"><article class="feedback right">…</article>
<form method="post" action="/study/grade" hx-post="/study/grade" hx-target="#study" hx-swap="outerHTML show:window:top" class="study-grade">
<input type="hidden" name="_csrf" value="tok"><input type="hidden" name="q" value="12"><input type="hidden" name="p" value="0123456789abcdef0123456789abcdef">
<input type="hidden" name="d" value=""><input type="hidden" name="t" value="1700000000000">
<input type="hidden" name="answer" value="{&#34;choice&#34;:2}"><input type="hidden" name="ms" value="900">
<fieldset><div class="grades">
<button type="submit" name="rating" value="1" class="outline">Again <small>1分</small></button>
<button type="submit" name="rating" value="3" data-preselected aria-describedby="grade-hint" autofocus>Good <small>10分</small></button>
</div></fieldset></form></section>`

// questionPage has an answer form with each kind of control.
const questionPage = `<form method="post" action="/logout"><input type="hidden" name="_csrf" value="tok"></form>
<form method="post" action="/study/answer" hx-post="/study/answer" class="study-answer">
<input type="hidden" name="q" value="7"><input type="hidden" name="revealed" value="1"/>
<label><input type="radio" name="choice" value="2" autofocus> a &lt;b&gt;</label><label><input type="radio" name="choice" value="0"> c</label>
<input type="checkbox" name="sel" value="1"><input type="text" name="gap" autocomplete="off"><input type="text" name="gap">
<select name="pos-0"><option value="1">1</option><option value="2" selected>2</option></select>
<button type="submit">回答する</button></form>`

func TestParseForms(t *testing.T) {
	g := ParseForms([]byte(gradePage), markGradeForm)
	if len(g) != 1 {
		t.Fatalf("grade forms: %d, want 1", len(g))
	}
	f := g[0]
	if f.Action != "/study/grade" || f.Hidden.Get("answer") != `{"choice":2}` || f.Hidden.Get("p") != "0123456789abcdef0123456789abcdef" ||
		f.Hidden.Get("_csrf") != "tok" || f.Hidden.Get("ms") != "900" {
		t.Errorf("grade form %+v", f)
	}
	if len(f.Buttons) != 2 || f.Buttons[1] != (Button{Name: "rating", Value: "3", Pressed: true}) || f.Buttons[0].Pressed {
		t.Errorf("buttons %+v", f.Buttons)
	}

	q := ParseForms([]byte(questionPage), markAnswerForm)
	if len(q) != 1 {
		t.Fatalf("answer forms: %d, want 1", len(q))
	}
	f = q[0]
	if f.Hidden.Get("q") != "7" || f.Hidden.Get("revealed") != "1" || f.Hidden.Has("_csrf") {
		t.Errorf("hidden fields %v (the sign-out form's token is not this form's)", f.Hidden)
	}
	if !slices.Equal(f.Radios["choice"], []string{"2", "0"}) || !slices.Equal(f.Checks["sel"], []string{"1"}) ||
		!slices.Equal(f.Texts, []string{"gap", "gap"}) || len(f.Selects) != 1 || f.Selects[0] != (Select{"pos-0", "2"}) {
		t.Errorf("controls: radios %v, checks %v, texts %v, selects %v", f.Radios, f.Checks, f.Texts, f.Selects)
	}
	if len(ParseForms([]byte(questionPage), markGradeForm)) != 0 {
		t.Error("found a grade form in a question page")
	}
}
