//! Highlighted code as spans named after their colours, not their scopes.
//!
//! syntect's classed HTML names each token's whole scope stack
//! (`hl-string hl-unquoted hl-plain hl-out hl-yaml`): 8 MB of the corpus
//! site's 38 MB of KEP pages. Here each token takes its style from the light
//! and the dark theme (looked up once per scope stack, see [`classes_of`]),
//! and a span names those colours by their place in each theme's palette
//! (`hl-3 hl-d7` for the light and dark text, `hl-g1 hl-e2` for
//! backgrounds, `hl-b` bold, `hl-i` italic, `hl-u` underlined, from the light
//! theme); neighbours of one style share a span, and text in the default
//! colours has none.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::OnceLock;

use syntect::highlighting::{Color, FontStyle, Highlighter, Style, Theme, ThemeSet};
use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

/// A theme and the distinct foreground and background colours its rules name.
struct Palette {
    theme: Theme,
    colours: Vec<Color>,
    backgrounds: Vec<Color>,
}

fn key(c: &Color) -> (u8, u8, u8, u8) {
    (c.r, c.g, c.b, c.a)
}

/// The place of `c` in `list`, unless it is `default`.
fn place(list: &[Color], c: Color, default: Option<Color>) -> Option<usize> {
    if Some(c) == default {
        return None;
    }
    list.binary_search_by_key(&key(&c), key).ok()
}

impl Palette {
    fn of(theme: Theme) -> Palette {
        let sorted = |f: fn(&syntect::highlighting::StyleModifier) -> Option<Color>| {
            let mut v: Vec<Color> = theme.scopes.iter().filter_map(|i| f(&i.style)).collect();
            v.sort_by_key(key);
            v.dedup();
            v
        };
        let colours = sorted(|s| s.foreground);
        let backgrounds = sorted(|s| s.background);
        Palette {
            theme,
            colours,
            backgrounds,
        }
    }

    /// The place of foreground `c` in the palette, unless it is the default.
    fn place(&self, c: Color) -> Option<usize> {
        place(&self.colours, c, self.theme.settings.foreground)
    }

    /// The place of background `c` in the palette, unless it is the default.
    fn back(&self, c: Color) -> Option<usize> {
        place(&self.backgrounds, c, self.theme.settings.background)
    }
}

/// The relative luminance of `c` (WCAG 2).
fn luminance(c: Color) -> f64 {
    let lin = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.03928 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b)
}

/// The contrast ratio of `a` and `b` (WCAG 2: 1 to 21).
fn contrast(a: Color, b: Color) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// The default theme's code background (`--panel` in site.css) in light and
/// dark mode: code is shown on it, not on the syntect themes' own.
const PANEL: [Color; 2] = [
    Color {
        r: 0xf6,
        g: 0xf8,
        b: 0xfa,
        a: 0xff,
    },
    Color {
        r: 0x15,
        g: 0x1b,
        b: 0x23,
        a: 0xff,
    },
];

/// `c`, darkened on a light background or lightened on a dark one until it
/// reads at 4.5:1 (WCAG AA) on the theme's background and on the site's
/// code background: some of the themes' colours do not (InspiredGitHub's
/// green is 3.1:1 on white).
fn readable(c: Color, p: &Palette) -> Color {
    let bg = p.theme.settings.background.unwrap_or(Color::WHITE);
    let light = luminance(bg) > 0.5;
    let panel = PANEL[usize::from(!light)];
    let toward: u8 = if light { 0 } else { 255 };
    let mix = |v: u8, t: f64| (f64::from(v) + (f64::from(toward) - f64::from(v)) * t).round() as u8;
    (0..=40)
        .map(|i| f64::from(i) / 40.0)
        .map(|t| Color {
            r: mix(c.r, t),
            g: mix(c.g, t),
            b: mix(c.b, t),
            a: c.a,
        })
        .find(|m| contrast(*m, bg) >= 4.6 && contrast(*m, panel) >= 4.6)
        .unwrap_or(c)
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
    let mut add = |class: std::fmt::Arguments| {
        if !out.is_empty() {
            out.push(' ');
        }
        let _ = out.write_fmt(class);
    };
    if let Some(n) = l.place(light.foreground) {
        add(format_args!("hl-{n}"));
    }
    if let Some(n) = l.back(light.background) {
        add(format_args!("hl-g{n}"));
    }
    if let Some(n) = d.place(dark.foreground) {
        add(format_args!("hl-d{n}"));
    }
    if let Some(n) = d.back(dark.background) {
        add(format_args!("hl-e{n}"));
    }
    for (flag, name) in [
        (FontStyle::BOLD, "hl-b"),
        (FontStyle::ITALIC, "hl-i"),
        (FontStyle::UNDERLINE, "hl-u"),
    ] {
        if light.font_style.contains(flag) {
            add(format_args!("{name}"));
        }
    }
}

