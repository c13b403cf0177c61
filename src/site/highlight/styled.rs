//! Highlighted code as spans named after their colours, not their scopes.
//!
//! syntect's classed HTML names each token's whole scope stack
//! (`hl-string hl-unquoted hl-plain hl-out hl-yaml`): 8 MB of the corpus
//! site's 38 MB of KEP pages. Here each token takes its colour from the light
//! and the dark theme, which both read the one parse of the line, and a span
//! names those colours by their place in each theme's palette (`hl-3 hl-d7`,
//! `hl-b` bold, `hl-i` italic, `hl-u` underlined); neighbours of one style
//! share a span, and text in the default colours has none.

use std::fmt::Write;
use std::sync::OnceLock;

use syntect::highlighting::{
    Color, FontStyle, HighlightIterator, HighlightState, Highlighter, Style, Theme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// A theme and the distinct foreground colours its rules name.
struct Palette {
    theme: Theme,
    colours: Vec<Color>,
}

impl Palette {
    fn of(theme: Theme) -> Palette {
        let mut colours: Vec<Color> = theme
            .scopes
            .iter()
            .filter_map(|item| item.style.foreground)
            .collect();
        colours.sort_by_key(|c| (c.r, c.g, c.b, c.a));
        colours.dedup();
        Palette { theme, colours }
    }

    /// The place of `c` in the palette, unless it is the default colour.
    fn place(&self, c: Color) -> Option<usize> {
        if Some(c) == self.theme.settings.foreground {
            return None;
        }
        self.colours
            .binary_search_by_key(&(c.r, c.g, c.b, c.a), |p| (p.r, p.g, p.b, p.a))
            .ok()
    }
}

/// The light and the dark theme.
fn palettes() -> &'static (Palette, Palette) {
    static PALETTES: OnceLock<(Palette, Palette)> = OnceLock::new();
    PALETTES.get_or_init(|| {
        let mut set = ThemeSet::load_defaults();
        let mut take = |name: &str| Palette::of(set.themes.remove(name).unwrap_or_default());
        (take("InspiredGitHub"), take("base16-ocean.dark"))
    })
}

/// The classes of a token of style `light` in the light theme and `dark`
/// in the dark one ("" for the default colours).
fn classes(light: Style, dark: Style, out: &mut String) {
    let (l, d) = palettes();
    out.clear();
    if let Some(n) = l.place(light.foreground) {
        let _ = write!(out, "hl-{n}");
    }
    if let Some(n) = d.place(dark.foreground) {
        let _ = write!(out, "{}hl-d{n}", if out.is_empty() { "" } else { " " });
    }
    for (flag, name) in [
        (FontStyle::BOLD, "hl-b"),
        (FontStyle::ITALIC, "hl-i"),
        (FontStyle::UNDERLINE, "hl-u"),
    ] {
        if light.font_style.contains(flag) {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(name);
        }
    }
}

/// `code` in `syntax` as the spans inside a `<code>` (`None` when the
/// grammar fails on it).
pub(super) fn html(code: &str, syntax: &SyntaxReference, syntaxes: &SyntaxSet) -> Option<String> {
    let (l, d) = palettes();
    let (lh, dh) = (Highlighter::new(&l.theme), Highlighter::new(&d.theme));
    let mut parse = ParseState::new(syntax);
    let mut ls = HighlightState::new(&lh, ScopeStack::new());
    let mut ds = HighlightState::new(&dh, ScopeStack::new());
    let mut out = String::with_capacity(code.len() * 2);
    // the open span's classes, and the next token's
    let (mut open, mut next) = (String::new(), String::new());
    for line in LinesWithEndings::from(code) {
        let ops = parse.parse_line(line, syntaxes).ok()?;
        let light: Vec<(Style, &str)> = HighlightIterator::new(&mut ls, &ops, line, &lh).collect();
        let dark: Vec<(Style, &str)> = HighlightIterator::new(&mut ds, &ops, line, &dh).collect();
        // both cut the line where the parse changes scope, so alike; should
        // they not, the dark style of the light piece's start is taken
        let mut dark_at = dark.iter().scan(0, |at, (s, t)| {
            *at += t.len();
            Some((*at, *s))
        });
        let mut dark_end = (0, Style::default());
        let mut at = 0;
        for (style, text) in light {
            while dark_end.0 <= at {
                match dark_at.next() {
                    Some(e) => dark_end = e,
                    None => break,
                }
            }
            at += text.len();
            classes(style, dark_end.1, &mut next);
            if next != open {
                if !open.is_empty() {
                    out.push_str("</span>");
                }
                if !next.is_empty() {
                    let _ = write!(out, "<span class=\"{next}\">");
                }
                std::mem::swap(&mut open, &mut next);
            }
            out.push_str(&crate::escape::text(text));
        }
    }
    if !open.is_empty() {
        out.push_str("</span>");
    }
    Some(out)
}

