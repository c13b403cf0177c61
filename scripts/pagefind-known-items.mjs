// One-off measurement: Pagefind on the known-item queries of
// tests/fixtures/known-items.json, beside kepsite (docs/site.md, Search).
//
// Usage: node scripts/pagefind-known-items.mjs SITE_DIR WORK_DIR
//   SITE_DIR: a built site (kepsite build --repo ... --out SITE_DIR)
//   WORK_DIR: scratch; its KEP pages are copied there with
//   data-pagefind-body on the KEP's <article> (title, metadata with the
//   feature gates, README), and `npx pagefind@1 --site WORK_DIR` indexes them.
// Prints hits@1 and MRR (all queries, and those naming one KEP) and the
// bytes a first search fetches (its JS, wasm, index chunks and the
// fragments of the 12 results shown), as a fresh browser would.
import fs from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { pathToFileURL, fileURLToPath } from "node:url";

const [site, work] = process.argv.slice(2);
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const items = JSON.parse(fs.readFileSync(path.join(root, "tests/fixtures/known-items.json"), "utf8"));
const SHOWN = 12;

fs.rmSync(work, { recursive: true, force: true });
(function copy(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, e.name);
    if (e.isDirectory()) copy(from);
    else if (e.name === "index.html") {
      const to = path.join(work, path.relative(site, from));
      fs.mkdirSync(path.dirname(to), { recursive: true });
      const html = fs.readFileSync(from, "utf8").replace('<article class="kep">', '<article class="kep" data-pagefind-body>');
      fs.writeFileSync(to, html);
    }
  }
})(path.join(site, "keps"));
execFileSync("npx", ["-y", "pagefind@1", "--site", work, "--quiet"], { stdio: "inherit" });

// fetch of file:// URLs, counting the bytes read
let bytes = 0;
globalThis.fetch = async (url) => {
  const u = new URL(url, pathToFileURL(path.join(work, "pagefind/")));
  const file = fileURLToPath(u.href.split("?")[0]);
  const body = fs.readFileSync(file);
  bytes += body.length;
  return new Response(body, { headers: { "content-type": file.endsWith(".wasm") ? "application/wasm" : "application/octet-stream" } });
};
const js = path.join(work, "pagefind/pagefind.js");
let all = [0, 0, 0], one = [0, 0, 0], total = 0;
const misses = [];
for (const [i, item] of items.entries()) {
  bytes = fs.statSync(js).size;
  const pf = await import(pathToFileURL(js).href + "?fresh=" + i);
  await pf.options({ basePath: pathToFileURL(path.join(work, "pagefind/")).href });
  const res = await pf.search(item.q);
  const shown = await Promise.all(res.results.slice(0, SHOWN).map((r) => r.data()));
  const got = shown.map((d) => { const m = /\/keps\/(\d+)\//.exec(d.url); return m ? +m[1] : 0; });
  const rank = got.indexOf(item.kep) + 1;
  for (const f of item.ambiguous ? [all] : [all, one]) {
    f[0] += 1; f[1] += rank === 1 ? 1 : 0; f[2] += rank ? 1 / rank : 0;
  }
  total += bytes;
  if (rank !== 1) misses.push(`${JSON.stringify(item.q)}: want ${item.kep}, rank ${rank || "-"}, got ${got.slice(0, 4)}`);
}
const show = (f) => `hits@1 ${f[1]}/${f[0]} (${(100 * f[1] / f[0]).toFixed(1)} %), MRR ${(f[2] / f[0]).toFixed(3)}`;
console.log("pagefind, all queries: " + show(all));
console.log("pagefind, naming one KEP: " + show(one));
console.log("pagefind, bytes a first search fetches, mean: " + Math.round(total / items.length));
console.log(misses.join("\n"));
