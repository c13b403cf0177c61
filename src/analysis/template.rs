//! KEP template markdown with `<!--DIRECTIVE: required: true,stage: alpha-->`
//! markers (`&str`) → [`Template`]: which sections and PRR questions a KEP must
//! answer, and from which stage.
//!
//! The built-in table ([`builtin`]) is data, `template_default.tsv`, generated
//! from the directive template with [`Template::to_tsv`]; a test keeps the two
//! equal. It holds headings and flags only, no template prose.

mod guidance;

pub use guidance::Guidance;
pub(crate) use guidance::{Piece, sentences};

use crate::kep::document;
use serde::Serialize;

/// The stage from which the template requires a section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PrrStage {
    /// Required when the KEP targets alpha (and later).
    Alpha,
    /// Required when the KEP targets beta (and later).
    Beta,
}

impl PrrStage {
    /// Lowercase name, as written in directives.
    pub fn as_str(self) -> &'static str {
        match self {
            PrrStage::Alpha => "alpha",
            PrrStage::Beta => "beta",
        }
    }
}

/// One heading of the template and its directive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TemplateSection {
    /// Heading text as written in the template.
    pub title: String,
    /// Heading level, 1 to 6.
    pub level: u8,
    /// `required: true` in the directive; `false` when there is no directive.
    pub required: bool,
    /// `stage:` in the directive, if any.
    pub prr_stage: Option<PrrStage>,
    /// The Production Readiness Review Questionnaire heading or a heading below it.
    pub in_prr: bool,
    /// Index of the enclosing heading in [`Template::sections`].
    pub parent: Option<usize>,
    /// Title of the enclosing heading.
    pub parent_title: Option<String>,
    /// The title normalised for matching (`normalize_heading`), computed once
    /// rather than for every README.
    #[serde(skip)]
    pub norm: String,
    /// `norm` without spaces: what README headings are matched by, so
    /// `Non Goals`, `Non-Goals` and `NonGoals` agree.
    #[serde(skip)]
    pub key: String,
    /// Each sentence of a title that asks several questions
    /// (`Were upgrade and rollback tested? Was the ... path tested?`),
    /// normalised: older templates asked the first alone.
    #[serde(skip)]
    pub sentences: Vec<String>,
    /// The template's text under this heading, comments included (with its
    /// group's, for PRR questions); empty for the built-in table until
    /// [`Template::with_guidance`] is given the text.
    #[serde(skip)]
    pub guidance: Guidance,
}

/// The template's headings in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Template {
    /// Headings in template order.
    pub sections: Vec<TemplateSection>,
}

/// A `<!--DIRECTIVE ...-->` marker's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Directive {
    required: bool,
    stage: Option<PrrStage>,
}

/// The built-in template table, embedded from `template_default.tsv`.
pub fn builtin() -> Template {
    Template::from_tsv(include_str!("template_default.tsv"))
}

