// KEP index: filters (SIG, status, stage, release, PRR complete, text) and column sorting.
// The filter and sort state lives in the query string, so a view can be shared.
(function () {
  "use strict";
  var form = document.getElementById("ks-filters");
  var table = document.getElementById("ks-table");
  if (!form || !table) return;
  form.hidden = false;
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var count = document.getElementById("ks-count");
  var keys = ["sig", "status", "stage", "release", "prr", "q"];
  var sort = { key: "", dir: 1 };
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);

  function version(s) {
    var m = /v?(\d+)\.(\d+)/.exec(s || "");
    return m ? parseInt(m[1], 10) * 1000 + parseInt(m[2], 10) : -1;
  }
  function cellValue(row, i, type) {
    var t = row.cells[i].textContent.trim();
    if (type === "num") return t ? parseInt(t, 10) : -1;
    if (type === "version") return version(t);
    return t.toLowerCase();
  }
  function readUrl() {
    var p = new URLSearchParams(window.location.search);
    keys.forEach(function (k) { if (form.elements[k]) form.elements[k].value = p.get(k) || ""; });
    var s = p.get("sort") || "";
    sort.dir = s.charAt(0) === "-" ? -1 : 1;
    sort.key = s.replace(/^-/, "");
  }
  function writeUrl() {
    var p = new URLSearchParams();
    keys.forEach(function (k) { var v = form.elements[k].value; if (v) p.set(k, v); });
    if (sort.key) p.set("sort", (sort.dir < 0 ? "-" : "") + sort.key);
    var qs = p.toString();
    history.replaceState(null, "", window.location.pathname + (qs ? "?" + qs : "") + window.location.hash);
  }
  function apply() {
    var f = {};
    keys.forEach(function (k) { f[k] = form.elements[k].value; });
    var q = f.q.toLowerCase();
    var shown = 0;
    rows.forEach(function (r) {
      var ok = (!f.sig || r.getAttribute("data-sig") === f.sig) &&
        (!f.status || r.getAttribute("data-status") === f.status) &&
        (!f.stage || r.getAttribute("data-stage") === f.stage) &&
        (!f.release || (" " + r.getAttribute("data-release") + " ").indexOf(" " + f.release + " ") >= 0) &&
        (!f.prr || r.getAttribute("data-prr") === f.prr) &&
        (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.hidden = !ok;
      if (ok) shown++;
    });
    var idx = -1, type = "";
    heads.forEach(function (h, i) {
      if (h.getAttribute("data-key") === sort.key) { idx = i; type = h.getAttribute("data-type") || ""; h.setAttribute("aria-sort", sort.dir > 0 ? "ascending" : "descending"); }
      else h.removeAttribute("aria-sort");
    });
    var ordered = rows.slice();
    if (idx >= 0) {
      ordered.sort(function (a, b) {
        var x = cellValue(a, idx, type), y = cellValue(b, idx, type);
        return (x < y ? -1 : x > y ? 1 : 0) * sort.dir;
      });
    }
    ordered.forEach(function (r) { body.appendChild(r); });
    count.textContent = shown + " of " + rows.length + " KEPs";
    writeUrl();
  }
  heads.forEach(function (h) {
    var b = document.createElement("button");
    b.type = "button";
    b.textContent = h.textContent;
    h.textContent = "";
    h.appendChild(b);
    b.addEventListener("click", function () {
      var k = h.getAttribute("data-key");
      if (sort.key === k) sort.dir = -sort.dir; else { sort.key = k; sort.dir = 1; }
      apply();
    });
  });
  // Selects fire "change" (and, in most browsers, "input"); apply is idempotent.
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  window.addEventListener("popstate", function () { readUrl(); apply(); });
  readUrl();
  apply();
})();
