//! Markdown rendering: a KEP's README text and a [`Links`] resolver →
//! [`Rendered`] (sanitized HTML, table of contents, summary text).
//!
//! The event stream is rewritten before HTML is emitted: headings get
//! GitHub-style ids, fenced code is highlighted into CSS classes, and links to
//! other KEPs or repository files are pointed at their pages, link and image
//! destinations are checked, and raw HTML goes through [`super::sanitize`], so
//! nothing the README author wrote can run script.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use pulldown_cmark::{CodeBlockKind, CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Serialize;

use super::highlight::Highlighter;
use super::sanitize::{Sanitizer, is_image, safe_url};

/// One table-of-contents entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TocEntry {
    /// Heading level, 1–6.
    pub level: u8,
    /// The heading's anchor id.
    pub id: String,
    /// The heading's plain text.
    pub text: String,
}

/// A rendered README.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// Sanitized HTML.
    pub html: String,
    /// Headings of levels 1–3, in order.
    pub toc: Vec<TocEntry>,
    /// Plain text of the `Summary` section (empty when there is none).
    pub summary: String,
    /// Plain text of the whole document, for the search index.
    pub text: String,
}

/// Where links in a README should go.
#[derive(Debug, Clone)]
pub struct Links<'a> {
    /// KEP path (`keps/sig-x/123-foo`) → page URL.
    pub keps: &'a BTreeMap<String, String>,
    /// Assets copied beside this KEP's page, as paths relative to the KEP directory.
    pub local_assets: &'a BTreeSet<String>,
    /// `https://github.com/kubernetes/enhancements`.
    pub repo_url: &'a str,
    /// Branch for blob links.
    pub branch: &'a str,
}

impl Links<'_> {
    /// Where `dest`, written in the file at repository path `from`, should point.
    pub fn resolve(&self, from: &str, dest: &str, image: bool) -> String {
        if dest.is_empty() || dest.starts_with('#') || has_scheme(dest) || dest.starts_with("//") {
            return dest.to_string();
        }
        let (path_part, frag) = match dest.find(['#', '?']) {
            Some(i) => (&dest[..i], &dest[i..]),
            None => (dest, ""),
        };
        let dir = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        let joined = if let Some(abs) = path_part.strip_prefix('/') {
            abs.to_string()
        } else if dir.is_empty() {
            path_part.to_string()
        } else {
            format!("{dir}/{path_part}")
        };
        let Some(path) = normalize(&joined) else {
            return self.repo_url.to_string();
        };
        if let Some(url) = self.kep_url(&path) {
            let frag = if frag.starts_with('#') { frag } else { "" };
            return format!("{url}{frag}");
        }
        if let Some(rel) = path
            .strip_prefix(&format!("{dir}/"))
            .filter(|rel| self.local_assets.contains(*rel))
        {
            return format!("{rel}{frag}");
        }
        if image {
            return format!("{}/blob/{}/{path}?raw=true", self.repo_url, self.branch);
        }
        format!("{}/blob/{}/{path}{frag}", self.repo_url, self.branch)
    }

    /// The page of the KEP at `path` (its directory, README, kep.yaml or single file).
    pub fn kep_url(&self, path: &str) -> Option<&str> {
        let path = path.trim_end_matches('/');
        let candidates = [
            Some(path),
            path.rsplit_once('/')
                .filter(|(_, name)| name.eq_ignore_ascii_case("readme.md") || *name == "kep.yaml")
                .map(|(d, _)| d),
        ];
        candidates
            .into_iter()
            .flatten()
            .find_map(|p| {
                self.keps
                    .get(p)
                    .or_else(|| self.keps.get(&format!("{p}.md")))
            })
            .map(|s| s.as_str())
    }
}

fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(i) => s[..i]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'),
        None => false,
    }
}

/// Normalize `a/b/../c` to `a/c`; `None` when it leaves the repository.
pub fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

/// GitHub's heading anchor: lowercase, punctuation dropped, spaces to `-`.
pub fn slug(text: &str) -> String {
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_HEADING_ATTRIBUTES
}

/// Whether raw HTML is only comments and whitespace (renders to nothing).
fn is_comment_only(html: &str) -> bool {
    let mut rest = html.trim_start();
    while !rest.is_empty() {
        let Some(body) = rest.strip_prefix("<!--") else {
            return false;
        };
        match body.find("-->") {
            Some(end) => rest = body[end + 3..].trim_start(),
            None => return false,
        }
    }
    true
}

/// A link or image destination made safe: relative paths resolved (to KEP
/// pages, copied assets or the repository), schemes other than http, https
/// and mailto dropped.
fn safe_dest(links: &Links, from: &str, dest: &str, image: bool) -> String {
    match safe_url(dest) {
        Some(url) => links.resolve(from, &url, image),
        None => String::new(),
    }
}

