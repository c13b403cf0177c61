//! The dashboards read at a glance (issue 24), on the corpus build in
//! Chromium at 390, 800, 1024 and 1400 px: at 1024 px and wider no element
//! scrolls sideways (the reason a KEP is at risk is on screen), at 390 and
//! 800 px no dashboard needs sideways scrolling (its rows are cards), no
//! table row is more than 1.5x as tall as the content of its tallest cell,
//! the summary line's links filter the rows, and the release report's
//! outcome cells are 250 px wide or more at every width from 390 to
//! 1400 px. axe-core runs on the same pages in `portal.rs`; screenshots go
//! to `$CARGO_TARGET_TMPDIR/browser-corpus/dash/`.

use serde_json::Value;

use super::Browser;
use super::portal::{corpus_site, open};

const WIDTHS: [(u32, u32); 4] = [(390, 844), (800, 1000), (1024, 768), (1400, 900)];

/// The pages a SIG lead, a PRR reviewer, the release team and a KEP author
/// read.
pub(super) const DASHBOARDS: [(&str, &str); 11] = [
    ("home", "/"),
    ("sig", "/sigs/sig-node/"),
    ("prr", "/prr/"),
    ("prr-queue", "/prr/jpbetz/"),
    ("release", "/releases/v1.37/"),
    ("release-out", "/releases/v1.35/"),
    ("findings", "/findings/"),
    ("keps", "/keps/"),
    ("report", "/releases/v1.37/report/"),
    ("comments", "/releases/v1.37/comments/"),
    ("person", "/people/wojtek-t/"),
];

