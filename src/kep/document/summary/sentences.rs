//! Plain text → its first sentences. A sentence ends at `.`, `!` or `?`
//! (and the closing quotes after it) followed by a space and a word that
//! does not start in lower case; never inside parentheses or brackets, nor
//! after an abbreviation (`e.g.`, `i.e.`, `etc.`, `vs.`) or a version
//! number (`v1.2.`, `1.22.`).

/// Sentences of a KEP's Summary the draft quotes, at most.
pub const SENTENCES: usize = 3;
/// A bound on the quote's length in bytes: fewer sentences when three are
/// longer, a cut at a word (outside parentheses, with `…`) when one is.
pub const MAX_CHARS: usize = 480;

/// Words ending in `.` that end no sentence (lower case).
const ABBREVIATIONS: &[&str] = &[
    "e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "incl.", "resp.", "al.", "fig.", "no.", "mr.",
    "mrs.", "ms.", "dr.", "st.", "eg.", "ie.",
];

/// Byte offsets just after each sentence's end, and the offsets of the
/// spaces outside parentheses (where a too long sentence may be cut).
fn scan(text: &str) -> (Vec<usize>, Vec<usize>) {
    let mut ends = Vec::new();
    let mut breaks = Vec::new();
    let mut depth = 0usize;
    let mut word_start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() => {
                word_start = i + c.len_utf8();
                if depth == 0 {
                    breaks.push(i);
                }
            }
            '.' | '!' | '?' if depth == 0 => {
                let after = i + 1;
                let rest = &text[after..];
                let closing = rest.len() - rest.trim_start_matches(['"', '\'', '”', '’']).len();
                let end = after + closing;
                if ends_sentence(&text[word_start..after], &text[end..]) {
                    ends.push(end);
                }
            }
            _ => {}
        }
    }
    (ends, breaks)
}

/// Whether `word` (ending in the punctuation) ends a sentence, `rest` the
/// text after it and its closing quotes.
fn ends_sentence(word: &str, rest: &str) -> bool {
    let mut next = rest.chars();
    match next.next() {
        None => return true,
        Some(c) if !c.is_whitespace() => return false,
        Some(_) => {}
    }
    if next
        .find(|c| !c.is_whitespace())
        .is_some_and(char::is_lowercase)
    {
        return false;
    }
    if !word.ends_with('.') {
        return true;
    }
    let w = word
        .trim_start_matches(['(', '[', '"', '\'', '“', '‘'])
        .to_lowercase();
    !(ABBREVIATIONS.contains(&w.as_str()) || is_version(&w))
}

/// `v1.2.`, `1.22.`, `v1.`: a version number and the dot after it (a lone
/// number only when written `vN`).
fn is_version(w: &str) -> bool {
    let w = w.strip_suffix('.').unwrap_or(w);
    let (v, n) = match w.strip_prefix('v') {
        Some(n) => (true, n),
        None => (false, w),
    };
    !n.is_empty()
        && (v || n.contains('.'))
        && n.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The first two or three sentences of plain `text` (one when even two are
/// over [`MAX_CHARS`]); a sentence over the bound is cut at a space outside
/// parentheses, with `…`.
pub fn first_sentences(text: &str) -> String {
    let text = text.trim();
    let (ends, breaks) = scan(text);
    // All of a text with fewer sentences (its tail without a full stop
    // too), else three, two or one sentences, the most within the bound.
    let all = (ends.len() < SENTENCES).then_some(text.len());
    let some = ends.iter().take(SENTENCES).rev().copied();
    if let Some(end) = all.into_iter().chain(some).find(|&e| e <= MAX_CHARS) {
        return text[..end].trim_end().to_string();
    }
    let cut = breaks
        .iter()
        .rev()
        .copied()
        .find(|&b| b <= MAX_CHARS)
        .unwrap_or_else(|| {
            (0..=MAX_CHARS)
                .rev()
                .find(|&i| text.is_char_boundary(i))
                .unwrap_or(0)
        });
    format!("{}…", text[..cut].trim_end())
}
