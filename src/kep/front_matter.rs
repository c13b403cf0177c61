//! A single-file KEP's text (`&str`) → where its metadata is ([`Found`]):
//! YAML front matter at the top (the standard form), front matter after a
//! heading, a ```` ```yaml ```` block with KEP fields, or front matter that is
//! opened and never closed.
//!
//! Authors of 2018–2019 KEPs wrote the metadata in all of these forms; the
//! non-standard ones are read (with a warning) so that no KEP vanishes.

use super::metadata::split_front_matter;

/// Where a file's metadata was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// `---` on the first line, closed by `---` or `...`.
    Standard,
    /// Front matter after a heading (`# KEP: Title`, then `---`).
    AfterHeading,
    /// A fenced `yaml` code block holding KEP fields.
    YamlBlock,
}

impl Form {
    /// How a finding names the form.
    pub fn describe(self) -> &'static str {
        match self {
            Form::Standard => "YAML front matter",
            Form::AfterHeading => "front matter after a heading",
            Form::YamlBlock => "a yaml code block",
        }
    }
}

/// Metadata found in a file, and the README body around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Located<'a> {
    /// The form it was written in.
    pub form: Form,
    /// The YAML text.
    pub yaml: &'a str,
    /// Lines of the file before `yaml`.
    pub yaml_offset: usize,
    /// 1-based line where the metadata opens (`---` or the fence).
    pub line: usize,
    /// The markdown shown as the KEP's README.
    pub body: &'a str,
    /// Lines of the file before `body`.
    pub body_offset: usize,
}

/// What [`locate`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found<'a> {
    /// Metadata in one of the forms.
    Metadata(Located<'a>),
    /// `---` on the first line and no closing line.
    Unterminated,
    /// No metadata.
    Nothing,
}

/// Top-level keys that mark YAML as KEP metadata; two are required, so a
/// thematic break or an example config block is not mistaken for it.
const KEP_KEYS: &[&str] = &[
    "kep-number",
    "title",
    "owning-sig",
    "status",
    "authors",
    "creation-date",
    "approvers",
    "reviewers",
];

/// Most heading and blank lines before front matter that starts late.
const MAX_LEAD_LINES: usize = 6;

/// Finds a file's metadata (the text has no byte-order mark).
pub fn locate(text: &str) -> Found<'_> {
    if opens_front_matter(text) {
        return match split_front_matter(text) {
            Some((fm, off, body)) => Found::Metadata(Located {
                form: Form::Standard,
                yaml: fm,
                yaml_offset: off,
                line: 1,
                body,
                body_offset: off + fm.lines().count() + 1,
            }),
            None => Found::Unterminated,
        };
    }
    after_heading(text)
        .or_else(|| yaml_block(text))
        .map_or(Found::Nothing, Found::Metadata)
}

fn opens_front_matter(text: &str) -> bool {
    text.split('\n')
        .next()
        .is_some_and(|l| l.trim_end() == "---")
}

/// Byte offset of each line start, with the line (no `\n`).
fn lines_at(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_inclusive('\n').scan(0, |pos, l| {
        let at = *pos;
        *pos += l.len();
        Some((at, l.trim_end_matches(['\n', '\r'])))
    })
}

/// `# Title` (and blank lines), then front matter with KEP keys.
fn after_heading(text: &str) -> Option<Located<'_>> {
    let mut saw_heading = false;
    for (n, (at, line)) in lines_at(text).take(MAX_LEAD_LINES + 1).enumerate() {
        let t = line.trim();
        if t.starts_with('#') {
            saw_heading = true;
        } else if t == "---" && saw_heading {
            let (fm, off, body) = split_front_matter(&text[at..])?;
            if !has_kep_keys(fm) {
                return None;
            }
            return Some(Located {
                form: Form::AfterHeading,
                yaml: fm,
                yaml_offset: n + off,
                line: n + 1,
                body,
                body_offset: n + off + fm.lines().count() + 1,
            });
        } else if !t.is_empty() {
            return None;
        }
    }
    None
}

