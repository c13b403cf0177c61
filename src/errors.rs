//! How an error is said to people, in one place: the `kepsite` binary's
//! `error:` lines and every warning that carries an error read the cause
//! chain through [`causes`].

/// The error's cause chain for people: libgit2's messages without their
/// class and code numbers, and a cause already said by the line above it
/// left out.
pub fn causes(err: &anyhow::Error) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for cause in err.chain() {
        let line = match cause.downcast_ref::<git2::Error>() {
            Some(g) => g.message().to_string(),
            None => cause.to_string(),
        };
        if out.last().is_some_and(|prev| prev.contains(&line)) {
            continue;
        }
        out.push(line);
    }
    out
}

/// [`causes`] on one line, for a warning: `reading X: no such file`.
pub fn one_line(err: &anyhow::Error) -> String {
    causes(err).join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::Context;

    #[test]
    fn a_cause_said_above_is_not_repeated() {
        let e = Err::<(), _>(anyhow::anyhow!("no such file"))
            .context("reading x: no such file")
            .context("loading the repository")
            .unwrap_err();
        assert_eq!(
            causes(&e),
            ["loading the repository", "reading x: no such file"]
        );
        assert_eq!(
            one_line(&e),
            "loading the repository: reading x: no such file"
        );
        let git = anyhow::Error::new(git2::Error::from_str("revspec 'nope' not found"));
        assert_eq!(one_line(&git), "revspec 'nope' not found");
    }
}
