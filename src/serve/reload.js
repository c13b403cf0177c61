/* kepsite serve: live reload (injected by `kepsite serve` only, never built into the site) */
(function () {
  var me = document.currentScript;
  var gen = Number(me && me.dataset.generation);
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
        if (d.css_only) {
          gen = d.generation;
          restyle();
          return poll();
        }
        location.reload();
      })
      .catch(function () {
        setTimeout(poll, 1000);
      });
  }
  poll();
})();