/// The stylesheet for [`html`]'s classes: the light theme's colours, and
/// the dark theme's under `prefers-color-scheme: dark`.
pub(super) fn stylesheet() -> String {
    let (l, d) = palettes();
    let hex = |c: Color| format!("#{:02x}{:02x}{:02x}", c.r, c.g, c.b);
    let mut css = String::from(
        "/* generated by kepsite from syntect's InspiredGitHub and base16-ocean.dark */\n",
    );
    let code = |p: &Palette, css: &mut String| {
        let s = &p.theme.settings;
        let _ = write!(css, ".hl-code{{");
        if let Some(c) = s.foreground {
            let _ = write!(css, "color:{};", hex(c));
        }
        if let Some(c) = s.background {
            let _ = write!(css, "background-color:{};", hex(c));
        }
        css.push_str("}\n");
    };
    code(l, &mut css);
    for (n, c) in l.colours.iter().enumerate() {
        let _ = writeln!(css, ".hl-{n}{{color:{}}}", hex(*c));
    }
    css.push_str(
        ".hl-b{font-weight:bold}\n.hl-i{font-style:italic}\n.hl-u{text-decoration:underline}\n",
    );
    css.push_str("@media (prefers-color-scheme: dark) {\n");
    code(d, &mut css);
    for (n, c) in d.colours.iter().enumerate() {
        let _ = writeln!(css, ".hl-d{n}{{color:{}}}", hex(*c));
    }
    // the light theme's colour classes give way to the dark ones'
    for n in 0..l.colours.len() {
        let _ = writeln!(css, ".hl-{n}:not([class*=\"hl-d\"]){{color:inherit}}");
    }
    css.push_str("}\n");
    css
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_name_colours_and_neighbours_share_one() {
        let syntaxes = SyntaxSet::load_defaults_newlines();
        let yaml = syntaxes.find_syntax_by_token("yaml").unwrap();
        let html = html("kind: Pod\nmetadata:\n  name: \"x<y\"\n", yaml, &syntaxes).unwrap();
        assert!(html.contains("<span class=\"hl-"), "{html}");
        assert!(!html.contains("hl-yaml"), "no scope names: {html}");
        assert!(
            html.contains("&quot;x&lt;y&quot;") || html.contains("x&lt;y"),
            "{html}"
        );
        assert_eq!(
            html.matches("<span").count(),
            html.matches("</span>").count()
        );
        assert!(!html.contains("<span class=\"\">"));
        // every class used has a rule
        let css = stylesheet();
        for class in html
            .split("class=\"")
            .skip(1)
            .flat_map(|r| r.split('"').next().unwrap().split(' '))
        {
            assert!(css.contains(&format!(".{class}{{")), "no rule for {class}");
        }
        // the text reads back whole
        let text = html
            .split('<')
            .map(|p| p.split_once('>').map_or(p, |(_, t)| t))
            .collect::<String>();
        assert_eq!(
            text.replace("&quot;", "\"").replace("&lt;", "<"),
            "kind: Pod\nmetadata:\n  name: \"x<y\"\n"
        );
    }
}
