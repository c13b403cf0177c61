// Runs every query of a known-item fixture through search.js's own ranking
// (themes/default/static/search.js, required as a module) against a built
// site's index, as a first search in a fresh browser would: each query
// reads meta.json, its term files and the snippet files of its results.
// Usage: node known_items.js SEARCH_JS SITE_DIR FIXTURE
// Prints one JSON line per query: {q, kep, kind, got: [KEP numbers], bytes}.
"use strict";
const fs = require("fs");
const path = require("path");

const [searchJs, site, fixture] = process.argv.slice(2);
const engine = require(path.resolve(searchJs));
const items = JSON.parse(fs.readFileSync(fixture, "utf8"));

async function main() {
  for (const item of items) {
    const read = new Set();
    const get = (p) => {
      read.add(p);
      return Promise.resolve(JSON.parse(fs.readFileSync(path.join(site, p), "utf8")));
    };
    const top = await engine(get).query(item.q);
    let bytes = 0;
    for (const p of read) bytes += fs.statSync(path.join(site, p)).size;
    const got = top.map((r) => r.doc[0]);
    console.log(JSON.stringify({ q: item.q, kep: item.kep, kind: item.kind, got, bytes }));
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
