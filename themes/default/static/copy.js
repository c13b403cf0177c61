// Copy boxes (issue comments, SIG messages): a button beside a block of
// Markdown copies its text. The buttons stay hidden where the browser has
// no clipboard; the text can still be selected by hand.
(function () {
  "use strict";
  if (!navigator.clipboard) return;
  var status = document.getElementById("copy-status");
  Array.prototype.forEach.call(document.querySelectorAll("button[data-copy]"), function (b) {
    var box = document.getElementById(b.getAttribute("data-copy"));
    if (!box) return;
    var label = b.textContent;
    b.hidden = false;
    b.addEventListener("click", function () {
      navigator.clipboard.writeText(box.textContent).then(function () {
        b.textContent = "Copied";
        if (status) status.textContent = "Copied to the clipboard.";
        setTimeout(function () { b.textContent = label; }, 2000);
      }, function () {
        if (status) status.textContent = "The browser refused the clipboard: select the text and copy it.";
      });
    });
  });
})();