/// Render `markdown` (the file at repository path `from`).
///
/// Markdown alone cannot produce script: the only URLs are link and image
/// destinations, which `safe_dest` rewrites, and heading attributes are
/// dropped. Raw HTML is rewritten by a [`Sanitizer`] that sees the markdown
/// elements around it.
pub fn render(markdown: &str, from: &str, links: &Links, hl: &Highlighter) -> Rendered {
    // An HTML block arrives one line per event; join them so a comment or a
    // tag that spans lines is judged whole, not line by line.
    let mut events: Vec<Event> = Vec::new();
    for ev in Parser::new_ext(markdown, options()) {
        if let (Event::Html(h), Some(Event::Html(prev))) = (&ev, events.last_mut()) {
            *prev = CowStr::from(format!("{prev}{h}"));
            continue;
        }
        events.push(ev);
    }
    events.retain(|e| !matches!(e, Event::Html(h) | Event::InlineHtml(h) if is_comment_only(h)));
    let toc = anchor_headings(&mut events);
    let (summary, text) = plain_text(&events);
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut code: Option<(String, String)> = None;
    let mut san = Sanitizer::new();
    let resolve = |url: &str, image: bool| links.resolve(from, url, image);
    for ev in events {
        if let Some((lang, buf)) = code.as_mut() {
            match ev {
                Event::Text(t) => buf.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let html = hl.block(lang, buf);
                    out.push(Event::Html(html.into()));
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        match ev {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(l) => {
                        l.split([' ', ',', '{']).next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
            }
            // an HTML block is not an element: raw HTML may open an element
            // in one block and close it in a later one
            Event::Start(Tag::HtmlBlock) | Event::End(TagEnd::HtmlBlock) => out.push(ev),
            Event::Start(tag) => {
                san.markdown_start();
                out.push(Event::Start(match tag {
                    Tag::Heading {
                        level, id, classes, ..
                    } => Tag::Heading {
                        level,
                        id,
                        classes,
                        attrs: Vec::new(),
                    },
                    Tag::Link {
                        link_type,
                        dest_url,
                        title,
                        id,
                    } => Tag::Link {
                        link_type,
                        dest_url: safe_dest(links, from, &dest_url, is_image(&dest_url)).into(),
                        title,
                        id,
                    },
                    Tag::Image {
                        link_type,
                        dest_url,
                        title,
                        id,
                    } => Tag::Image {
                        link_type,
                        dest_url: safe_dest(links, from, &dest_url, true).into(),
                        title,
                        id,
                    },
                    tag => tag,
                }));
            }
            Event::End(tag) => {
                let closing = san.markdown_end();
                if !closing.is_empty() {
                    out.push(Event::Html(closing.into()));
                }
                out.push(Event::End(tag));
            }
            Event::Html(h) => out.push(Event::Html(san.html(&h, &resolve).into())),
            Event::InlineHtml(h) => out.push(Event::InlineHtml(san.html(&h, &resolve).into())),
            ev => out.push(ev),
        }
    }
    let closing = san.finish();
    if !closing.is_empty() {
        out.push(Event::Html(closing.into()));
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    Rendered {
        html,
        toc,
        summary,
        text,
    }
}

/// Give every heading an id (its own `{#id}` or a GitHub slug, made unique)
/// and return the level 1–3 entries for the table of contents.
fn anchor_headings(events: &mut [Event]) -> Vec<TocEntry> {
    let mut seen: HashSet<String> = HashSet::new();
    let mut toc = Vec::new();
    let mut i = 0;
    while i < events.len() {
        let Event::Start(Tag::Heading { level, id, .. }) = &events[i] else {
            i += 1;
            continue;
        };
        let (level, given) = (*level, id.clone());
        let mut text = String::new();
        let mut j = i + 1;
        while j < events.len() && !matches!(events[j], Event::End(TagEnd::Heading(_))) {
            if let Event::Text(t) | Event::Code(t) = &events[j] {
                text.push_str(t);
            }
            j += 1;
        }
        let base = given.map(|g| g.to_string()).unwrap_or_else(|| slug(&text));
        let mut unique = base.clone();
        let mut n = 0;
        while !seen.insert(unique.clone()) {
            n += 1;
            unique = format!("{base}-{n}");
        }
        if let Event::Start(Tag::Heading { id, .. }) = &mut events[i] {
            *id = Some(CowStr::from(unique.clone()));
        }
        let lvl = level as u8;
        if level <= HeadingLevel::H3 && !text.trim().is_empty() {
            toc.push(TocEntry {
                level: lvl,
                id: unique,
                text: text.trim().to_string(),
            });
        }
        i = j + 1;
    }
    toc
}

/// The plain text of the `Summary` section and of the whole document.
fn plain_text(events: &[Event]) -> (String, String) {
    let mut summary = String::new();
    let mut text = String::new();
    let mut in_summary = false;
    let mut heading: Option<String> = None;
    for ev in events {
        match ev {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = heading.take() {
                    in_summary = h.trim().eq_ignore_ascii_case("summary");
                    text.push_str(&h);
                    text.push('\n');
                }
            }
            Event::Text(t) | Event::Code(t) => match heading.as_mut() {
                Some(h) => h.push_str(t),
                None => {
                    text.push_str(t);
                    if in_summary {
                        summary.push_str(t);
                    }
                }
            },
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph | TagEnd::Item) => {
                text.push(' ');
                if in_summary {
                    summary.push(' ');
                }
            }
            _ => {}
        }
    }
    let squash = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    (squash(&summary), text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_match_github() {
        assert_eq!(slug("Risks and Mitigations"), "risks-and-mitigations");
        assert_eq!(
            slug("Notes/Constraints/Caveats (Optional)"),
            "notesconstraintscaveats-optional"
        );
        assert_eq!(slug("`kubelet` flags"), "kubelet-flags");
    }

    fn render_plain(md: &str) -> String {
        let keps = BTreeMap::from([("keps/sig-a/1-x".to_string(), "/keps/1/".to_string())]);
        let assets = BTreeSet::from(["img.png".to_string()]);
        let links = Links {
            keps: &keps,
            local_assets: &assets,
            repo_url: "https://github.com/k/e",
            branch: "master",
        };
        let hl = Highlighter::new();
        render(md, "keps/sig-a/2-y/README.md", &links, &hl).html
    }

    #[test]
    fn markdown_is_made_safe_in_the_event_stream() {
        for (md, bad) in [
            ("[a](javascript:alert(1))", "javascript"),
            ("[a](JavaScript:alert(1))", "alert"),
            ("[a]( vbscript:msgbox )", "vbscript"),
            ("![i](data:image/svg+xml;base64,PHN2Zz4=)", "data:"),
            ("[a][r]\n\n[r]: javascript:alert(1)", "javascript"),
            ("<javascript:alert(1)>", "href=\"javascript"),
            ("# Title {onclick=alert(1)}", "onclick"),
            ("[a](java&#09;script:alert(1))", "href=\"java"),
        ] {
            let html = render_plain(md);
            assert!(!html.contains(bad), "{md:?} → {html}");
        }
        let html = render_plain(
            "[k](../../sig-a/1-x/README.md) [m](mailto:a@b.c) ![p](img.png) [f](other.md#x) <!-- note -->",
        );
        assert!(html.contains(r#"href="/keps/1/""#), "{html}");
        assert!(html.contains(r#"href="mailto:a@b.c""#), "{html}");
        assert!(html.contains(r#"src="img.png""#), "{html}");
        assert!(
            html.contains("https://github.com/k/e/blob/master/keps/sig-a/2-y/other.md#x"),
            "{html}"
        );
        assert!(!html.contains("note"), "comments are dropped: {html}");
    }

    #[test]
    fn a_comment_over_several_lines_hides_nothing_after_it() {
        // keps/sig-storage/1979: `>` instead of `-->` on the first line; the
        // comment ends on the next line, as on GitHub.
        let html = render_plain(
            "<!-- update with hack/update-toc.sh >\n<!-- toc -->\n- [Summary](#summary)\n<!-- /toc -->\n\n## Summary\n\nText.\n",
        );
        assert!(html.contains("<h2 id=\"summary\">"), "{html}");
        assert!(html.contains("href=\"#summary\""), "{html}");
    }

    #[test]
    fn raw_html_goes_through_the_sanitizer() {
        let html = render_plain(
            "<div onclick=\"x()\">hi <script>alert(1)</script><a href=\"javascript:y\">l</a></div>\n\n<img src=\"img.png\" onerror=\"z()\">",
        );
        assert!(
            !html.contains("onclick")
                && !html.contains("<script")
                && !html.contains("javascript")
                && !html.contains("onerror"),
            "{html}"
        );
        assert!(html.contains(r#"src="img.png""#), "{html}");
    }

    #[test]
    fn paths_normalize_inside_the_repo() {
        assert_eq!(
            normalize("keps/sig-a/1/../../sig-b/2/README.md").as_deref(),
            Some("keps/sig-b/2/README.md")
        );
        assert_eq!(normalize("keps/../../etc/passwd"), None);
    }
}
