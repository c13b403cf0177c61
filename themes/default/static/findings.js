// Findings page: filters (rule, SIG, severity) kept in the query string, so a view can be shared.
(function () {
  "use strict";
  var form = document.getElementById("kf-filters");
  var table = document.getElementById("kf-table");
  if (!form || !table) return;
  form.hidden = false;
  var rows = Array.prototype.slice.call(table.tBodies[0].rows);
  var count = document.getElementById("kf-count");
  var keys = ["rule", "sig", "severity"];
  function apply() {
    var shown = 0;
    rows.forEach(function (r) {
      var ok = keys.every(function (k) {
        var v = form.elements[k].value;
        return !v || r.getAttribute("data-" + k) === v;
      });
      r.hidden = !ok;
      if (ok) shown++;
    });
    count.textContent = shown + " of " + rows.length + " findings";
  }
  function writeUrl() {
    var p = new URLSearchParams();
    keys.forEach(function (k) { var v = form.elements[k].value; if (v) p.set(k, v); });
    var qs = p.toString();
    history.replaceState(null, "", window.location.pathname + (qs ? "?" + qs : "") + window.location.hash);
  }
  var p = new URLSearchParams(window.location.search);
  keys.forEach(function (k) { form.elements[k].value = p.get(k) || ""; });
  form.addEventListener("change", function () { writeUrl(); apply(); });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  apply();
})();