/// The template with each `<!--DIRECTIVE ...>` marker that lacks its `--`
/// closed on its own line: the upstream template has two, and as
/// CommonMark reads them they would hide the headings up to the next
/// `-->` (Story 1, Story 2). Only the template's own markers are mended.
fn close_directives(markdown: &str) -> String {
    let mut out = String::with_capacity(markdown.len() + 16);
    for line in markdown.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let t = body.trim();
        let open = t.strip_prefix("<!--").map(str::trim_start);
        if open.is_some_and(|o| o.starts_with("DIRECTIVE")) && !t.ends_with("-->") {
            out.push_str(body.trim_end().trim_end_matches('>'));
            out.push_str("-->");
            out.push_str(&line[body.len()..]);
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Reads the template's headings and the directive on the first non-blank line
/// after each. `None` when the text has no DIRECTIVE marker at all.
pub fn parse_directives(markdown: &str) -> Option<Template> {
    let markdown = &close_directives(markdown);
    let doc = document::parse(markdown);
    let lines: Vec<&str> = markdown.lines().collect();
    let mut any = false;
    let rows = doc.sections.iter().map(|s| {
        let directive = lines
            .get(s.line..s.end_line)
            .unwrap_or_default()
            .iter()
            .find(|l| !l.trim().is_empty())
            .and_then(|l| parse_directive(l));
        any |= directive.is_some();
        let d = directive.unwrap_or(Directive {
            required: false,
            stage: None,
        });
        (s.level, s.title.clone(), d.required, d.stage)
    });
    let template = Template::from_rows(rows);
    any.then_some(template)
}

/// Reads `<!--DIRECTIVE: required: true,stage: beta-->` tolerantly: any case,
/// missing `--`, extra spaces, unknown keys ignored.
fn parse_directive(line: &str) -> Option<Directive> {
    let t = line.trim_start().strip_prefix("<!--")?.trim_start();
    if t.len() < 9 || !t.as_bytes()[..9].eq_ignore_ascii_case(b"DIRECTIVE") {
        return None;
    }
    let body = &t[9..];
    let body = body.find("-->").map_or(body, |i| &body[..i]);
    let body = body.trim().trim_end_matches('>').trim_start_matches(':');
    let mut d = Directive {
        required: false,
        stage: None,
    };
    for part in body.split([',', ';']) {
        let Some((k, v)) = part.split_once(':') else {
            continue;
        };
        let v = v.trim().trim_matches(|c: char| !c.is_ascii_alphanumeric());
        match k.trim().to_ascii_lowercase().as_str() {
            "required" => d.required = v.eq_ignore_ascii_case("true") || v == "yes",
            "stage" => d.stage = parse_stage(v),
            _ => {}
        }
    }
    Some(d)
}

fn parse_stage(v: &str) -> Option<PrrStage> {
    match v.trim().to_ascii_lowercase().as_str() {
        "alpha" => Some(PrrStage::Alpha),
        "beta" => Some(PrrStage::Beta),
        _ => None,
    }
}

const PRR_HEADING: &str = "production readiness review questionnaire";

impl Template {
    /// Builds the tree (parents, PRR membership) from `(level, title, required,
    /// stage)` rows in order.
    fn from_rows(rows: impl Iterator<Item = (u8, String, bool, Option<PrrStage>)>) -> Template {
        let mut sections: Vec<TemplateSection> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        for (level, title, required, prr_stage) in rows {
            while stack.last().is_some_and(|&i| sections[i].level >= level) {
                stack.pop();
            }
            let parent = stack.last().copied();
            let norm = normalize_heading(&title);
            let in_prr = norm == PRR_HEADING || parent.is_some_and(|p| sections[p].in_prr);
            stack.push(sections.len());
            let asked: Vec<&str> = title
                .split_inclusive('?')
                .filter(|q| q.contains('?'))
                .collect();
            let sentences = if asked.len() > 1 {
                asked.iter().map(|q| normalize_heading(q)).collect()
            } else {
                Vec::new()
            };
            sections.push(TemplateSection {
                sentences,
                guidance: Guidance::default(),
                parent_title: parent.map(|p| sections[p].title.clone()),
                title,
                level,
                required,
                prr_stage,
                in_prr,
                parent,
                key: norm.replace(' ', ""),
                norm,
            });
        }
        Template { sections }
    }

    /// Reads the `template_default.tsv` format: `level<TAB>title<TAB>required<TAB>stage`
    /// (stage `alpha`, `beta` or `-`), `#` comment lines. Rows that do not parse are skipped.
    pub fn from_tsv(tsv: &str) -> Template {
        let rows = tsv.lines().filter_map(|line| {
            if line.starts_with('#') || line.trim().is_empty() {
                return None;
            }
            let mut f = line.split('\t');
            let level: u8 = f
                .next()?
                .trim()
                .parse()
                .ok()
                .filter(|l| (1..=6).contains(l))?;
            let title = f.next()?.trim().to_string();
            let required = f.next().is_some_and(|r| r.trim() == "true");
            let stage = f.next().and_then(parse_stage);
            Some((level, title, required, stage))
        });
        Template::from_rows(rows)
    }

    /// Writes the `template_default.tsv` format (see [`Template::from_tsv`]).
    pub fn to_tsv(&self) -> String {
        let mut out = String::from(
            "# KEP template headings: level, title, required, stage (from the DIRECTIVE markers)\n",
        );
        for s in &self.sections {
            let stage = s.prr_stage.map_or("-", PrrStage::as_str);
            out.push_str(&format!(
                "{}\t{}\t{}\t{stage}\n",
                s.level, s.title, s.required
            ));
        }
        out
    }

    /// The same template with each section's guidance read from `markdown`,
    /// the template README (its own headings matched in order by key): what a
    /// KEP author finds under each heading, comments included.
    pub fn with_guidance(mut self, markdown: &str) -> Template {
        let markdown = &close_directives(markdown);
        let doc = document::parse(markdown);
        let lines: Vec<&str> = markdown.lines().collect();
        let mut next = 0;
        for ts in &mut self.sections {
            let Some(at) = (next..doc.sections.len())
                .find(|&i| normalize_heading(&doc.sections[i].title).replace(' ', "") == ts.key)
            else {
                continue;
            };
            next = at + 1;
            let s = &doc.sections[at];
            let text = lines.get(s.line..s.end_line).unwrap_or_default().join("\n");
            ts.guidance = Guidance::new(&text);
        }
        for i in self.prr_questions() {
            if let Some(p) = self.sections[i].parent {
                let group = self.sections[p].guidance.clone();
                self.sections[i].guidance.extend(&group);
            }
        }
        self
    }

    /// Indices of the PRR questions: headings in the questionnaire with no
    /// headings below them (the `######` questions, not their `###` groups).
    pub fn prr_questions(&self) -> Vec<usize> {
        // the parents marked in one pass: asking of each section whether
        // any has it as parent read the template once per section, for
        // every README
        let mut parent = vec![false; self.sections.len()];
        for p in self.sections.iter().filter_map(|s| s.parent) {
            if let Some(is) = parent.get_mut(p) {
                *is = true;
            }
        }
        (0..self.sections.len())
            .filter(|&i| self.sections[i].in_prr && !parent[i])
            .collect()
    }
}

/// The template to assess READMEs against, from the repository's template
/// README (`readme`): the README itself when it carries DIRECTIVE markers
/// (source `repository`), else the built-in table (`builtin`); either way
/// with the README's guidance text, when there is a README.
pub fn for_repository(readme: Option<&str>) -> (Template, &'static str) {
    let (template, source) = match readme.and_then(parse_directives) {
        Some(t) => (t, "repository"),
        None => (builtin(), "builtin"),
    };
    match readme {
        Some(text) => (template.with_guidance(text), source),
        None => (template, source),
    }
}

/// Heading text for matching: lowercase, `&` read as `and`, `(optional)` and
/// leading numbering (`3.2`) dropped, punctuation turned into spaces, spaces
/// collapsed.
pub fn normalize_heading(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    let space = |out: &mut String| {
        if !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
    };
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let mut n = c.len_utf8();
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if c == '&' {
            space(&mut out);
            out.push_str("and ");
        } else {
            if c == '('
                && rest
                    .get(..10)
                    .is_some_and(|p| p.eq_ignore_ascii_case("(optional)"))
            {
                n = 10;
            }
            space(&mut out);
        }
        rest = &rest[n..];
    }
    if out.ends_with(' ') {
        out.pop();
    }
    // Leading numbering: "3 2 risks" from "3.2 Risks".
    let mut start = 0;
    for word in out.split(' ') {
        if !word.bytes().all(|b| b.is_ascii_digit()) || start >= out.len() {
            break;
        }
        start += word.len() + 1;
    }
    out.drain(..start.min(out.len()));
    out
}

#[cfg(test)]
mod tests;
