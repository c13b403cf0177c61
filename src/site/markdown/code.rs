//! Code blocks: their text gathered and highlighted into CSS classes
//! (mermaid diagrams kept as text for the browser to draw).

use pulldown_cmark::{CodeBlockKind, Event, TagEnd};

use super::Stream;

impl<'a> Stream<'a, '_> {
    /// A code block opens: its language is noted and its text gathered
    /// from now on.
    pub(super) fn code_start(&mut self, kind: CodeBlockKind) {
        let lang = match kind {
            CodeBlockKind::Fenced(l) => l.split([' ', ',', '{']).next().unwrap_or("").to_string(),
            CodeBlockKind::Indented => String::new(),
        };
        self.code = Some((lang, String::new()));
    }

    /// An event inside a code block: its text gathered; at the block's end,
    /// the block as HTML.
    pub(super) fn code_event(&mut self, ev: Event<'a>) -> Option<Event<'a>> {
        match ev {
            Event::Text(t) => {
                if let Some((_, buf)) = self.code.as_mut() {
                    buf.push_str(&t);
                }
                None
            }
            Event::End(TagEnd::CodeBlock) => {
                let (lang, buf) = self.code.take()?;
                Some(Event::Html(self.code_block(&lang, &buf).into()))
            }
            _ => None,
        }
    }

    /// The HTML of a whole code block.
    fn code_block(&mut self, lang: &str, buf: &str) -> String {
        if lang.eq_ignore_ascii_case("mermaid") {
            // drawn in the browser by the theme's mermaid script,
            // shown as text until then (and without script)
            self.diagrams = true;
            return format!(
                "<pre class=\"mermaid\" data-lang=\"mermaid\" tabindex=\"0\">{}</pre>",
                crate::escape::text(buf)
            );
        }
        // a block wider than the page scrolls: keyboard users
        // reach it with Tab (axe scrollable-region-focusable)
        let html = if buf.len() <= self.code_budget {
            self.code_budget -= buf.len();
            self.hl.block(lang, buf)
        } else {
            super::super::highlight::plain(lang, buf)
        };
        html.replacen("<pre ", "<pre tabindex=\"0\" ", 1)
    }
}
