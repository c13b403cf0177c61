use super::*;
use crate::kep::document::parse;

fn summary_section(md: &str) -> String {
    parse(md).summary
}

fn blurb(md: &str) -> String {
    first_sentences(&plain_text(md))
}

#[test]
fn the_summary_section_is_the_text_under_its_heading() {
    let md = "# KEP\n\n## Summary\n\nShort text.\n\n## Motivation\n\nWhy.\n";
    assert_eq!(summary_section(md), "Short text.");
    assert_eq!(summary_section("# none\n"), "");
}

#[test]
fn summary_headings_are_summary_summary_and_motivation_or_abstract() {
    for yes in [
        "Summary",
        "summary:",
        "1. Summary",
        "Summary and Motivation",
        "Summary & Motivation",
        "Abstract",
    ] {
        assert!(is_summary_heading(yes), "{yes}");
    }
    for no in ["Summary of Changes needed", "Motivation", "Summaryish", ""] {
        assert!(!is_summary_heading(no), "{no}");
    }
}

/// The shape of a README whose Summary is titled "Summary and Motivation"
/// (KEP-4317's): a table of contents and a checklist come first, the
/// Summary holds a list, and `## Motivation` follows.
#[test]
fn a_summary_and_motivation_heading_is_the_summary() {
    let md = "# KEP-9: Widgets\n\n<!-- toc -->\n- [Summary and Motivation](#summary-and-motivation)\n\
              <!-- /toc -->\n\n## Release Signoff Checklist\n\n- [ ] (R) Done\n\n\
              ## Summary and Motivation\n\nWidgets are hard to get. This KEP adds two things:\n\
              * A Widget API type, like Gadget.\n* A widget volume.\n\
              Together they ship widgets.\n\n## Motivation\n\nWhy.\n";
    assert_eq!(
        blurb(&summary_section(md)),
        "Widgets are hard to get. This KEP adds two things: A Widget API type, like Gadget. \
         A widget volume."
    );
}

#[test]
fn a_code_fence_comment_does_not_end_the_summary() {
    let md = "## Summary\n\n```sh\n# not a heading\n```\n\nIt runs. It stops.\n\n## Next\n";
    assert_eq!(blurb(&summary_section(md)), "It runs. It stops.");
}

#[test]
fn a_summary_split_into_subsections_keeps_their_text_not_their_titles() {
    let md = "## Summary\n\n### Overview\n\nFirst. Second.\n\n## Motivation\n\nNo.\n";
    assert_eq!(blurb(&summary_section(md)), "First. Second.");
}

#[test]
fn a_blurb_is_the_first_sentences_in_plain_text() {
    let md = "<!--\nThis section is incredibly important.\n-->\n\nThis KEP adds **user\nnamespaces** to [pods](https://x). It maps IDs. It is safe. It is fast.\n\n![img](a.png)\n";
    assert_eq!(
        blurb(md),
        "This KEP adds user namespaces to pods. It maps IDs. It is safe."
    );
    let long = "word ".repeat(200);
    assert!(blurb(&long).ends_with('…'));
    assert!(blurb(&long).len() <= MAX_CHARS + 4);
}

#[test]
fn sentences_are_not_cut_inside_parentheses() {
    let md = "Pods get IDs (i.e. Numbers. Not names.) from the node. They keep them \
              (e.g. Across restarts!). They stop. They go.";
    assert_eq!(
        blurb(md),
        "Pods get IDs (i.e. Numbers. Not names.) from the node. They keep them \
         (e.g. Across restarts!). They stop."
    );
}

#[test]
fn sentences_are_not_cut_after_abbreviations_or_versions() {
    let md = "Tools, e.g. Kubectl, vs. Helm etc. Are used. Since v1.2. Kubelet reads it, \
              as in 1.22. Fine. Third one. Fourth one.";
    assert_eq!(
        blurb(md),
        "Tools, e.g. Kubectl, vs. Helm etc. Are used. Since v1.2. Kubelet reads it, \
         as in 1.22. Fine. Third one."
    );
    // A word in lower case after the dot continues the sentence.
    assert_eq!(
        blurb("It is approx. ten. Two. Three. Four."),
        "It is approx. ten. Two. Three."
    );
    assert_eq!(blurb("v1.2 is out. Next"), "v1.2 is out. Next");
}

#[test]
fn the_plain_text_has_no_escapes_entities_footnotes_or_comments() {
    let md = "Discussed in \\#4931 \\& [kubernetes/x\\#12](https://x) with A &amp; B\\[^1\\]. \
              Gangs[^2] run <!-- hidden --> now<br/>. Code `[^a-z]` stays.\n\n\
              [^2]: A footnote.\n";
    assert_eq!(
        blurb(md),
        "Discussed in #4931 & kubernetes/x#12 with A & B. Gangs run now. Code [^a-z] stays."
    );
    assert_eq!(plain_text("&lt;b&gt; &#35;1 &nbsp;x"), "<b> #1 x");
}

#[test]
fn a_long_first_sentence_is_cut_outside_parentheses() {
    let inner = "x ".repeat(300);
    let md = format!("Short start ({inner}) tail.");
    assert_eq!(blurb(&md), "Short start…");
    let two = format!("One. {}end.", "Y ".repeat(250));
    assert_eq!(blurb(&two), "One.");
}