/// The first ```` ```yaml ```` (or `yml`) block holding KEP keys; a `---`
/// first line inside it is skipped. The whole file stays the README.
fn yaml_block(text: &str) -> Option<Located<'_>> {
    let lines: Vec<(usize, &str)> = lines_at(text).collect();
    let mut n = 0;
    while n < lines.len() {
        let t = lines[n].1.trim();
        let Some(ch) = fence_char(t) else {
            n += 1;
            continue;
        };
        let info = t.trim_start_matches(ch).trim().to_ascii_lowercase();
        let close = (n + 1..lines.len())
            .find(|&k| {
                let c = lines[k].1.trim();
                fence_char(c) == Some(ch) && c.trim_start_matches(ch).is_empty()
            })
            .unwrap_or(lines.len());
        if matches!(info.as_str(), "yaml" | "yml") && close > n + 1 {
            let from = lines[n + 1].0;
            let to = lines.get(close).map_or(text.len(), |l| l.0);
            let mut yaml = &text[from..to];
            let mut offset = n + 1;
            if lines[n + 1].1.trim_end() == "---" {
                yaml = &text[lines.get(n + 2).map_or(to, |l| l.0).min(to)..to];
                offset += 1;
            }
            if has_kep_keys(yaml) {
                return Some(Located {
                    form: Form::YamlBlock,
                    yaml,
                    yaml_offset: offset,
                    line: n + 1,
                    body: text,
                    body_offset: 0,
                });
            }
        }
        n = close + 1;
    }
    None
}

/// The fence character when `t` (trimmed) opens or closes a code fence.
fn fence_char(t: &str) -> Option<char> {
    ['`', '~']
        .into_iter()
        .find(|&c| t.starts_with(&c.to_string().repeat(3)))
}

/// Whether at least two [`KEP_KEYS`] start lines of `yaml` (top level).
fn has_kep_keys(yaml: &str) -> bool {
    yaml.lines()
        .filter(|l| {
            l.split_once(':')
                .is_some_and(|(k, _)| KEP_KEYS.contains(&k.trim_end()))
        })
        .count()
        >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(text: &str) -> Located<'_> {
        match locate(text) {
            Found::Metadata(l) => l,
            other => panic!("no metadata in {text:?}: {other:?}"),
        }
    }

    #[test]
    fn standard_front_matter() {
        let l = meta("---\ntitle: A\nstatus: x\n---\n# Body\n");
        assert_eq!(l.form, Form::Standard);
        assert_eq!(
            (l.yaml, l.yaml_offset, l.line),
            ("title: A\nstatus: x\n", 1, 1)
        );
        assert_eq!((l.body, l.body_offset), ("# Body\n", 4));
    }

    #[test]
    fn front_matter_after_a_heading() {
        let text = "# KEP: A\n\n---\nkep-number: 7\ntitle: A\n---\n\n# A\ntext\n";
        let l = meta(text);
        assert_eq!(l.form, Form::AfterHeading);
        assert_eq!(
            (l.yaml, l.yaml_offset, l.line),
            ("kep-number: 7\ntitle: A\n", 3, 3)
        );
        assert_eq!((l.body, l.body_offset), ("\n# A\ntext\n", 6));
        // A thematic break after a heading, followed by prose, is not metadata.
        let prose = "# Title\n\n---\nSome text: here.\n---\n";
        assert_eq!(locate(prose), Found::Nothing);
        // Prose before the `---` means it is not leading front matter.
        assert_eq!(
            locate("# T\nintro\n---\ntitle: A\nstatus: b\n---\n"),
            Found::Nothing
        );
    }

    #[test]
    fn yaml_block_with_kep_fields() {
        let text =
            "# T\n\n## Metadata\n\n```yaml\n---\nkep-number: 15\ntitle: T\n```\n\n## Summary\n";
        let l = meta(text);
        assert_eq!(l.form, Form::YamlBlock);
        assert_eq!(
            (l.yaml, l.yaml_offset, l.line),
            ("kep-number: 15\ntitle: T\n", 6, 5)
        );
        assert_eq!((l.body, l.body_offset), (text, 0));
        // Other code blocks, and yaml blocks without KEP keys, are not metadata.
        let other = "# T\n```\ntitle: a\nstatus: b\n```\n```yaml\napiVersion: v1\nkind: Pod\n```\n";
        assert_eq!(locate(other), Found::Nothing);
        // A yaml block after a plain code block that holds a fence-like line.
        let later = "# T\n```sh\necho\n```\n```yml\ntitle: a\nstatus: b\n```\n";
        assert_eq!(meta(later).yaml_offset, 5);
    }

    #[test]
    fn unterminated_and_nothing() {
        assert_eq!(locate("---\ntitle: a\n\n# Body\n"), Found::Unterminated);
        assert_eq!(locate("---\r\ntitle: a\r\n"), Found::Unterminated);
        assert_eq!(locate("# Just a doc\n\ntext\n"), Found::Nothing);
        assert_eq!(locate(""), Found::Nothing);
    }
}
