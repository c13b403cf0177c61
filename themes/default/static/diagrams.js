// kepsite diagrams: draws ```mermaid blocks (pre.mermaid) with the mermaid
// script this site serves itself (static/mermaid.min.js, loaded only on pages
// that have a diagram). The site's Content-Security-Policy allows no inline
// <style>: the stylesheet mermaid puts into each SVG while drawing it goes
// into a constructed stylesheet instead (CSSOM is not inline markup), which
// styles the drawing as it is measured and once it is in the page.
(function () {
  "use strict";
  var blocks = Array.prototype.slice.call(document.querySelectorAll("pre.mermaid"));
  var m = window.mermaid;
  if (!blocks.length || !m) return;
  var dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  m.initialize({ startOnLoad: false, securityLevel: "strict", theme: dark ? "dark" : "default", htmlLabels: false,
                 flowchart: { htmlLabels: false }, fontFamily: "system-ui, sans-serif" });
  var sheet = null;
  function restore() { Node.prototype.insertBefore = insert; }
  function adopt(css) {
    if (!css) return;
    try {
      if (!sheet) {
        sheet = new CSSStyleSheet();
        document.adoptedStyleSheets = document.adoptedStyleSheets.concat([sheet]);
      }
      sheet.replaceSync(sheet.cssRules.length ? Array.prototype.map.call(sheet.cssRules, function (r) { return r.cssText; }).join("\n") + "\n" + css : css);
    } catch (e) { /* unstyled, still drawn */ }
  }
  var insert = Node.prototype.insertBefore;
  function capture(node, ref) {
    if (node && node.nodeType === 1 && node.nodeName.toLowerCase() === "style") {
      adopt(node.textContent);
      return insert.call(this, document.createComment("style moved to a constructed stylesheet"), ref);
    }
    return insert.call(this, node, ref);
  }
  // One at a time: mermaid measures text in the page while it draws.
  blocks.reduce(function (done, pre, i) {
    return done.then(function () {
      Node.prototype.insertBefore = capture;
      var drawn = m.render("ks-mermaid-" + i, pre.textContent);
      drawn.then(restore, restore);
      return drawn.then(function (out) {
        var doc = new DOMParser().parseFromString(out.svg, "image/svg+xml");
        var svg = doc.documentElement;
        if (!svg || svg.nodeName.toLowerCase() !== "svg") throw new Error("no svg");
        var css = "";
        Array.prototype.slice.call(svg.querySelectorAll("style")).forEach(function (s) {
          css += s.textContent + "\n";
          s.remove();
        });
        adopt(css);
        svg.setAttribute("role", "img");
        svg.setAttribute("aria-label", "Diagram " + (i + 1) + " (source below)");
        var fig = document.createElement("figure");
        fig.className = "mermaid-diagram";
        fig.appendChild(document.importNode(svg, true));
        var src = document.createElement("details");
        var sum = document.createElement("summary");
        sum.textContent = "Diagram source";
        src.appendChild(sum);
        pre.parentNode.insertBefore(fig, pre);
        src.appendChild(pre);
        fig.appendChild(src);
        fig.setAttribute("data-drawn", "true");
      }).catch(function () {
        pre.setAttribute("data-failed", "true");
      });
    });
  }, Promise.resolve());
})();
