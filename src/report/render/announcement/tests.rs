use super::*;

/// A shipped row at `stage` with `step`.
fn row(stage: &str, outcome: &'static str, step: Option<&'static str>) -> Row {
    let result = match outcome {
        "deprecated" => Outcome::Deprecated { commit: None },
        _ => Outcome::Shipped { commit: None },
    };
    Row {
        tone: result.tone(),
        result,
        tracking: None,
        number: Some(4317),
        title: "Pod Certificates".into(),
        path: "keps/sig-auth/4317-pod-certificates".into(),
        url: "https://example.org/keps/4317".into(),
        issue_url: Some("https://example.org/issues/4317".into()),
        sig: "sig-auth".into(),
        status: "implementable".into(),
        current_stage: stage.into(),
        stage: stage.into(),
        outcome,
        went: None,
        landed: None,
        step,
        code: None,
        decided: None,
        summary: "Pods get certificates. The kubelet rotates them.".into(),
        feature_gates: vec!["PodCertificateRequest".into()],
        latest_milestone: "v1.35".into(),
        prr_approver: None,
        ready: true,
        label: "Shipped".into(),
        checklist: Vec::new(),
        failing: Vec::new(),
        advice: Vec::new(),
        basis: None,
        last_change: None,
        targeting_since: None,
        issue: None,
        flags: Vec::new(),
    }
}

/// Links to the portal at example.org, the repository on github.com.
fn dest() -> Dest<'static> {
    Dest {
        hosts: vec!["github.com", "example.org"],
        site: Some("https://example.org/"),
        tree: "https://github.com/k/e/tree/main/".into(),
    }
}

#[test]
fn sig_names_read_as_in_the_posts() {
    assert_eq!(sig_name("sig-node"), "SIG Node");
    assert_eq!(sig_name("sig-api-machinery"), "SIG API Machinery");
}

#[test]
fn sections_follow_outcome_step_and_stage() {
    let s = |stage, outcome, step| section_of(&row(stage, outcome, step));
    assert_eq!(s("stable", "shipped", Some("graduated")), Section::Stable);
    assert_eq!(s("beta", "shipped", Some("graduated")), Section::Beta);
    assert_eq!(s("beta", "shipped", Some("new")), Section::Beta);
    assert_eq!(s("beta", "shipped", None), Section::Beta);
    assert_eq!(s("alpha", "shipped", Some("new")), Section::Alpha);
    assert_eq!(s("beta", "shipped", Some("continued")), Section::Continuing);
    assert_eq!(
        s("alpha", "shipped", Some("continued")),
        Section::Continuing
    );
    // Withdrawn in the release: the report says deprecated, whatever the stage.
    assert_eq!(s("alpha", "deprecated", None), Section::Deprecations);
    assert_eq!(s("removed", "deprecated", None), Section::Deprecations);
    assert_eq!(
        s("deprecated", "shipped", Some("graduated")),
        Section::Deprecations
    );
}

/// Continued at stable (the report's "no stage change" with the step
/// continued) closes the stable section; a KEP removing something by its
/// title is in its stage's section and named again in the removals.
#[test]
fn stable_again_and_removals_by_title() {
    let mut k = row("", "shipped", Some("continued"));
    k.result = Outcome::LatestOnly;
    assert!(stable_again(&k));
    assert_eq!(section_of(&k), Section::Continuing);
    assert_eq!(stage_name(&k), "stable");
    assert!(!stable_again(&row("beta", "shipped", Some("continued"))));
    let mut k = row("beta", "shipped", Some("new"));
    assert!(!removes(&k));
    for t in [
        "Remove cgroup v1 support",
        "Deprecate and remove SelfLink",
        " removing dockershim",
    ] {
        k.title = t.into();
        assert!(removes(&k), "{t}");
    }
    k.title = "Pod Certificates: remove the old API".into();
    assert!(!removes(&k));
    k.title = "Remove cgroup v1 support".into();
    let mut out = String::new();
    removing_item(&mut out, &k, &dest(), true);
    assert!(
        out.starts_with(
            "- KEP-4317: Remove cgroup v1 support: beta in this release (see its stage's section), led by SIG Auth. [KEP]("
        ),
        "{out}"
    );
    let mut out = String::new();
    removing_item(&mut out, &k, &dest(), false);
    assert!(out.contains(": planned for beta (see"), "{out}");
}

