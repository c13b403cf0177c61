// kepsite 404 page: a KEP's old address, by its directory
// (/keps/sig-node/753-sidecar-containers/), goes to its page (/keps/753/).
// Netlify does this with _redirects and `kepsite serve` with a 301; this is
// for every other host, which serves 404.html there.
(function () {
  "use strict";
  var base = document.body.getAttribute("data-base") || "/";
  var path;
  try { path = decodeURIComponent(window.location.pathname); } catch (e) { return; }
  if (path.indexOf(base) !== 0) return;
  var m = /^keps\/(?:[^\/]+\/)+0*(\d+)-[^\/]*\/?(?:index\.html)?$/.exec(path.slice(base.length));
  if (!m) return;
  var to = base + "keps/" + (m[1] || "0") + "/";
  var link = document.getElementById("moved");
  if (link) {
    link.href = to;
    link.textContent = to;
    link.parentNode.hidden = false;
  }
  window.location.replace(to + window.location.search + window.location.hash);
})();
