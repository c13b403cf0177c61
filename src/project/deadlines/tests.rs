//! A freeze deadline's revision is read with the READMEs of the KEPs in
//! the release there and of the KEPs their questionnaires hand over to;
//! the others stay unread.

use super::model_at_deadline;
use crate::analysis::{deadline::in_release_at_deadline, unread_delegates};
use crate::kep::Kep;
use crate::kep::domain::Release;
use crate::project::Input;
use crate::repo::git_repository;

/// An implementable KEP's kep.yaml at `stage` in `milestone`.
fn yaml(number: u32, milestone: &str, stage: &str) -> String {
    format!(
        "title: KEP {number}\nkep-number: {number}\nowning-sig: sig-a\nstatus: implementable\n\
         stage: {stage}\nlatest-milestone: \"{milestone}\"\nmilestone:\n  {stage}: \"{milestone}\"\n"
    )
}

/// A README whose questionnaire says `body`.
fn readme(body: &str) -> String {
    format!("# KEP\n\n## Summary\n\nS.\n\n## Production Readiness Review Questionnaire\n\n{body}\n")
}

#[test]
fn a_questionnaire_handed_over_outside_the_release_is_read_at_the_deadline() {
    let (y100, y200) = (yaml(100, "v1.40", "alpha"), yaml(200, "v1.30", "stable"));
    let (y300, y400) = (yaml(300, "v1.30", "stable"), yaml(400, "v1.40", "beta"));
    let r100 = readme("Answered in KEP-200's: https://kep.k8s.io/200");
    let r200 = readme("### Feature Enablement and Rollback\n\nA gate.");
    let r400 = readme("### Feature Enablement and Rollback\n\nIts own.");
    let files: &[(&str, &str)] = &[
        ("keps/sig-a/100-handing/kep.yaml", &y100),
        ("keps/sig-a/100-handing/README.md", &r100),
        ("keps/sig-a/200-outside/kep.yaml", &y200),
        ("keps/sig-a/200-outside/README.md", &r200),
        ("keps/sig-a/300-other/kep.yaml", &y300),
        ("keps/sig-a/300-other/README.md", "# Other\n"),
        ("keps/sig-a/400-own/kep.yaml", &y400),
        ("keps/sig-a/400-own/README.md", &r400),
    ];
    let dir = git_repository(&[files]);
    let today = Input::at(dir.path()).model().unwrap();
    let at = Input::at(dir.path()).rev("HEAD");
    let release = Release::new(1, 40);
    let in_release = move |k: &Kep| in_release_at_deadline(k, release);

    // the release's READMEs alone leave 200's unread, and say so
    let first = at.model_knowing(Some(&today), Some(&in_release)).unwrap();
    let read = |m: &crate::model::Model, n: u32| m.kep(n).unwrap().readme.is_read();
    assert!(read(&first, 100) && read(&first, 400) && !read(&first, 200));
    assert_eq!(unread_delegates(&first, &in_release), [200]);

    let m = model_at_deadline(&at, &today, release).unwrap();
    assert!(read(&m, 100) && read(&m, 400), "in the release");
    assert!(read(&m, 200), "100 hands its questionnaire over to it");
    assert!(!read(&m, 300), "outside the release, and no one's delegate");
    assert!(unread_delegates(&m, &in_release).is_empty());
    // the delegate's README is the revision's text
    assert_eq!(m.kep(200).unwrap().readme_text(), r200);
}

#[test]
fn a_deadline_takes_todays_sigs_yaml() {
    let y = yaml(100, "v1.40", "alpha");
    let group = |dir: &str| format!("sigs:\n- dir: {dir}\n  name: A\n");
    let (a, b) = (group("sig-a"), group("sig-b"));
    let files: &[(&str, &str)] = &[
        ("keps/sig-a/100-a/kep.yaml", &y),
        ("sigs-a.yaml", &a),
        ("sigs-b.yaml", &b),
    ];
    let dir = git_repository(&[files]);
    let today = Input::at(dir.path())
        .sigs(dir.path().join("sigs-a.yaml"))
        .model()
        .unwrap();
    // a deadline is read with today's flags, so with the same file: it
    // takes today's parse rather than reading a file again (here another
    // file, so that a second reading would show)
    let at = Input::at(dir.path())
        .sigs(dir.path().join("sigs-b.yaml"))
        .rev("HEAD");
    let m = model_at_deadline(&at, &today, Release::new(1, 40)).unwrap();
    let dirs = |m: &crate::model::Model| -> Vec<String> {
        m.sigs
            .iter()
            .flat_map(|s| &s.groups)
            .map(|g| g.dir.clone())
            .collect()
    };
    assert_eq!(dirs(&today), ["sig-a"]);
    assert_eq!(dirs(&m), dirs(&today));
}
