//! The bounds on the work html5ever is given (see [`Budget`]): the number
//! of tokens times the nesting depth, and the attributes of any one tag,
//! counted in one pass as an HTML tokenizer would read them.

use super::Budget;

/// At most this many attributes in any tag (by [`max_attributes`]).
const MAX_ATTRIBUTES: usize = 256;

/// At most this many tree-builder steps: tokens times nesting depth.
const MAX_STEPS: usize = 400_000_000;

/// Whether html5ever's work on `html` stays within bounds: no tag with more
/// than [`MAX_ATTRIBUTES`] attributes, and tokens times depth at most
/// [`MAX_STEPS`].
pub(super) fn within_budget(html: &str, budget: &Budget) -> bool {
    let tokens = 1 + html
        .bytes()
        .filter(|b| matches!(b, b'<' | b'&' | b'\n'))
        .count();
    tokens.saturating_mul(budget.depth + 1) <= MAX_STEPS
        && max_attributes(html.as_bytes(), MAX_ATTRIBUTES) <= MAX_ATTRIBUTES
}

/// The states of the HTML tokenizer inside a tag (WHATWG 13.2.5.8–13.2.5.40).
#[derive(Clone, Copy)]
enum In {
    TagName,
    BeforeName,
    Name,
    AfterName,
    BeforeValue,
    Double,
    Single,
    Unquoted,
    AfterQuoted,
    SelfClosing,
}

const STATES: usize = 10;

/// An upper bound on the number of attributes of any tag as an HTML
/// tokenizer reads `s`, in one pass (stops counting once past `limit`).
///
/// The tokenizer may be outside any tag (text, comments, raw text), so every
/// `<` followed by a letter may start one: each such start is followed as a
/// hypothesis through the tag states, and hypotheses in the same state are
/// merged keeping the larger count. The real tokenizer's tag is always one of
/// the hypotheses, so its count is never more than the one returned.
fn max_attributes(s: &[u8], limit: usize) -> usize {
    count_attributes(s, limit, true)
}

/// [`max_attributes`]; `one_fast` steps a lone hypothesis on its own (the
/// tests compare it with the general step).
fn count_attributes(s: &[u8], limit: usize, one_fast: bool) -> usize {
    // each live state's count; `live` has bit `i` set when state `i` is
    // (a byte's step touches only the live states: this runs on every
    // README with raw HTML)
    let mut counts = [0usize; STATES];
    let mut live: u16 = 0;
    let mut max = 0;
    let mut i = 0;
    while i < s.len() {
        if live == 0 {
            match s[i..].iter().position(|&b| b == b'<') {
                Some(at) => i += at,
                None => break,
            }
        }
        let c = s[i];
        // a tag name starts after `<` or `</` when a letter follows
        let opens = match c {
            b'<' => true,
            b'/' => i > 0 && s[i - 1] == b'<',
            _ => false,
        } && s.get(i + 1).is_some_and(u8::is_ascii_alphabetic);
        if one_fast && live.count_ones() == 1 {
            // one hypothesis (most bytes in tags): stepped without the
            // arrays; the counts of states not live are never read
            let state = live.trailing_zeros() as usize;
            live = match step(state_of(state), c, counts[state]) {
                Some((to, n)) => {
                    counts[to as usize] = n;
                    max = max.max(n);
                    1 << to as usize
                }
                None => 0,
            };
            if opens && live & (1 << In::TagName as usize) == 0 {
                counts[In::TagName as usize] = 0;
                live |= 1 << In::TagName as usize;
            }
            if max > limit {
                return max;
            }
            i += 1;
            continue;
        }
        let mut next = [0usize; STATES];
        let mut next_live: u16 = 0;
        let mut bits = live;
        while bits != 0 {
            let state = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if let Some((to, n)) = step(state_of(state), c, counts[state]) {
                // a state not yet live holds 0, below any count
                next[to as usize] = next[to as usize].max(n);
                next_live |= 1 << to as usize;
                max = max.max(n);
            }
        }
        if opens {
            // a new tag starts with no attributes; one already live keeps its count
            next_live |= 1 << In::TagName as usize;
        }
        counts = next;
        live = next_live;
        if max > limit {
            return max;
        }
        i += 1;
    }
    max
}

