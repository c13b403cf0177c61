/* kepsite serve: live reload (injected by `kepsite serve` only, never built into the site) */
(function () {
  var me = document.currentScript;
  var gen = Number(me && me.dataset.generation);
  // This page's path in the site (`keps/1480/index.html`).
  function here() {
    var p = decodeURIComponent(location.pathname).replace(/^\/+/, "");
    return p === "" || p.slice(-1) === "/" ? p + "index.html" : p;
  }
  function restyle() {
    document.querySelectorAll('link[rel="stylesheet"]').forEach(function (l) {
      var u = new URL(l.href);
      u.searchParams.set("kepsite", String(gen));
      l.href = u.toString();
    });
  }
  function poll() {
    fetch("/__kepsite/events?since=" + gen, { cache: "no-store" })
      .then(function (r) {
        if (!r.ok) throw new Error(String(r.status));
        return r.json();
      })
      .then(function (d) {
        if (d.generation === gen) return poll();
        // Reload when this page changed, the problems changed, a script
        // changed, or what changed is unknown; swap changed stylesheets.
        var changed = d.changed;
        if (!changed || d.problems_changed) return location.reload();
        if (changed.indexOf(here()) >= 0) return location.reload();
        if (changed.some(function (f) { return /\.js$/.test(f); })) return location.reload();
        gen = d.generation;
        if (changed.some(function (f) { return /\.css$/.test(f); })) restyle();
        poll();
      })
      .catch(function () {
        setTimeout(poll, 1000);
      });
  }
  poll();
})();
