// kepsite search: fetches search/meta.json once, then only the term files
// (search/t/<n>.json, each holding the terms of a few two-character keys)
// and the summary buckets (search/s/<k>.json) of the results it shows. A
// result whose words are in its text names the section where they occur
// most and opens it, with the words marked there (?hl=...).
(function () {
  "use strict";
  var DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
  var SHOWN = 12;
  // The weight of a KEP's name in the index (title, number, gate, directory
  // name, acronym: W_NAME in search.rs).
  var NAME = 20;
  // What a KEP gains when the query's words run together are one of its
  // names (a gate: "server side apply"), as much as a title the query is all
  // of; when they are a word of its text, 25 per unit of its weight.
  var JOINED = 1700;

  // A posting string → [doc, weight, heading, ...]: numbers of five-bit
  // digits, lowest first (a digit of 32 or more says another follows); the
  // doc is its distance from the one before.
  function postings(s) {
    var out = [], n = 0, shift = 1, doc = 0;
    for (var i = 0; i < s.length; i++) {
      var v = DIGITS.indexOf(s.charAt(i));
      n += (v & 31) * shift;
      shift *= 32;
      if (v < 32) {
        if (out.length % 3 === 0) { doc += n; n = doc; }
        out.push(n);
        n = 0; shift = 1;
      }
    }
    return out;
  }
  // Query terms: words of letters and digits, and people as "@name".
  function words(q) {
    var out = [];
    q.toLowerCase().split(/\s+/).forEach(function (w) {
      var person = /^@([a-z0-9][a-z0-9_-]*)/.exec(w);
      if (person) { out.push("@" + person[1]); return; }
      w.split(/[^a-z0-9]+/).forEach(function (x) { if (x.length > 0) out.push(x); });
    });
    return out;
  }
  function esc(s) {
    return s.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }
  function plain(terms) {
    return terms.filter(function (t) { return t.charAt(0) !== "@"; });
  }
  // Highlight words of `text` starting with a query term, around the first match.
  function snippet(text, terms) {
    terms = plain(terms);
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
  function titleWords(doc) {
    return words(doc[1]).filter(function (w) { return w !== "kep" && w !== "kubernetes"; });
  }
  // Whether a and b differ by one edit: a letter added, dropped or changed,
  // or two neighbours swapped.
  function oneEdit(a, b) {
    var la = a.length, lb = b.length, i = 0;
    if (a === b || Math.abs(la - lb) > 1) return false;
    while (i < la && i < lb && a.charAt(i) === b.charAt(i)) i++;
    if (la > lb) return a.slice(i + 1) === b.slice(i);
    if (la < lb) return a.slice(i) === b.slice(i + 1);
    return a.slice(i + 1) === b.slice(i + 1) ||
      (a.charAt(i) === b.charAt(i + 1) && a.charAt(i + 1) === b.charAt(i) && a.slice(i + 2) === b.slice(i + 2));
  }
  // How a word of the index answers query word q: 2 the same word (or q is
  // it with a plural "s"), 1 a word q begins, 0 not at all.
  function fit(w, q) {
    if (w === q || (q.length >= 4 && q.charAt(q.length - 1) === "s" && w === q.slice(0, -1))) return 2;
    return w.indexOf(q) === 0 ? 1 : 0;
  }
  // A typo: q and w of 5 letters or more, one edit apart.
  function typo(w, q) {
    return q.length >= 5 && w.length >= 5 && oneEdit(q, w);
  }
  // How well the title (or number) answers the query: 0 when some term is
  // in neither; more when every term is a whole title word and the query
  // covers more of the title.
  function titleScore(doc, terms) {
    if (plain(terms).length < terms.length) return 0;
    // "KEP-1287" is the number 1287
    var t = plain(terms).filter(function (w) { return w !== "kep"; });
    if (!t.length) return 0;
    if (t.length === 1 && doc[0] !== null && t[0] === String(doc[0])) return 5000;
    var tw = titleWords(doc);
    var exact = 0, covered = {};
    var all = t.every(function (q) {
      var hit = false;
      tw.forEach(function (w, i) {
        var f = fit(w, q);
        if (f) { hit = true; covered[i] = true; if (f === 2) exact++; }
      });
      return hit;
    });
    if (!all) return 0;
    var cover = Object.keys(covered).length / Math.max(tw.length, 1);
    return 1000 + (exact === t.length ? 300 : 0) + Math.round(400 * cover);
  }
  // Postings of every word answering t (fit, or a typo of it when t itself
  // is no word of the index): doc id -> [best weight, heading].
  function matches(shard, t) {
    var best = {};
    var typos = !shard.hasOwnProperty(t);
    Object.keys(shard).forEach(function (term) {
      var f = fit(term, t) || (typos && typo(term, t) ? 1 : 0);
      if (!f) return;
      var p = postings(shard[term]);
      for (var i = 0; i < p.length; i += 3) {
        // a name is a name, however often the text repeats it
        var w = Math.min(p[i + 1], NAME) * f;
        if (!best[p[i]] || best[p[i]][0] < w) best[p[i]] = [w, p[i + 2]];
      }
    });
    return best;
  }
  // The weight of word t (or t with a plural "s") in each doc: doc id -> weight.
  function exactly(shard, t) {
    var out = {};
    [t, t.slice(0, -1)].forEach(function (w, i) {
      if (i && t.charAt(t.length - 1) !== "s") return;
      if (!shard.hasOwnProperty(w)) return;
      var p = postings(shard[w]);
      for (var j = 0; j < p.length; j += 3) out[p[j]] = Math.max(out[p[j]] || 0, p[j + 1]);
    });
    return out;
  }
  // Docs by how many query words they have, then by how well they answer
  // the query (title, names, text), then oldest first.
  function rank(m, terms, loaded) {
    var hits = {}, score = {}, head = {}, rarest = {}, n = 0;
    terms.forEach(function (t, i) {
      if (t.length < 2) return;
      n++;
      var b = matches(loaded[i], t);
      var count = Object.keys(b).length;
      Object.keys(b).forEach(function (d) {
        hits[d] = (hits[d] || 0) + 1;
        score[d] = (score[d] || 0) + b[d][0];
        // the section of the rarest term is the one that says most
        if (b[d][1] && !(rarest[d] <= count)) { rarest[d] = count; head[d] = b[d][1]; }
      });
    });
    // the words run together are a name ("server side apply":
    // ServerSideApply) or a word of the text (an API field)
    var joined = plain(terms).join("");
    var whole = n > 1 && terms[0].length >= 2 ? exactly(loaded[0], joined) : {};
    var ids = [];
    m.docs.forEach(function (doc, id) {
      var th = titleScore(doc, terms);
      var w = whole[id] || 0;
      var h = th || w ? n : (hits[id] || 0);
      var s = (score[id] || 0) + th + (w >= NAME ? JOINED : w * 25);
      if (th || h > 0) ids.push({ id: id, h: h, s: s, p: th ? 0 : (head[id] || 0) });
    });
    // words some KEP has all of: only those KEPs
    var most = ids.reduce(function (x, r) { return Math.max(x, r.h); }, 0);
    ids = ids.filter(function (r) { return r.h === most; });
    ids.sort(function (a, b) {
      return b.h - a.h || b.s - a.s || (m.docs[a.id][0] || 0) - (m.docs[b.id][0] || 0);
    });
    return ids.slice(0, SHOWN);
  }
  // The search over index files read by `get` (path -> promise of JSON):
  // meta, the term files of the query's words, the snippets of the results.
  function engine(get) {
    var fileOf = null;
    function loadMeta() {
      return get("search/meta.json").then(function (m) {
        if (!fileOf) {
          fileOf = {};
          m.shards.forEach(function (keys, i) { keys.split(" ").forEach(function (k) { fileOf[k] = i; }); });
        }
        return m;
      });
    }
    // q -> promise of the results shown, each with its doc, section and text.
    function query(q) {
      var terms = words(q);
      return loadMeta().then(function (m) {
        var shards = terms.map(function (t) {
          var k = t.slice(0, 2);
          return t.length >= 2 && fileOf[k] !== undefined ? get("search/t/" + fileOf[k] + ".json") : Promise.resolve({});
        });
        return Promise.all(shards).then(function (loaded) {
          var top = rank(m, terms, loaded);
          return Promise.all(top.map(function (r) {
            var head = r.p && m.heads[r.p - 1];
            // a heading alone: its anchor is its text (anchor_of in encode.rs)
            if (typeof head === "string") head = [head.replace(/[^A-Za-z0-9 _-]/g, "").toLowerCase().replace(/ /g, "-"), head];
            r.doc = m.docs[r.id];
            r.anchor = head ? head[0] : "";
            r.heading = head ? head[1] : "";
            return get("search/s/" + Math.floor(r.id / m.bucket) + ".json").then(function (texts) {
              r.text = texts[r.id % m.bucket] || "";
            });
          })).then(function () { return top; });
        });
      });
    }
    return { meta: loadMeta, query: query, words: words };
  }
  // Under node (the known-item test): the engine alone.
  if (typeof document === "undefined") {
    if (typeof module === "object" && module.exports) module.exports = engine;
    return;
  }

  var input = document.getElementById("ks-q");
  var box = document.getElementById("ks-results");
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
  var search_ = engine(get);
  function loadMeta() {
    return search_.meta().then(function (m) { meta = m; return m; });
  }
  function search(q) {
    var terms = words(q);
    var my = ++seq;
    if (!terms.length) { render([], terms, my); return; }
    loadMeta().then(function () { return search_.query(q); })
      .then(function (top) { render(top, terms, my); })
      .catch(function () { render(null, terms, my); });
  }
  function href(d, r, terms) {
    var url = base + (d[4] || "keps/" + d[0] + "/");
    var hl = plain(terms).join(" ");
    if (r.anchor) url += (hl ? "?hl=" + encodeURIComponent(hl) : "") + "#" + encodeURIComponent(r.anchor);
    return url;
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
      var sig = meta.sigs[d[2]] || "", stage = meta.stages[d[3]] || "";
      html += '<a role="option" id="ks-r' + i + '" href="' + esc(href(d, r, terms)) + '" aria-selected="false">' +
        '<span class="r-title">' + (d[0] ? "KEP-" + d[0] + ": " : "") + snippet(d[1], terms).replace(/^…/, "") + "</span><br>" +
        '<span class="r-meta">' + esc(sig) + (stage ? " · " + esc(stage) : "") +
        (r.heading ? ' · <span class="r-sec">§ ' + esc(r.heading) + "</span>" : "") + "</span><br>" +
        '<span class="r-snip">' + snippet(r.text || "", terms) + "</span></a>";
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
  // On a KEP page opened from a result: mark the words in the section.
  function markSection() {
    var hl = new URLSearchParams(window.location.search).get("hl");
    var id = decodeURIComponent(window.location.hash.slice(1));
    var head = id && document.getElementById(id);
    if (!hl || !head || !/^H[1-6]$/.test(head.tagName)) return;
    var terms = words(hl).filter(function (t) { return t.length >= 2; });
    if (!terms.length) return;
    var re = new RegExp("(^|[^A-Za-z0-9])((?:" + terms.join("|") + ")[A-Za-z0-9]*)", "gi");
    var level = +head.tagName.charAt(1);
    var first = null;
    for (var el = head.nextElementSibling; el; el = el.nextElementSibling) {
      if (/^H[1-6]$/.test(el.tagName) && +el.tagName.charAt(1) <= level) break;
      var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      var nodes = [];
      while (walker.nextNode()) nodes.push(walker.currentNode);
      nodes.forEach(function (n) {
        var text = n.nodeValue, last = 0, m, frag = null;
        re.lastIndex = 0;
        while ((m = re.exec(text))) {
          frag = frag || document.createDocumentFragment();
          var at = m.index + m[1].length;
          frag.appendChild(document.createTextNode(text.slice(last, at)));
          var mark = document.createElement("mark");
          mark.className = "ks-hl";
          mark.textContent = m[2];
          frag.appendChild(mark);
          first = first || mark;
          last = at + m[2].length;
        }
        if (frag) {
          frag.appendChild(document.createTextNode(text.slice(last)));
          n.parentNode.replaceChild(frag, n);
        }
      });
    }
    if (first) first.scrollIntoView({ block: "center" });
  }
  markSection();
  if (!input || !box) return;
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
