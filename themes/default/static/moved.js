// kepsite 404 page: a KEP's old address, by its directory
// (/keps/sig-node/753-sidecar-containers/), goes to its page (/keps/753/)
// as the build's _redirects file says. Netlify reads that file itself and
// `kepsite serve` answers with a 301; this is for every other host, which
// serves 404.html there and the file as it is.
(function () {
  "use strict";
  var base = document.body.getAttribute("data-base") || "/";
  var path = window.location.pathname.replace(/index\.html$/, "");
  if (path.indexOf(base + "keps/") !== 0) return;
  if (path.charAt(path.length - 1) !== "/") path += "/";
  fetch(base + "_redirects").then(function (r) { return r.ok ? r.text() : ""; }).then(function (text) {
    text.split("\n").some(function (line) {
      var w = line.split(" ");
      if (w[0] !== path || !w[1]) return false;
      var link = document.getElementById("moved");
      if (link) {
        link.href = w[1];
        link.textContent = w[1];
        link.parentNode.hidden = false;
      }
      window.location.replace(w[1] + window.location.search + window.location.hash);
      return true;
    });
  }).catch(function () {});
})();
