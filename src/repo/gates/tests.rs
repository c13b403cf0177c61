//! Unit tests on small Go files written for them.

use super::*;

fn snapshot(files: &[(&str, &str)]) -> Snapshot {
    let mut s = Snapshot::default();
    for (path, text) in files {
        parse_file(path, text, &mut s);
    }
    s
}

fn spec(minor: u32, default: bool, pre_release: PreRelease, locked: bool) -> Spec {
    Spec {
        minor,
        default,
        pre_release,
        locked,
    }
}

const VERSIONED: &str = r#"package features

import (
	"k8s.io/apimachinery/pkg/util/version"
	genericfeatures "k8s.io/apiserver/pkg/features"
	"k8s.io/component-base/featuregate"
)

// Every feature gate should have an entry here following this template:
//
// // owner: @username
// // kep: https://kep.k8s.io/NNN
// MyFeature featuregate.Feature = "MyFeature"
const (
	// owner: @someone
	// kep: https://kep.k8s.io/4639
	// alpha: v1.30
	ImageVolume featuregate.Feature = "ImageVolume"

	// owner: @other
	//
	// No KEP here.
	CPUCFSQuotaPeriod featuregate.Feature = "CustomCPUCFSQuotaPeriod"

	// key: https://kep.k8s.io/2837
	PodLevelResources featuregate.Feature = "PodLevelResources"

	// kep: https://kep.k8s.io/3085, https://kep.k8s.io/4138
	PodReadyToStartContainersCondition featuregate.Feature = "PodReadyToStartContainersCondition"
)

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	ImageVolume: {
		{Version: version.MustParse("1.31"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.35"), Default: true, PreRelease: featuregate.Beta},
		// a comment between specs
		{Version: version.MustParse("1.33"), Default: false, PreRelease: featuregate.Beta},
	},
	CPUCFSQuotaPeriod: {
		{Version: version.MustParse("1.12"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.36"), Default: true, PreRelease: featuregate.GA, LockToDefault: true}, // remove in 1.39
	},
	PodLevelResources: {
		{Version: version.MustParse("1.0"), Default: true, LockToDefault: true, PreRelease: featuregate.GA},
	},
	PodReadyToStartContainersCondition: {
		{Version: version.MustParse("1.29"), Default: false, PreRelease: featuregate.Alpha},
	},
	genericfeatures.APIResponseCompression: {
		{Version: version.MustParse("1.8"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.16"), Default: true, PreRelease: featuregate.Beta},
	},
}

var defaultKubernetesFeatureGateDependencies = map[featuregate.Feature][]featuregate.Feature{
	ImageVolume: {},
}
"#;

const APISERVER: &str = r#"package features

const (
	// owner: @smarterclayton
	// kep: https://github.com/kubernetes/enhancements/issues/1234
	APIResponseCompression featuregate.Feature = "APIResponseCompression"
)

var defaultVersionedKubernetesFeatureGates = map[featuregate.Feature]featuregate.VersionedSpecs{
	APIResponseCompression: {
		{Version: version.MustParse("1.8"), Default: false, PreRelease: featuregate.Alpha},
		{Version: version.MustParse("1.16"), Default: true, PreRelease: featuregate.Beta},
	},
}
"#;

const PKG: &str = "pkg/features/kube_features.go";
const GENERIC: &str = "staging/src/k8s.io/apiserver/pkg/features/kube_features.go";

#[test]
fn versioned_specs_are_read_and_sorted() {
    let s = snapshot(&[(PKG, VERSIONED)]);
    let g = &s.gates["ImageVolume"];
    assert_eq!(g.kep, Some(4639));
    assert_eq!(g.kep_text.as_deref(), Some("https://kep.k8s.io/4639"));
    assert_eq!((g.file.as_str(), g.line), (PKG, 18));
    assert!(g.versioned);
    let minors: Vec<u32> = g.specs.iter().map(|s| s.minor).collect();
    assert_eq!(minors, [31, 33, 35]);
    assert_eq!(g.stage_at(30), None);
    assert_eq!(
        g.stage_at(32),
        Some(&spec(31, false, PreRelease::Alpha, false))
    );
    assert_eq!(
        g.stage_at(34).map(|s| s.pre_release),
        Some(PreRelease::Beta)
    );
    assert_eq!(
        g.stage_at(40),
        Some(&spec(35, true, PreRelease::Beta, false))
    );
}

#[test]
fn the_name_is_the_string_value_and_lock_is_read() {
    let s = snapshot(&[(PKG, VERSIONED)]);
    assert!(!s.gates.contains_key("CPUCFSQuotaPeriod"));
    let g = &s.gates["CustomCPUCFSQuotaPeriod"];
    assert_eq!((g.kep, g.kep_text.as_deref()), (None, None));
    assert_eq!(g.stage_at(36), Some(&spec(36, true, PreRelease::Ga, true)));
    assert_eq!(g.stage_at(35).map(|s| s.locked), Some(false));
    let p = &s.gates["PodLevelResources"];
    assert_eq!(p.specs, [spec(0, true, PreRelease::Ga, true)]);
    assert_eq!(p.stage_at(0).map(|s| s.minor), Some(0));
}

#[test]
fn kep_comment_forms() {
    let s = snapshot(&[(PKG, VERSIONED)]);
    assert_eq!(
        s.gates["PodLevelResources"].kep,
        Some(2837),
        "the key: typo"
    );
    let two = &s.gates["PodReadyToStartContainersCondition"];
    assert_eq!(
        (two.kep, two.keps.as_slice()),
        (Some(3085), &[3085, 4138][..])
    );
    assert_eq!(
        s.for_kep(4138).map(|g| g.name.as_str()).collect::<Vec<_>>(),
        [two.name.as_str()]
    );
    let cases: &[(&str, &[u32])] = &[
        ("https://kep.k8s.io/4639", &[4639]),
        ("http://kep.k8s.io/5073:", &[5073]),
        (
            "https://github.com/kubernetes/enhancements/issues/2400",
            &[2400],
        ),
        ("https://github.com/kubernetes/enhancements/pull/2401", &[]),
        (
            "https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/2400-node-swap",
            &[2400],
        ),
        (
            "https://github.com/kubernetes/enhancements/blob/master/keps/sig-node/753-sidecar-containers/README.md",
            &[753],
        ),
        ("KEP-1287", &[1287]),
        ("#1287 and #1287", &[1287]),
        ("", &[]),
        ("see the sig-node notes", &[]),
    ];
    for (text, want) in cases {
        assert_eq!(kep::numbers(text), *want, "{text}");
    }
    let lines = [
        " owner: @x",
        " kep : https://kep.k8s.io/7",
        " kep: https://kep.k8s.io/8",
    ];
    assert_eq!(
        kep::from_doc(lines),
        Some(("https://kep.k8s.io/7".into(), vec![7]))
    );
    assert_eq!(
        kep::from_doc([" // kep: https://kep.k8s.io/9"]),
        None,
        "a template line"
    );
    assert_eq!(kep::from_doc([" kep:"]), Some((String::new(), vec![])));
}

#[test]
fn the_template_in_a_comment_is_no_gate_and_no_kep() {
    let s = snapshot(&[(PKG, VERSIONED)]);
    assert!(!s.gates.contains_key("MyFeature"));
    assert!(s.for_kep(0).next().is_none());
    let dependencies_ignored = s.gates["ImageVolume"].specs.len() == 3;
    assert!(dependencies_ignored);
}

#[test]
fn qualified_re_registration_resolves_without_duplicates() {
    for order in [
        [(PKG, VERSIONED), (GENERIC, APISERVER)],
        [(GENERIC, APISERVER), (PKG, VERSIONED)],
    ] {
        let s = snapshot(&order);
        let g = &s.gates["APIResponseCompression"];
        assert_eq!((g.file.as_str(), g.line, g.kep), (GENERIC, 6, Some(1234)));
        assert_eq!(g.specs.len(), 2);
        assert!(
            !s.gates
                .contains_key("genericfeatures.APIResponseCompression")
        );
        assert_eq!(s.gates.len(), 5);
        assert_eq!(s.problems, [], "{:?}", s.problems);
    }
}

#[test]
fn qualified_key_without_its_package_is_a_problem_but_kept() {
    let s = snapshot(&[(PKG, VERSIONED)]);
    let g = &s.gates["APIResponseCompression"];
    assert_eq!((g.file.as_str(), g.kep), (PKG, None));
    assert_eq!(
        g.stage_at(20).map(|s| s.pre_release),
        Some(PreRelease::Beta)
    );
    assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
    assert!(
        s.problems[0]
            .message
            .contains("genericfeatures.APIResponseCompression")
    );
    assert_eq!(s.problems[0].line, 49);
}

#[test]
fn differing_specs_in_two_maps_are_a_problem_and_the_home_wins() {
    let changed = VERSIONED.replace(
        "{Version: version.MustParse(\"1.16\"), Default: true, PreRelease: featuregate.Beta},\n\t},\n}",
        "{Version: version.MustParse(\"1.17\"), Default: true, PreRelease: featuregate.Beta},\n\t},\n}",
    );
    assert_ne!(changed, VERSIONED);
    let s = snapshot(&[(PKG, &changed), (GENERIC, APISERVER)]);
    assert_eq!(s.gates["APIResponseCompression"].specs[1].minor, 16);
    assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
    assert_eq!(s.problems[0].file, PKG);
    assert!(s.problems[0].message.contains("differ"));
}

const UNVERSIONED: &str = r#"package features

const (
	contextualLoggingDefault = true

	// owner: @pohly
	// kep: https://kep.k8s.io/3077
	// alpha: v1.24
	ContextualLogging featuregate.Feature = "ContextualLogging"

	// owner: @nckturner
	// kep:  http://kep.k8s.io/2699
	CloudControllerManagerWebhook featuregate.Feature = "CloudControllerManagerWebhook"

	// owner: @x
	StableLoadBalancerNodeSet featuregate.Feature = "StableLoadBalancerNodeSet"

	// declared, never registered
	LoggingStableOptions featuregate.Feature = "LoggingStableOptions"
)

func featureGates() map[featuregate.Feature]featuregate.FeatureSpec {
	return map[featuregate.Feature]featuregate.FeatureSpec{
		ContextualLogging:             {Default: contextualLoggingDefault, PreRelease: featuregate.Beta},
		CloudControllerManagerWebhook: {Default: false, PreRelease: featuregate.Alpha},
		StableLoadBalancerNodeSet:     {Default: true, PreRelease: featuregate.GA, LockToDefault: true}, // remove in 1.31
	}
}
"#;

#[test]
fn unversioned_specs_hold_for_every_release() {
    let s = snapshot(&[(
        "staging/src/k8s.io/component-base/logs/api/v1/kube_features.go",
        UNVERSIONED,
    )]);
    let c = &s.gates["ContextualLogging"];
    assert!(!c.versioned);
    assert_eq!(
        c.specs,
        [spec(0, true, PreRelease::Beta, false)],
        "a bool constant"
    );
    assert_eq!(c.stage_at(1), c.stage_at(99));
    assert_eq!(s.gates["CloudControllerManagerWebhook"].kep, Some(2699));
    let lb = &s.gates["StableLoadBalancerNodeSet"];
    assert_eq!((lb.kep, lb.specs[0].locked), (None, true));
    assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
    assert!(s.problems[0].message.contains("LoggingStableOptions"));
}

#[test]
fn client_go_types_are_read() {
    let text = r#"package features
const (
	// owner: @p0lyn0mial
	// beta: v1.30
	WatchListClient Feature = "WatchListClient"
)
var defaultVersionedKubernetesFeatureGates = map[Feature]VersionedSpecs{
	WatchListClient: {
		{Version: version.MustParse("1.30"), Default: false, PreRelease: Beta},
		{Version: version.MustParse("1.35"), Default: true, PreRelease: Beta},
	},
}
"#;
    let s = snapshot(&[(
        "staging/src/k8s.io/client-go/features/known_features.go",
        text,
    )]);
    let g = &s.gates["WatchListClient"];
    assert_eq!(
        g.stage_at(34),
        Some(&spec(30, false, PreRelease::Beta, false))
    );
    assert_eq!(s.problems, []);
}

#[test]
fn a_broken_file_gives_problems_and_no_panic() {
    let cut = &VERSIONED[..VERSIONED.find("PodLevelResources: {").unwrap()];
    let bad_specs = VERSIONED
        .replacen("featuregate.Alpha}", "featuregate.Gamma}", 1)
        .replace("MustParse(\"1.12\")", "MustParse(\"2.12\")");
    for text in [
        cut,
        bad_specs.as_str(),
        "",
        "package",
        "const ( X featuregate.Feature = 3 )",
        "\u{0}{{{",
    ] {
        let s = snapshot(&[(PKG, text)]);
        if text.len() > 20 {
            assert!(!s.problems.is_empty(), "{text}");
        }
    }
    let s = snapshot(&[(PKG, cut)]);
    assert!(
        s.problems
            .iter()
            .any(|p| p.message.contains("syntax error")),
        "{:?}",
        s.problems
    );
    assert!(s.gates.contains_key("ImageVolume"));
    let s = snapshot(&[(PKG, &bad_specs)]);
    let messages: Vec<&str> = s.problems.iter().map(|p| p.message.as_str()).collect();
    assert!(messages.iter().any(|m| m.contains("Gamma")), "{messages:?}");
    assert!(
        messages.iter().any(|m| m.contains("not a 1.x version")),
        "{messages:?}"
    );
    assert_eq!(s.gates["ImageVolume"].specs.len(), 2, "the good specs stay");
    let s = snapshot(&[(PKG, "package features\nconst X featuregate.Feature = 3\n")]);
    assert_eq!(s.problems.len(), 1, "{:?}", s.problems);
    assert!(s.problems[0].message.contains("no string value"));
}

#[test]
fn gate_files() {
    for yes in [
        "pkg/features/kube_features.go",
        "pkg/features/versioned_kube_features.go",
        "staging/src/k8s.io/apiserver/pkg/features/kube_features.go",
        "staging/src/k8s.io/client-go/features/known_features.go",
        "staging/src/k8s.io/component-base/logs/api/v1/kube_features.go",
        "staging/src/k8s.io/component-base/zpages/features/kube_features.go",
    ] {
        assert!(is_gate_file(yes), "{yes}");
    }
    for no in [
        "pkg/features/kube_features_test.go",
        "pkg/kubelet/features.go.orig",
        "staging/src/k8s.io/apiserver/pkg/server/options.go",
        "staging/src/k8s.io/features/x.go",
        "cmd/features/kube_features.go",
    ] {
        assert!(!is_gate_file(no), "{no}");
    }
}

#[test]
fn pre_release_labels() {
    let all = [
        PreRelease::Alpha,
        PreRelease::Beta,
        PreRelease::Ga,
        PreRelease::Deprecated,
    ];
    let labels: Vec<&str> = all.iter().map(|p| p.as_str()).collect();
    assert_eq!(labels, ["Alpha", "Beta", "GA", "Deprecated"]);
    for p in all {
        assert_eq!(PreRelease::from_go(p.as_str()), Some(p));
        assert_eq!(serde_json::to_string(&p).unwrap(), format!("\"{p}\""));
    }
}

#[test]
fn untyped_and_converted_constants() {
    let text = r#"package features
const (
	// kep: https://kep.k8s.io/1
	ReloadKubeletClientCAFile = "ReloadKubeletClientCAFile"

	// kep: https://kep.k8s.io/2
	SystemdWatchdog = featuregate.Feature("SystemdWatchdogGate")

	someString = "not a gate"
)
var m = map[featuregate.Feature]featuregate.VersionedSpecs{
	ReloadKubeletClientCAFile: {
		{Version: version.MustParse("1.33"), Default: true, PreRelease: featuregate.Beta},
	},
	SystemdWatchdog: {
		{Version: version.MustParse("1.32"), Default: true, PreRelease: featuregate.Beta},
	},
}
"#;
    let s = snapshot(&[(PKG, text)]);
    assert_eq!(s.problems, []);
    let names: Vec<&str> = s.gates.keys().map(String::as_str).collect();
    assert_eq!(names, ["ReloadKubeletClientCAFile", "SystemdWatchdogGate"]);
    let r = &s.gates["ReloadKubeletClientCAFile"];
    assert_eq!((r.kep, r.line, r.specs.len()), (Some(1), 4, 1));
    assert_eq!(s.gates["SystemdWatchdogGate"].kep, Some(2));
}
