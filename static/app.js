// kubequiz page behaviour that needs script. Pages work without it: forms
// post normally and htmx only enhances them.
(function () {
  "use strict";
  // Send the CSRF token with every htmx request.
  document.addEventListener("htmx:configRequest", function (evt) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) {
      evt.detail.headers["X-CSRF-Token"] = meta.getAttribute("content");
    }
  });
})();