/// The classes of text under scope stack `stack`: remembered per thread,
/// since a few hundred stacks recur in every block (matching a stack
/// against both themes' rules was a tenth of a build).
fn classes_of(stack: &[Scope], out: &mut String) {
    thread_local! {
        static MEMO: RefCell<HashMap<Vec<Scope>, String>> = RefCell::new(HashMap::new());
    }
    MEMO.with(|memo| {
        if let Some(c) = memo.borrow().get(stack) {
            out.clone_from(c);
            return;
        }
        let (l, d) = palettes();
        let light = Highlighter::new(&l.theme).style_for_stack(stack);
        let dark = Highlighter::new(&d.theme).style_for_stack(stack);
        classes(light, dark, out);
        memo.borrow_mut().insert(stack.to_vec(), out.clone());
    })
}

/// `code` in `syntax` as the spans inside a `<code>` (`None` when the
/// grammar fails on it).
pub(super) fn html(code: &str, syntax: &SyntaxReference, syntaxes: &SyntaxSet) -> Option<String> {
    let mut parse = ParseState::new(syntax);
    let mut stack = ScopeStack::new();
    let mut out = String::with_capacity(code.len() * 2);
    // the open span's classes, and the next piece's
    let (mut open, mut next) = (String::new(), String::new());
    let mut piece = |text: &str, stack: &ScopeStack, out: &mut String| {
        if text.is_empty() {
            return;
        }
        classes_of(stack.as_slice(), &mut next);
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
    };
    for line in LinesWithEndings::from(code) {
        let ops = parse.parse_line(line, syntaxes).ok()?;
        let mut at = 0;
        for (pos, op) in &ops {
            let pos = (*pos).min(line.len());
            piece(line.get(at..pos.max(at))?, &stack, &mut out);
            at = at.max(pos);
            stack.apply(op).ok()?;
        }
        piece(line.get(at..)?, &stack, &mut out);
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
        let _ = writeln!(css, ".hl-{n}{{color:{}}}", hex(readable(*c, l)));
    }
    for (n, c) in l.backgrounds.iter().enumerate() {
        let _ = writeln!(css, ".hl-g{n}{{background-color:{}}}", hex(*c));
    }
    css.push_str(
        ".hl-b{font-weight:bold}\n.hl-i{font-style:italic}\n.hl-u{text-decoration:underline}\n",
    );
    css.push_str("@media (prefers-color-scheme: dark) {\n");
    code(d, &mut css);
    for (n, c) in d.colours.iter().enumerate() {
        let _ = writeln!(css, ".hl-d{n}{{color:{}}}", hex(readable(*c, d)));
    }
    for (n, c) in d.backgrounds.iter().enumerate() {
        let _ = writeln!(css, ".hl-e{n}{{background-color:{}}}", hex(*c));
    }
    // the light theme's classes give way to the dark ones'
    for n in 0..l.colours.len() {
        let _ = writeln!(css, ".hl-{n}:not([class*=\"hl-d\"]){{color:inherit}}");
    }
    for n in 0..l.backgrounds.len() {
        let _ = writeln!(
            css,
            ".hl-g{n}:not([class*=\"hl-e\"]){{background-color:transparent}}"
        );
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
        // every colour reads at 4.5:1 on its theme's background
        let (l, d) = palettes();
        for (p, panel) in [(l, PANEL[0]), (d, PANEL[1])] {
            let bg = p.theme.settings.background.unwrap();
            for c in &p.colours {
                let r = readable(*c, p);
                assert!(contrast(r, bg) >= 4.5 && contrast(r, panel) >= 4.5, "{c:?}");
            }
        }
        assert!(contrast(Color::BLACK, Color::WHITE) > 20.9);
        // PANEL is site.css's code background
        let site = include_str!("../../../themes/default/static/site.css");
        for c in PANEL {
            let hex = format!("--panel: #{:02x}{:02x}{:02x};", c.r, c.g, c.b);
            assert!(site.contains(&hex), "site.css has no {hex}");
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
