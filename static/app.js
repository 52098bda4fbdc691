// kubequiz page behaviour that needs script. Pages work without it: forms
// post normally and htmx only enhances them.
(function () {
  "use strict";
  // The keyboard hints (.keys) are shown only where this script runs.
  document.documentElement.classList.add("js");

  // Pages are sent with Cache-Control: no-store, yet a browser may show one
  // again from its back-forward cache, with counts and cards as they were:
  // load it afresh instead.
  window.addEventListener("pageshow", function (evt) {
    if (evt.persisted) {
      window.location.reload();
    }
  });

  // A wide chart that scrolls in its own box (the statistics page's
  // calendar of reviews) starts at its end, where the latest days are.
  document.querySelectorAll("[data-scroll-end]").forEach(function (el) {
    el.scrollLeft = el.scrollWidth;
  });
  // Send the CSRF token with every htmx request.
  document.addEventListener("htmx:configRequest", function (evt) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) {
      evt.detail.headers["X-CSRF-Token"] = meta.getAttribute("content");
    }
  });

  // htmx leaves error responses unswapped; in the study area, show the
  // error message the server sent instead of doing nothing.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    if (evt.detail.xhr.status >= 400 && target && target.id === "study") {
      evt.detail.shouldSwap = true;
      evt.detail.isError = false;
    }
  });


  // Study keys. 1-4 grade, Enter grades with the preselected button, Space
  // reveals a flashcard, U takes back the last grade. While typing in a field only Enter is handled, and
  // the browser already submits the form for it.
  //
  // activates tells whether the browser itself acts on Enter and Space on
  // el (a button, a link, the user menu's summary, a form control): those
  // keys are then left to it.
  function activates(el) {
    return !!(el && el.closest && el.closest("a[href], button, summary, input, select, textarea"));
  }
  function typing(el) {
    if (!el) {
      return false;
    }
    if (el.isContentEditable || el.tagName === "TEXTAREA" || el.tagName === "SELECT") {
      return true;
    }
    return el.tagName === "INPUT" && ["radio", "checkbox", "submit", "button", "hidden"].indexOf(el.type) < 0;
  }

  // busy is set from the moment a study form is sent until htmx has
  // settled the new content (htmx binds the new forms only then), so that
  // a held or quickly repeated key neither sends a form twice nor submits
  // a form that htmx has not taken over yet.
  var busy = false;
  document.addEventListener("htmx:beforeRequest", function (evt) {
    if (evt.target.closest && evt.target.closest("#study")) {
      busy = true;
    }
  });
  document.addEventListener("htmx:afterRequest", function (evt) {
    if (!evt.detail.successful) {
      busy = false;
    }
  });
  document.addEventListener("htmx:afterSettle", function () {
    busy = false;
  });
  // Until then the forms htmx swapped in are not yet its own: a submit
  // (Enter on a focused button, a quick second click) would post the form
  // as a plain page. It is dropped, before htmx or the browser sees it.
  document.addEventListener("submit", function (evt) {
    if (busy && evt.target.closest && evt.target.closest("#study")) {
      evt.preventDefault();
      evt.stopPropagation();
    }
  }, true);

  // A study form htmx could not send (no connection, the server down) or
  // whose answer did not come within the page's htmx timeout (20 s): the
  // card stays as it was, and a message above it says so, so that the
  // learner sends it again (a second send of one card records one review).
  // The live region says it too.
  function sendFailed(evt) {
    var study = document.getElementById("study");
    if (!study || !evt.target.closest || !evt.target.closest("#study")) {
      return;
    }
    busy = false;
    var msg = evt.type === "htmx:timeout" ?
      "応答がありませんでした。接続を確かめて、もう一度送ってください。" :
      "送信できませんでした。接続を確かめて、もう一度送ってください。";
    var p = study.querySelector(".send-error");
    if (!p) {
      p = document.createElement("p");
      p.className = "form-error send-error";
      study.insertBefore(p, study.firstChild);
    }
    p.textContent = msg;
    var status = document.getElementById("study-status");
    if (status) {
      status.textContent = msg;
    }
  }
  document.addEventListener("htmx:sendError", sendFailed);
  document.addEventListener("htmx:timeout", sendFailed);

  // In a cloze with several gaps, Enter in a gap moves to the next one;
  // in the last it sends the answer, as the browser does.
  document.addEventListener("keydown", function (evt) {
    if (evt.key !== "Enter" || evt.defaultPrevented || evt.altKey || evt.ctrlKey || evt.metaKey || evt.shiftKey || evt.isComposing) {
      return;
    }
    var el = evt.target;
    if (!el || el.tagName !== "INPUT" || el.name !== "gap" || !el.form) {
      return;
    }
    var gaps = el.form.querySelectorAll('input[name="gap"]');
    var i = Array.prototype.indexOf.call(gaps, el);
    if (i >= 0 && i < gaps.length - 1) {
      evt.preventDefault();
      gaps[i + 1].focus();
      gaps[i + 1].select();
    }
  });

  // Before an answer, keys 1-9 pick the choice shown at that place (a
  // true/false question: 1 true, 2 false); a multiple-choice pick is
  // toggled. Enter then sends the answer.
  function pickChoice(study, key) {
    var form = study.querySelector("form.study-answer");
    if (!form) {
      return false;
    }
    var inputs = form.querySelectorAll('input[type="radio"], input[type="checkbox"]');
    var input = inputs[Number(key) - 1];
    if (!input) {
      return false;
    }
    input.checked = input.type === "checkbox" ? !input.checked : true;
    input.focus();
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  document.addEventListener("keydown", function (evt) {
    if (evt.defaultPrevented || evt.altKey || evt.ctrlKey || evt.metaKey || evt.isComposing) {
      return;
    }
    var study = document.getElementById("study");
    if (!study || typing(evt.target)) {
      return;
    }
    // U takes back the last grade, where the page offers it (the undo
    // form above the next card).
    if (evt.key === "u" || evt.key === "U") {
      var undo = study.querySelector("form.study-undo button[type=submit]");
      if (!undo) {
        return;
      }
      evt.preventDefault();
      if (!busy && !evt.repeat) {
        undo.click();
      }
      return;
    }
    var grade = study.querySelector("form.study-grade");
    var button = null;
    if (!grade && /^[1-9]$/.test(evt.key)) {
      if (!evt.repeat && pickChoice(study, evt.key)) {
        evt.preventDefault();
      }
      return;
    }
    if (grade && evt.key === "Enter" && !activates(evt.target)) {
      button = grade.querySelector('button[name="rating"][data-preselected]');
    } else if (grade && /^[1-4]$/.test(evt.key)) {
      button = grade.querySelector('button[name="rating"][value="' + evt.key + '"]');
    } else if (grade && evt.key === "Enter") {
      return; // on a focused button or link the browser acts
    } else if (evt.key === " ") {
      if (activates(evt.target)) {
        return;
      }
      button = study.querySelector("button[data-reveal]");
    }
    if (!button) {
      return;
    }
    evt.preventDefault();
    if (busy || evt.repeat) {
      return;
    }
    button.click();
  });
})();
