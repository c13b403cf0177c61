//! The plain text of a README, for the search index and the summary.

use pulldown_cmark::{Event, Tag, TagEnd};

/// The plain text of the whole document and of its `Summary` section, from
/// the events as they pass.
#[derive(Default)]
pub(super) struct TextOf {
    pub(super) summary: String,
    pub(super) text: String,
    in_summary: bool,
    /// The text of the heading being read.
    heading: Option<String>,
}

impl TextOf {
    pub(super) fn see(&mut self, ev: &Event) {
        match ev {
            Event::Start(Tag::Heading { .. }) => self.heading = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(h) = self.heading.take() {
                    self.in_summary = h.trim().eq_ignore_ascii_case("summary");
                    self.text.push_str(&h);
                    self.text.push('\n');
                }
            }
            Event::Text(t) | Event::Code(t) => match self.heading.as_mut() {
                Some(h) => h.push_str(t),
                None => {
                    self.text.push_str(t);
                    if self.in_summary {
                        self.summary.push_str(t);
                    }
                }
            },
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph | TagEnd::Item) => {
                self.text.push(' ');
                if self.in_summary {
                    self.summary.push(' ');
                }
            }
            _ => {}
        }
    }
}