/// What is wrong with the open page's reading layout at `width`: elements
/// that scroll sideways (at 1024 and wider: any; narrower: dashboard tables),
/// and table rows taller than 1.5x the content of their tallest cell.
fn reading_problems(b: &Browser, width: u32) -> Vec<String> {
    b.lay_out_everything();
    let v = b.js(&format!(
        "var phone = {phone}, out = [];\
         function name(e) {{ return e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +\
           (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : ''); }}\
         document.querySelectorAll('body *').forEach(function (e) {{\
           if (e.offsetParent === null && getComputedStyle(e).position !== 'fixed') return;\
           var s = getComputedStyle(e).overflowX;\
           if (s !== 'auto' && s !== 'scroll') return;\
           if (e.scrollWidth <= e.clientWidth + 1) return;\
           if (phone && !e.querySelector('table.dash')) return;\
           out.push(name(e) + ' scrolls sideways (' + e.scrollWidth + ' > ' + e.clientWidth + ')'); }});\
         document.querySelectorAll('tr').forEach(function (tr) {{\
           if (getComputedStyle(tr).display !== 'table-row' || tr.offsetParent === null) return;\
           var tallest = 0;\
           Array.prototype.forEach.call(tr.cells, function (td) {{\
             var cs = getComputedStyle(td), r = document.createRange(); r.selectNodeContents(td);\
             var h = r.getBoundingClientRect().height + parseFloat(cs.paddingTop) + parseFloat(cs.paddingBottom);\
             if (h > tallest) tallest = h; }});\
           var rh = tr.getBoundingClientRect().height;\
           if (tallest > 0 && rh > 1.5 * tallest + 1) {{\
             var t = (tr.cells[0] && tr.cells[0].textContent || '').trim().slice(0, 40);\
             out.push('row \"' + t + '\" is ' + Math.round(rh) + 'px tall for ' + Math.round(tallest) + 'px of content'); }} }});\
         return out;",
        phone = width < 1000
    ));
    v.as_array()
        .unwrap_or_else(|| panic!("the measure answered {v}"))
        .iter()
        .map(|s| s.as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
#[ignore = "needs chromium + chromedriver; CI runs it with --ignored"]
fn dashboards_read_at_a_glance_at_390_800_1024_and_1400() {
    let site = corpus_site();
    let shots = site.dir.join("dash");
    std::fs::create_dir_all(&shots).unwrap();
    let b = Browser::start();

    // Self-checks: the measure sees a table that scrolls sideways at 1024 px
    // and a row made tall by an empty cell's height.
    b.viewport(WIDTHS[2]);
    open(&b, &site.published("/sigs/sig-node/"));
    b.js(
        "var d = document.querySelector('.table-wrap'); d.style.overflowX = 'auto';\
          d.querySelector('table').style.minWidth = '3000px';\
          var td = document.querySelector('table.dash td'); td.style.height = '400px';",
    );
    let seen = reading_problems(&b, 1024);
    assert!(
        seen.iter().any(|p| p.contains("scrolls sideways"))
            && seen.iter().any(|p| p.contains("px of content")),
        "{seen:?}"
    );

    let mut problems = Vec::new();
    for size in WIDTHS {
        b.viewport(size);
        for (name, page) in DASHBOARDS {
            open(&b, &site.published(page));
            problems.extend(
                reading_problems(&b, size.0)
                    .into_iter()
                    .map(|p| format!("{page} at {}px: {p}", size.0)),
            );
            b.screenshot(&shots.join(format!("{name}-{}.png", size.0)));
        }
    }
    eprintln!("screenshots in {}", shots.display());
    assert_eq!(problems, Vec::<String>::new());
}

/// The KEPs a dashboard shows (visible rows), in order.
fn visible(b: &Browser) -> Vec<Value> {
    let v = b.js(
        "return Array.prototype.filter.call(document.querySelectorAll('table.dash > tbody'),\
           function (t) { return !t.hidden; }).map(function (t) {\
             return {open: t.getAttribute('data-open') === 'true', missing: t.getAttribute('data-missing'),\
               reason: !!t.querySelector('tr.why')}; });",
    );
    v.as_array().cloned().unwrap_or_default()
}

#[test]
#[ignore = "needs chromium + chromedriver; CI runs it with --ignored"]
fn a_sig_dashboard_puts_what_needs_doing_first_and_filters_by_its_summary() {
    let site = corpus_site();
    let b = Browser::start();
    b.viewport((1400, 900));
    open(&b, &site.published("/sigs/sig-node/"));
    let all = visible(&b);
    assert!(all.len() > 5, "{all:?}");
    // Open rows (At risk / Missed the freeze) first, each with its reason.
    let first_closed = all
        .iter()
        .position(|r| r["open"] == false)
        .unwrap_or(all.len());
    assert!(first_closed > 0, "no open row at the top: {all:?}");
    assert!(
        all[first_closed..].iter().all(|r| r["open"] == false),
        "{all:?}"
    );
    assert!(
        all[..first_closed].iter().all(|r| r["reason"] == true),
        "{all:?}"
    );

    // The summary's first "lack" link filters the list to the rows lacking it.
    let link = b.js(
        "var a = document.querySelector('[data-summary] a[data-filter^=\"missing=\"]');\
         return a ? {filter: a.getAttribute('data-filter'), text: a.textContent} : null;",
    );
    let filter = link["filter"]
        .as_str()
        .expect("a summary part to click")
        .to_string();
    let id = filter.trim_start_matches("missing=").to_string();
    let count: usize = link["text"]
        .as_str()
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the part starts with its count");
    b.click(&b.css(&format!("[data-summary] a[data-filter=\"{filter}\"]")));
    b.wait_for(
        "the filter note",
        "return !document.getElementById('dash-filter').hidden;",
    );
    let shown = visible(&b);
    assert_eq!(shown.len(), count, "{link}: {shown:?}");
    assert!(
        shown.iter().all(|r| r["missing"]
            .as_str()
            .is_some_and(|m| m.split(' ').any(|x| x == id))),
        "{shown:?}"
    );
    assert!(b.current_url().contains(&format!("missing={id}")));
    // The address keeps the filter: a reload shows the same rows.
    b.refresh();
    b.wait_for(
        "the filter note after reload",
        "return document.readyState === 'complete' && !document.getElementById('dash-filter').hidden;",
    );
    assert_eq!(visible(&b).len(), count);
    assert_eq!(b.console_errors(), Vec::<String>::new());
}

/// The narrowest outcome cell the open report shows, in px (None: none
/// shown).
fn narrowest_outcome(b: &Browser) -> Option<f64> {
    b.js(
        "var w = Array.prototype.map.call(document.querySelectorAll('table.kr-keps td.kr-outcome'),\
           function (td) { return td.getBoundingClientRect().width; }).filter(function (x) { return x > 0; });\
         return w.length ? Math.min.apply(null, w) : null;",
    )
    .as_f64()
}

#[test]
#[ignore = "needs chromium + chromedriver; CI runs it with --ignored"]
fn the_reports_outcomes_stay_readable_from_phone_to_desktop() {
    // The outcome (the board status and what is missing) is what a release
    // shadow reads on the report; the ✓/✗ columns beside it left it 150 px
    // at 1024 px. At every width it has 250 px or more: a card up to 1200
    // px, a column of the table from 1201.
    let site = corpus_site();
    let b = Browser::start();
    let page = site.published("/releases/v1.37/report/");
    // Self-check: the measure sees a squeezed outcome.
    b.viewport((1400, 900));
    open(&b, &page);
    b.js("document.querySelectorAll('td.kr-kep').forEach(function (td) { td.style.minWidth = '1000px'; });");
    let squeezed = narrowest_outcome(&b);
    assert!(squeezed.is_some_and(|w| w < 250.0), "{squeezed:?}");

    let mut narrow = Vec::new();
    for width in [390, 800, 1024, 1100, 1200, 1201, 1280, 1400] {
        b.viewport((width, 900));
        open(&b, &page);
        match narrowest_outcome(&b) {
            Some(w) if w >= 250.0 => {}
            got => narrow.push(format!("{width}px: narrowest outcome {got:?}")),
        }
    }
    assert_eq!(narrow, Vec::<String>::new());
}
