// Dashboards (SIG, release, PRR queue): the summary line's links filter the
// KEP rows. The filter lives in the address (?missing=<checklist item>,
// ?state=open|ok), so a filtered view can be shared; without scripts the
// links still lead to the list.
(function () {
  "use strict";
  var note = document.getElementById("dash-filter");
  if (!note) return;
  var groups = Array.prototype.slice.call(document.querySelectorAll("table.dash > tbody"));
  var links = Array.prototype.slice.call(document.querySelectorAll("[data-summary] a[data-filter]"));
  function matches(tb, p) {
    var missing = p.get("missing"), state = p.get("state");
    if (missing && (" " + tb.getAttribute("data-missing") + " ").indexOf(" " + missing + " ") < 0) return false;
    if (state === "open" && tb.getAttribute("data-open") !== "true") return false;
    if (state === "ok" && tb.getAttribute("data-open") === "true") return false;
    return true;
  }
  function apply(p) {
    var active = p.get("missing") || p.get("state");
    var shown = 0;
    groups.forEach(function (tb) {
      var ok = !active || matches(tb, p);
      tb.hidden = !ok;
      if (ok) shown++;
    });
    links.forEach(function (a) {
      var f = a.getAttribute("data-filter");
      if (active && f === p.toString()) a.setAttribute("aria-current", "true");
      else a.removeAttribute("aria-current");
    });
    note.hidden = !active;
    note.textContent = "";
    if (!active) return;
    var label = links.filter(function (a) { return a.getAttribute("data-filter") === p.toString(); })[0];
    note.appendChild(document.createTextNode("Showing " + shown + " of " + groups.length + " KEPs" +
      (label ? " (" + label.textContent + ")" : "") + ". "));
    var all = document.createElement("a");
    all.href = window.location.pathname + window.location.hash;
    all.textContent = "Show all";
    all.addEventListener("click", function (e) {
      e.preventDefault();
      history.replaceState(null, "", window.location.pathname + window.location.hash);
      apply(new URLSearchParams());
    });
    note.appendChild(all);
  }
  links.forEach(function (a) {
    a.addEventListener("click", function (e) {
      var p = new URLSearchParams(a.getAttribute("data-filter"));
      e.preventDefault();
      var qs = p.toString();
      history.replaceState(null, "", window.location.pathname + (qs ? "?" + qs : "") + a.hash);
      apply(p);
      var target = document.getElementById(a.hash.slice(1));
      if (target) target.scrollIntoView();
    });
  });
  apply(new URLSearchParams(window.location.search));
})();
