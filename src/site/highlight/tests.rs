use super::*;

/// The text of `html` with its tags taken out and `&lt;`, `&gt;`, `&amp;`
/// read back.
fn text_of(html: &str) -> String {
    html.split('<')
        .enumerate()
        .map(|(i, p)| {
            if i == 0 {
                p
            } else {
                p.split_once('>').map_or(p, |(_, t)| t)
            }
        })
        .collect::<String>()
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

fn classes_in(html: &str) -> Vec<&str> {
    html.split("class=\"")
        .skip(1)
        .map(|r| r.split('"').next().unwrap())
        .collect()
}

#[test]
fn every_grammar_compiles_its_query_and_highlights() {
    let samples = [
        (
            Lang::Go,
            "package x\n// c\nfunc F(s string) int { return 1 }\n",
        ),
        (
            Lang::Yaml,
            "# c\nkind: Pod\nspec:\n  replicas: 3\n  name: \"x\"\n",
        ),
        (Lang::Bash, "# c\nkubectl get pods -n \"$NS\" | grep x\n"),
        (Lang::Json, "{\"a\": 1, \"b\": true, \"c\": \"s\"}\n"),
        (Lang::Python, "# c\ndef f(x):\n    return \"s\"\n"),
        (Lang::Diff, "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n"),
        (
            Lang::Proto,
            "syntax = \"proto3\";\n// c\nmessage M {\n  repeated string name = 1;\n}\n",
        ),
        (Lang::Make, "# c\nall: build\n\tgo build ./...\n"),
    ];
    assert_eq!(samples.len(), LANGS.len());
    for (lang, code) in samples {
        assert!(lang.grammar().is_some(), "{lang:?}'s query compiles");
        let html = spans(code, lang.grammar().unwrap()).unwrap();
        let classes = classes_in(&html);
        assert!(classes.len() >= 2, "{lang:?}: {html}");
        assert!(classes.iter().all(|c| CLASSES.contains(c)), "{html}");
        assert_eq!(text_of(&html), code, "{lang:?} keeps the text whole");
    }
}

#[test]
fn tokens_are_named_by_what_they_are() {
    let hl = Highlighter::new();
    let yaml = hl.block("yml", "# note\nkind: Pod\nreplicas: 3\n");
    assert!(
        yaml.contains("<span class=\"hl-c\"># note</span>"),
        "{yaml}"
    );
    assert!(yaml.contains("<span class=\"hl-p\">kind</span>"), "{yaml}");
    assert!(yaml.contains("<span class=\"hl-n\">3</span>"), "{yaml}");
    let go = hl.block("golang", "func F() {}\n");
    assert!(go.contains("<span class=\"hl-k\">func</span>"), "{go}");
    assert!(go.contains("<span class=\"hl-f\">F</span>"), "{go}");
    // a Bash command name that is a string: two nodes over the same bytes,
    // ordered as the query cursor reaches them, not by address
    for _ in 0..20 {
        let sh = hl.block("bash", "if \"Feature\" is on; then x; fi\n");
        assert!(
            sh.contains("<span class=\"hl-s\">\"Feature\"</span>"),
            "{sh}"
        );
    }
    // Python's query reads last-wins: the catch-all `@variable` comes first
    let py = hl.block("python", "def build(x):\n    return len(x)\n");
    assert!(py.contains("<span class=\"hl-f\">build</span>"), "{py}");
    assert!(py.contains("<span class=\"hl-k\">return</span>"), "{py}");
    let json = hl.block("json", "{\"key\": 1}");
    assert!(
        json.contains("<span class=\"hl-p\">\"key\"</span>"),
        "{json}"
    );
    assert!(json.contains("<span class=\"hl-n\">1</span>"), "{json}");
}

#[test]
fn blocks_are_escaped_and_balanced_with_or_without_a_grammar() {
    let hl = Highlighter::new();
    for (lang, code) in [
        ("yaml", "a: \"</code></pre><script>x</script>\"\n"),
        ("go", "s := \"<b>&amp;</b>\" // </span>\n"),
        ("mermaid", "graph TD; A-->B <script>\n"),
        ("", "<img src=x onerror=alert(1)>\n"),
        ("\"><script>", "x\n"),
        ("bash", "echo \u{1F600} é \"$X\" <<EOF\nbody\nEOF\n"),
    ] {
        let html = hl.block(lang, code);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("<b>") && !html.contains("<img"), "{html}");
        assert_eq!(
            html.matches("<span").count(),
            html.matches("</span>").count()
        );
        assert!(
            html.starts_with("<pre class=\"code hl-code\" data-lang=\""),
            "{html}"
        );
        let inner = html
            .split_once("<code>")
            .and_then(|(_, r)| r.rsplit_once("</code>"))
            .unwrap()
            .0;
        assert_eq!(text_of(inner), code, "{lang}: {html}");
    }
}

