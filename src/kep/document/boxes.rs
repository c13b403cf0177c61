//! Checkboxes: task-list items (`- [x] text`), and the boxes KEP authors
//! write at the start of a line without a list marker (`[x] I/we
//! understand ...`, as the KEP template writes the Test Plan's): GitHub
//! shows those as text, and the release team reads them as boxes.

use pulldown_cmark::{Event, Tag, TagEnd};

use super::Task;

/// Reads the boxes from the parser's events.
#[derive(Default)]
pub(super) struct Boxes {
    /// The text at the start of the current line, while it may still open
    /// a box, and the line's offset.
    pending: Option<(usize, String)>,
    /// The box being read: its text runs to the end of its paragraph or
    /// item, or to the next box.
    open: Option<Task>,
    pub(super) found: Vec<Task>,
}

impl Boxes {
    /// One event at `range` of the text; `line_of` gives a byte's line.
    pub(super) fn see(
        &mut self,
        ev: &Event<'_>,
        range: &std::ops::Range<usize>,
        line_of: &dyn Fn(usize) -> usize,
    ) {
        match ev {
            Event::Start(Tag::Paragraph | Tag::Item) => {
                self.close();
                self.pending = Some((range.start, String::new()));
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(t) = self.open.as_mut() {
                    t.text.push(' ');
                }
                // the next line begins where the break ends
                self.pending = Some((range.end, String::new()));
            }
            Event::TaskListMarker(checked) => {
                self.close();
                self.pending = None;
                self.open = Some(Task {
                    checked: *checked,
                    line: line_of(range.start),
                    text: String::new(),
                });
            }
            Event::Text(t) | Event::Code(t) => self.text(t, line_of),
            Event::End(TagEnd::Paragraph | TagEnd::Item) | Event::Start(Tag::List(_)) => {
                self.close();
                self.pending = None;
            }
            _ => {}
        }
    }

    fn text(&mut self, t: &str, line_of: &dyn Fn(usize) -> usize) {
        let Some((line, mut start)) = self.pending.take() else {
            return self.append(t);
        };
        // the line so far, copied only while it may still open a box
        // (most lines' first text decides without a copy)
        if !start.is_empty() {
            start.push_str(t);
        }
        let head = if start.is_empty() { t } else { start.as_str() };
        let s = head.trim_start();
        if s.is_empty() {
            self.pending = Some((line, start));
            return;
        }
        if !s.starts_with('[') {
            return self.append(head);
        }
        match s.find(']') {
            Some(end) => match box_state(&s[1..end]) {
                Some(checked) => {
                    let text = s[end + 1..].to_string();
                    self.close();
                    self.open = Some(Task {
                        checked,
                        line: line_of(line),
                        text,
                    });
                }
                None => self.append(head),
            },
            // `[` and `x` come as events of their own: wait for the `]`
            None if s.len() < 8 => self.pending = Some((line, head.to_string())),
            None => {}
        }
    }

    /// Text of the box being read, if one is.
    fn append(&mut self, t: &str) {
        if let Some(open) = self.open.as_mut() {
            open.text.push_str(t);
        }
    }

    fn close(&mut self) {
        if let Some(mut t) = self.open.take() {
            t.text = super::collapse(&t.text);
            self.found.push(t);
        }
    }

    pub(super) fn finish(mut self) -> Vec<Task> {
        self.close();
        self.found
    }
}

/// `x` / ` x ` / `X` → checked, `` / ` ` → unchecked.
fn box_state(inside: &str) -> Option<bool> {
    match inside.trim() {
        "x" | "X" => Some(true),
        "" => Some(false),
        _ => None,
    }
}
