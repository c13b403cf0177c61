// kepsite search: fetches search/meta.json once, then only the term shard
// (search/t/<first two letters>.json) and the snippet buckets it needs.
(function () {
  "use strict";
  var input = document.getElementById("ks-q");
  var box = document.getElementById("ks-results");
  if (!input || !box) return;
  var base = document.body.getAttribute("data-base") || "/";
  var cache = {};
  var meta = null;
  var active = -1;
  var seq = 0;

  function get(path) {
    if (!cache[path]) {
      cache[path] = fetch(base + path).then(function (r) {
        if (!r.ok) throw new Error(path + ": " + r.status);
        return r.json();
      });
    }
    return cache[path];
  }
  function loadMeta() {
    return get("search/meta.json").then(function (m) { meta = m; return m; });
  }
  function words(q) {
    return q.toLowerCase().split(/[^a-z0-9]+/).filter(function (w) { return w.length > 0; });
  }
  function esc(s) {
    return s.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  // Highlight words of `text` starting with a query term, around the first match.
  function snippet(text, terms) {
    var lower = text.toLowerCase();
    var at = -1;
    terms.forEach(function (t) {
      var re = new RegExp("(^|[^a-z0-9])" + t.replace(/[^a-z0-9]/g, ""));
      var m = re.exec(lower);
      if (m && (at < 0 || m.index < at)) at = m.index;
    });
    var start = at > 60 ? at - 60 : 0;
    var s = (start > 0 ? "…" : "") + text.slice(start, start + 220) + (text.length > start + 220 ? "…" : "");
    var out = esc(s);
    terms.forEach(function (t) {
      if (t.length < 2) return;
      out = out.replace(new RegExp("(^|[^A-Za-z0-9])(" + t + "[A-Za-z0-9]*)", "gi"), "$1<mark>$2</mark>");
    });
    return out;
  }
  function titleHit(doc, terms) {
    var tw = words(doc[1] + " " + (doc[0] || "") + " kep");
    return terms.every(function (t) { return tw.some(function (w) { return w.indexOf(t) === 0; }); });
  }
  // Postings of every shard term starting with t: doc id -> best weight.
  function matches(shard, t) {
    var best = {};
    Object.keys(shard).forEach(function (term) {
      if (term.indexOf(t) !== 0) return;
      var p = shard[term];
      var bonus = term === t ? 2 : 1;
      for (var i = 0; i < p.length; i += 2) {
        var w = p[i + 1] * bonus;
        if (!(best[p[i]] >= w)) best[p[i]] = w;
      }
    });
    return best;
  }
  function search(q) {
    var terms = words(q);
    var my = ++seq;
    if (!terms.length) { render([], terms, my); return; }
    loadMeta().then(function (m) {
      var need = terms.filter(function (t) { return t.length >= 2; });
      var shards = need.map(function (t) {
        var k = t.slice(0, 2);
        return m.shards.indexOf(k) >= 0 ? get("search/t/" + k + ".json") : Promise.resolve({});
      });
      return Promise.all(shards).then(function (loaded) {
        var score = null;
        need.forEach(function (t, i) {
          var b = matches(loaded[i], t);
          if (score === null) { score = b; return; }
          var next = {};
          Object.keys(score).forEach(function (d) { if (b[d]) next[d] = score[d] + b[d]; });
          score = next;
        });
        var ids = [];
        m.docs.forEach(function (doc, id) {
          var th = titleHit(doc, terms);
          var s = score ? (score[id] || 0) : 0;
          if (th || s > 0) ids.push({ id: id, th: th, s: s + (th ? 1000 : 0) });
        });
        ids.sort(function (a, b) { return b.s - a.s || (m.docs[b.id][0] || 0) - (m.docs[a.id][0] || 0); });
        return ids.slice(0, 12);
      }).then(function (top) {
        var buckets = {};
        top.forEach(function (r) { buckets[Math.floor(r.id / m.bucket)] = true; });
        return Promise.all(Object.keys(buckets).map(function (b) {
          return get("search/s/" + b + ".json").then(function (texts) { return [b, texts]; });
        })).then(function (loaded) {
          var snips = {};
          loaded.forEach(function (x) { snips[x[0]] = x[1]; });
          top.forEach(function (r) { var b = Math.floor(r.id / m.bucket); r.text = (snips[b] || [])[r.id % m.bucket] || ""; });
          render(top, terms, my);
        });
      });
    }).catch(function () { render(null, terms, my); });
  }
  function render(results, terms, my) {
    if (my !== seq) return;
    active = -1;
    if (!terms.length) { box.hidden = true; input.setAttribute("aria-expanded", "false"); return; }
    var html = "";
    if (results === null) html = '<p class="r-none">Search is unavailable (the index could not be loaded).</p>';
    else if (!results.length) html = '<p class="r-none">No KEPs match.</p>';
    else results.forEach(function (r, i) {
      var d = meta.docs[r.id];
      html += '<a role="option" id="ks-r' + i + '" href="' + esc(base + d[4]) + '" aria-selected="false">' +
        '<span class="r-title">' + (d[0] ? "KEP-" + d[0] + ": " : "") + snippet(d[1], terms).replace(/^…/, "") + "</span><br>" +
        '<span class="r-meta">' + esc(d[2] || "") + (d[3] ? " · " + esc(d[3]) : "") + "</span><br>" +
        '<span class="r-snip">' + snippet(r.text, terms) + "</span></a>";
    });
    box.innerHTML = html;
    box.hidden = false;
    input.setAttribute("aria-expanded", "true");
  }
  function move(delta) {
    var items = box.querySelectorAll("a[role=option]");
    if (!items.length) return;
    if (active >= 0) items[active].setAttribute("aria-selected", "false");
    active = (active + delta + items.length) % items.length;
    items[active].setAttribute("aria-selected", "true");
    items[active].scrollIntoView({ block: "nearest" });
    input.setAttribute("aria-activedescendant", items[active].id);
  }
  var timer = null;
  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(function () { search(input.value); }, 80);
  });
  input.addEventListener("focus", function () { loadMeta().catch(function () {}); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "ArrowDown") { e.preventDefault(); move(1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); move(-1); }
    else if (e.key === "Escape") { box.hidden = true; input.setAttribute("aria-expanded", "false"); }
    else if (e.key === "Enter") {
      var items = box.querySelectorAll("a[role=option]");
      var pick = active >= 0 ? items[active] : items[0];
      if (pick) { e.preventDefault(); window.location.href = pick.href; }
    }
  });
  document.addEventListener("keydown", function (e) {
    var tag = (e.target && e.target.tagName) || "";
    if (e.key === "/" && !/^(INPUT|TEXTAREA|SELECT)$/.test(tag) && !e.target.isContentEditable) {
      e.preventDefault();
      input.focus();
    }
  });
  // A shared search URL (?q=...) opens with its results, except on the KEP
  // index, where q filters the table instead.
  var initial = new URLSearchParams(window.location.search).get("q");
  if (initial) {
    input.value = initial;
    if (!document.getElementById("ks-filters")) search(initial);
  }
  document.addEventListener("click", function (e) {
    if (!input.form.contains(e.target)) box.hidden = true;
  });
})();
