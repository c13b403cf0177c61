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
  // One long poll at a time, and none while the page is hidden or left
  // (the back/forward cache keeps a left page alive): browsers allow six
  // connections to a host, and every parked poll holds one, so polls of
  // pages nobody looks at would stall the fetches of the page in front.
  var ctl = null;
  function stop() {
    if (ctl) ctl.abort();
    ctl = null;
  }
  function poll() {
    if (document.hidden || ctl) return;
    var mine = new AbortController();
    ctl = mine;
    fetch("/__kepsite/events?since=" + gen, { cache: "no-store", signal: mine.signal })
      .then(function (r) {
        if (!r.ok) throw new Error(String(r.status));
        return r.json();
      })
      .then(function (d) {
        if (ctl !== mine) return;
        ctl = null;
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
        if (ctl !== mine) return; // stopped on purpose
        ctl = null;
        setTimeout(poll, 1000);
      });
  }
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) stop();
    else poll();
  });
  window.addEventListener("pagehide", stop);
  window.addEventListener("pageshow", function () { poll(); });
  poll();
})();
