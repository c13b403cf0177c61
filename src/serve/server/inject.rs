//! What `serve` adds to every HTML page at response time: the live-reload
//! script and, while there are problems, the problem overlay.

use super::Site;
use crate::serve::state::Problem;

/// The live-reload client.
const RELOAD_SCRIPT: &str = include_str!("../reload.js");

/// The page with the reload script (and the overlay, when there are
/// problems) inserted before `</body>`.
pub fn inject(page: &[u8], site: &Site) -> Vec<u8> {
    let mut extra = String::new();
    if !site.problems.is_empty() {
        extra.push_str(&overlay(&site.problems));
    }
    extra.push_str(&format!(
        "<script id=\"kepsite-reload\" data-generation=\"{}\">{RELOAD_SCRIPT}</script>\n",
        site.generation
    ));
    let at = page
        .windows(7)
        .rposition(|w| w.eq_ignore_ascii_case(b"</body>"))
        .unwrap_or(page.len());
    let mut out = Vec::with_capacity(page.len() + extra.len());
    out.extend_from_slice(&page[..at]);
    out.extend_from_slice(extra.as_bytes());
    out.extend_from_slice(&page[at..]);
    out
}

/// The problem overlay: every problem's subject and message, escaped.
pub fn overlay(problems: &[Problem]) -> String {
    let mut s = String::from(
        "<div id=\"kepsite-overlay\" role=\"alert\" style=\"position:fixed;left:1rem;right:1rem;bottom:1rem;max-height:60vh;overflow:auto;z-index:2147483647;background:#1d1f21;color:#f5f5f5;border:3px solid #e5484d;border-radius:8px;padding:1rem 1.25rem;font:13px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace;box-shadow:0 8px 32px rgba(0,0,0,.45);text-align:left\">\
<button type=\"button\" onclick=\"this.parentNode.remove()\" aria-label=\"Dismiss\" style=\"float:right;background:none;border:1px solid #888;color:inherit;border-radius:4px;cursor:pointer;font:inherit;padding:0 .5rem\">×</button>",
    );
    s.push_str(&format!(
        "<p style=\"margin:0 0 .5rem;font-weight:bold;color:#ff8a8a\">kepsite serve: {} problem{} — showing the last good pages; fix and save to recover</p>",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" }
    ));
    for p in problems {
        s.push_str(&format!(
            "<p style=\"margin:.75rem 0 .25rem;color:#ffd479\">{}</p><pre style=\"margin:0;white-space:pre-wrap;color:inherit;background:none;border:0;padding:0\">{}</pre>",
            crate::escape::html(&p.subject),
            crate::escape::html(&p.message)
        ));
    }
    s.push_str("</div>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn injection_goes_before_body_end_and_escapes_problems() {
        let site = Site {
            generation: 7,
            problems: vec![Problem {
                subject: "keps/x/kep.yaml".into(),
                message: "<script>alert(1)</script>".into(),
            }],
            ..Site::default()
        };
        let out = String::from_utf8(inject(b"<html><body><p>x</p></body></html>", &site)).unwrap();
        assert!(out.ends_with("</body></html>"), "{out}");
        assert!(out.contains("data-generation=\"7\""));
        assert!(out.contains("kepsite-overlay"));
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        assert!(!out.contains("<script>alert(1)"));
        let clean = Site {
            generation: 1,
            ..Site::default()
        };
        let out = String::from_utf8(inject(b"<p>no body tag</p>", &clean)).unwrap();
        assert!(out.starts_with("<p>no body tag</p><script"));
        assert!(!out.contains("kepsite-overlay"));
    }
}