fn state_of(i: usize) -> In {
    [
        In::TagName,
        In::BeforeName,
        In::Name,
        In::AfterName,
        In::BeforeValue,
        In::Double,
        In::Single,
        In::Unquoted,
        In::AfterQuoted,
        In::SelfClosing,
    ][i]
}

/// One character in a tag: the next state and attribute count, `None` when
/// the tag ends.
fn step(state: In, c: u8, n: usize) -> Option<(In, usize)> {
    let ws = matches!(c, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ');
    Some(match state {
        In::TagName | In::Unquoted if ws => (In::BeforeName, n),
        In::TagName if c == b'/' => (In::SelfClosing, n),
        In::TagName | In::Unquoted => match c {
            b'>' => return None,
            _ => (state, n),
        },
        In::BeforeName | In::AfterName if ws => (state, n),
        In::BeforeName | In::AfterName | In::Name | In::AfterQuoted | In::SelfClosing
            if c == b'/' =>
        {
            (In::SelfClosing, n)
        }
        In::BeforeName
        | In::AfterName
        | In::Name
        | In::BeforeValue
        | In::AfterQuoted
        | In::SelfClosing
            if c == b'>' =>
        {
            return None;
        }
        In::Name if ws => (In::AfterName, n),
        In::Name | In::AfterName if c == b'=' => (In::BeforeValue, n),
        In::Name => (In::Name, n),
        In::BeforeName | In::AfterName | In::SelfClosing => (In::Name, n + 1),
        In::AfterQuoted if ws => (In::BeforeName, n),
        In::AfterQuoted => (In::Name, n + 1),
        In::BeforeValue if ws => (In::BeforeValue, n),
        In::BeforeValue => match c {
            b'"' => (In::Double, n),
            b'\'' => (In::Single, n),
            _ => (In::Unquoted, n),
        },
        In::Double if c == b'"' => (In::AfterQuoted, n),
        In::Single if c == b'\'' => (In::AfterQuoted, n),
        In::Double | In::Single => (state, n),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_bound_follows_the_tokenizer() {
        assert_eq!(max_attributes(b"<a b c d>", 99), 3);
        assert_eq!(max_attributes(b"<a b='x y z' c=\"1 2\"d>", 99), 3);
        assert_eq!(max_attributes(b"text <b>x</b> more", 99), 0);
        // a quoted `>` does not end the tag
        assert_eq!(max_attributes(b"<a x='>' y='>' z>", 99), 3);
        // `<` inside a tag may start another: both are followed
        assert!(max_attributes(b"<!-- <a b c d -->", 99) >= 3);
        let many = "<div ".to_string() + &"a1 ".repeat(1000) + ">";
        assert!(max_attributes(many.as_bytes(), 256) > 256);
        // utf-8 everywhere, never a panic
        assert_eq!(max_attributes("<a title=\"&aaaaé\" é=1>".as_bytes(), 99), 2);
    }

    #[test]
    fn a_lone_hypothesis_is_stepped_as_the_general_step_would() {
        // every short string of a tag's characters (a fixed xorshift sequence)
        let alphabet = b"<a/ =\"'>\nb";
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut differing = 0;
        for _ in 0..20_000 {
            let len = (next() % 48) as usize;
            let s: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            for limit in [2, 99] {
                if count_attributes(&s, limit, true) != count_attributes(&s, limit, false) {
                    differing += 1;
                    eprintln!("{:?}", String::from_utf8_lossy(&s));
                }
            }
        }
        assert_eq!(differing, 0);
    }
}
