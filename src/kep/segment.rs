//! Values that become a path of the site: a SIG name (`/sigs/<sig>/`) and a
//! GitHub handle (`/people/<handle>/`, `/prr/<handle>/`). One rule decides,
//! for `check` (a finding with the file and line) and for `build` (no page
//! for a value that fails, shown as text), so that what `check` passes
//! `build` builds.

/// Why a SIG name cannot name a directory of the site, if it cannot: 1 to
/// 64 characters of lowercase ASCII letters, digits and `-`, starting with
/// a letter or digit (`sig-node`, `wg-batch`, `committee-steering`).
pub fn sig_problem(sig: &str) -> Option<&'static str> {
    if sig.is_empty() {
        return Some("is empty");
    }
    if sig.len() > 64 {
        return Some("is longer than 64 characters");
    }
    if !sig
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return Some("has characters other than lowercase letters, digits and `-`");
    }
    if sig.starts_with('-') {
        return Some("starts with `-`");
    }
    None
}

/// Whether a SIG name can name a directory of the site.
pub fn is_sig(sig: &str) -> bool {
    sig_problem(sig).is_none()
}

/// Why a handle (without `@`, see [`crate::kep::prr::handle`]) is not a
/// GitHub login, if it is not: 1 to 39 characters of ASCII letters, digits,
/// `-` (GitHub's rule) and `_` (bots), starting with a letter or digit.
pub fn handle_problem(h: &str) -> Option<&'static str> {
    if h.is_empty() {
        return Some("is empty");
    }
    if h.len() > 39 {
        return Some("is longer than GitHub's 39 characters");
    }
    if !h
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Some("has characters a GitHub login cannot have");
    }
    if !h.as_bytes()[0].is_ascii_alphanumeric() {
        return Some("does not start with a letter or digit");
    }
    None
}

/// Whether a handle is a GitHub login that can have a page: one
/// [`handle_problem`] passes, and not a placeholder (`TBD`, `none`).
pub fn is_login(h: &str) -> bool {
    handle_problem(h).is_none()
        && !matches!(
            h.to_ascii_lowercase().as_str(),
            "tbd" | "tba" | "todo" | "none"
        )
}

/// The handles of one role of one KEP that get pages and queue entries:
/// the first [`max_handles`] of the role. The rest are shown as text on the
/// KEP's page (`check` reports `handles-too-many`), so that the site grows
/// with the input, not with its product (106 KEPs each naming the same
/// 1,000 PRR approvers made a 431 MB site at 4 GB of memory).
pub fn max_handles(role: &str) -> usize {
    match role {
        // One PRR approver per stage.
        "prr-approvers" => 3,
        // The real corpus: at most 27 reviewers, 8 authors, 8 approvers.
        _ => 30,
    }
}

/// The first [`max_handles`]`(role)` of `list`.
pub fn capped<'a>(role: &str, list: &'a [String]) -> &'a [String] {
    &list[..list.len().min(max_handles(role))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sigs_and_handles_are_bounded_path_segments() {
        for s in [
            "sig-node",
            "wg-batch",
            "committee-steering",
            "sig-k8s-infra",
        ] {
            assert!(is_sig(s), "{s}");
        }
        for s in [
            "",
            ".",
            "..",
            "sig/node",
            "Sig-Node",
            "-x",
            &"s".repeat(65),
            "sig node",
        ] {
            assert!(!is_sig(s), "{s:?}");
        }
        for h in ["deads2k", "k8s-ci-robot", "a", &"a".repeat(39), "some_bot"] {
            assert!(is_login(h), "{h}");
        }
        for h in [
            "",
            ".",
            "..",
            "jane.doe",
            &"a".repeat(40),
            "a/b",
            "-x",
            "tbd",
            "“x”",
        ] {
            assert!(!is_login(h), "{h:?}");
        }
    }
}