#[test]
fn long_blocks_and_unknown_languages_are_plain() {
    let hl = Highlighter::new();
    let long = "a: b\n".repeat(MAX_HIGHLIGHT_BYTES / 5 + 1);
    assert!(!hl.block("yaml", &long).contains("<span"));
    assert!(!hl.block("cobol", "MOVE A TO B.\n").contains("<span"));
    assert!(!hl.block("", "kind: Pod\n").contains("<span"));
}

/// The relative luminance of `#rrggbb` (WCAG 2).
fn luminance(hex: &str) -> f64 {
    let v = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
        if c <= 0.03928 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * v(1) + 0.7152 * v(3) + 0.0722 * v(5)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// The `#rrggbb` values of `--name` in site.css, light then dark.
fn site_colours(name: &str) -> Vec<String> {
    let site = include_str!("../../../themes/default/static/site.css");
    site.match_indices(&format!("--{name}: #"))
        .map(|(i, m)| site[i + m.len() - 1..i + m.len() + 6].to_string())
        .collect()
}

#[test]
fn every_class_has_a_colour_that_reads_in_light_and_dark() {
    let css = include_str!("../../../themes/default/static/highlight.css");
    let (light, dark) = css
        .split_once("@media (prefers-color-scheme: dark)")
        .unwrap();
    let backgrounds = [site_colours("bg"), site_colours("panel")];
    assert!(backgrounds.iter().all(|b| b.len() == 2), "{backgrounds:?}");
    assert!(contrast("#000000", "#ffffff") > 20.9);
    for (mode, rules) in [(0, light), (1, dark)] {
        for class in CLASSES {
            let rule = rules
                .split_once(&format!(".{class} {{"))
                .unwrap_or_else(|| panic!("no rule for .{class} in mode {mode}"))
                .1;
            let colour = &rule.split_once("color: ").unwrap().1[..7];
            for bg in &backgrounds {
                let ratio = contrast(colour, &bg[mode]);
                assert!(
                    ratio >= 4.5,
                    ".{class} {colour} on {}: {ratio:.2}",
                    bg[mode]
                );
            }
        }
    }
}

#[test]
fn hostile_blocks_neither_abort_nor_run_away() {
    let hl = Highlighter::new();
    // YAML's scanner would overflow its state buffer (a C assertion that
    // aborts the process) past about 250 levels; Python's past about 400
    for (lang, code) in [
        ("yaml", "- ".repeat(2000)),
        ("yaml", "? ".repeat(2000)),
        ("yaml", "a:\n".repeat(2000)),
        (
            "python",
            (0..600)
                .map(|i| format!("{}if x:\n", " ".repeat(i)))
                .collect(),
        ),
        // error recovery over long unclosed runs: bounded by the step
        // budget and the longest error
        ("bash", "$(".repeat(16_000)),
        ("go", "\"".repeat(30_000)),
        ("yaml", "{".repeat(30_000)),
        ("go", "(".repeat(30_000)),
    ] {
        let html = hl.block(lang, &code);
        assert!(!html.contains("<span"), "{lang} is shown plain");
        assert!(html.len() > code.len(), "{lang}");
    }
    // below the bounds, deep but real nesting is still highlighted
    let nested = format!("{}a: 1\n", "- ".repeat(50));
    assert!(hl.block("yaml", &nested).contains("<span"));
    let long: String = (0..400).map(|i| format!("x{i} = f(a)[{i}]\n")).collect();
    assert!(hl.block("python", &long).contains("<span"));
    // dense real code up to the size bound stays within the step budget
    let json = "[1,2,3,4,5,6,7,8,9,10],\n".repeat(2700);
    let go = "x[i] = y[j] + z(k, l) * 2;\n".repeat(2200);
    assert!(json.len() > 60_000 && go.len() > 57_000);
    assert!(hl.block("json", &json).contains("<span"));
    assert!(hl.block("go", &go).contains("<span"));
}