#[test]
fn an_entry_names_its_gates_sig_and_links() {
    let mut out = String::new();
    item(
        &mut out,
        &row("beta", "shipped", Some("graduated")),
        &dest(),
    );
    assert_eq!(
        out,
        "### KEP-4317: Pod Certificates\n\n\
         Pods get certificates. The kubelet rotates them.\n\n\
         Feature gate: `PodCertificateRequest`.\n\n\
         This work was done as part of KEP #4317 led by SIG Auth. \
         [KEP](https://example.org/keps/4317) · [tracking issue](https://example.org/issues/4317)\n\n"
    );
    let mut out = String::new();
    continuing_item(
        &mut out,
        &row("beta", "shipped", Some("continued")),
        &dest(),
    );
    assert!(
        out.starts_with(
            "- KEP-4317: Pod Certificates: continues in beta, led by SIG Auth. \
             Feature gate: `PodCertificateRequest`. [KEP]("
        ),
        "{out}"
    );
}

/// Titles, summaries, SIGs and gate names come from KEPs: none can become
/// HTML, a Hugo shortcode or a link in the post.
#[test]
fn kep_values_cannot_inject_html_shortcodes_or_links() {
    let mut k = row("alpha", "shipped", Some("new"));
    k.title = "<script>alert(1)</script>".into();
    k.summary = "{{< shortcode >}} {{% raw %}} [link](javascript:alert(1))".into();
    k.sig = "sig-<b>{{%x%}}".into();
    k.feature_gates = vec!["Gate`<i>".into()];
    let mut out = String::new();
    item(&mut out, &k, &dest());
    continuing_item(&mut out, &k, &dest());
    for bad in ["<script", "<b>", "<i>", "{{"] {
        assert!(!out.contains(bad), "{bad} in {out}");
    }
    // The only links are the entry's own: a `](` in KEP text is escaped.
    assert!(!out.replace("\\](", "").contains("](javascript"), "{out}");
    assert!(
        out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{out}"
    );
    assert!(out.contains("[link\\](javascript:alert(1))"), "{out}");
}

/// A KEP's link is its portal page when the portal is at an https URL,
/// else its directory in the repository; a link elsewhere is not written,
/// and a hostile directory stays inside the destination.
#[test]
fn links_are_absolute_https_on_known_hosts() {
    let mut k = row("alpha", "shipped", Some("new"));
    k.path = "keps/sig-x/4872-x) <img src=x> [c](javascript:alert(1)".into();
    let no_site = Dest {
        site: None,
        ..dest()
    };
    assert_eq!(
        links(&k, &no_site),
        "[KEP](https://github.com/k/e/tree/main/keps/sig-x/4872-x%29%20%3Cimg%20src=x%3E%20%5Bc%5D%28javascript:alert%281%29) \
         · [tracking issue](https://example.org/issues/4317)"
    );
    assert!(links(&k, &dest()).starts_with("[KEP](https://example.org/keps/4317) "));
    k.url = "/keps/4317/".into();
    k.issue_url = Some("javascript:alert(1)".into());
    assert!(links(&k, &dest()).starts_with("[KEP](https://github.com/k/e/tree/main/keps/"));
    assert!(links(&k, &dest()).ends_with(" · tracking issue"));
    let nowhere = Dest {
        hosts: Vec::new(),
        ..no_site
    };
    assert_eq!(links(&k, &nowhere), "KEP · tracking issue");
}
