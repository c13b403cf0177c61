use super::*;

const HOSTS: &[&str] = &["github.com", "kep.example.org"];

#[test]
fn https_on_an_allowed_host_passes() {
    assert_eq!(
        destination(
            "https://github.com/kubernetes/enhancements/issues/4872",
            HOSTS
        )
        .as_deref(),
        Some("https://github.com/kubernetes/enhancements/issues/4872")
    );
    assert_eq!(
        destination("HTTPS://KEP.example.org/keps/1/#x", HOSTS).as_deref(),
        Some("https://kep.example.org/keps/1/#x")
    );
    assert_eq!(
        destination("https://github.com", HOSTS).as_deref(),
        Some("https://github.com")
    );
}

#[test]
fn other_schemes_and_hosts_are_refused() {
    for url in [
        "javascript:alert(1)",
        "JavaScript:alert(1)",
        " javascript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD4=",
        "vbscript:x",
        "http://github.com/x",
        "//github.com/x",
        "/keps/1/",
        "keps/1/",
        "https://evil.example/x",
        "https://github.com.evil.example/x",
        "https://github.com@evil.example/x",
        "https://evil.example\\@github.com/x",
        "https://github.com:8443/x",
        "https:///x",
        "",
    ] {
        assert_eq!(destination(url, HOSTS), None, "{url}");
    }
    assert_eq!(destination("https://github.com/x", &[""]), None);
    assert_eq!(destination("https://github.com/x", &[]), None);
}

#[test]
fn what_could_end_or_break_a_destination_is_encoded() {
    let url = "https://github.com/k/tree/master/keps/sig-x/4872-x) <img src=x onerror=alert(document.domain)> [click](javascript:alert(1)";
    let d = destination(url, HOSTS).unwrap();
    assert_eq!(
        d,
        "https://github.com/k/tree/master/keps/sig-x/4872-x%29%20%3Cimg%20src=x%20onerror=alert%28document.domain%29%3E%20%5Bclick%5D%28javascript:alert%281%29"
    );
    let d = destination(
        "https://github.com/a\\b\"c'd`e{f}g|h^i&j\nk\tl\u{7f}m",
        HOSTS,
    )
    .unwrap();
    assert_eq!(
        d,
        "https://github.com/a%5Cb%22c%27d%60e%7Bf%7Dg%7Ch%5Ei%26j%0Ak%09l%7Fm"
    );
    // Non-ASCII as UTF-8 escapes; a `%XX` stays, a lone `%` is encoded.
    assert_eq!(
        destination("https://github.com/é %20 %zz %4", HOSTS).unwrap(),
        "https://github.com/%C3%A9%20%20%20%25zz%20%254"
    );
}

#[test]
fn hosts_of_urls() {
    assert_eq!(
        host("https://github.com/kubernetes/enhancements"),
        Some("github.com")
    );
    assert_eq!(host("http://localhost:1313/"), Some("localhost:1313"));
    assert_eq!(host("https://kep.example.org"), Some("kep.example.org"));
    assert_eq!(host("https://a@evil.example/"), None);
    assert_eq!(host("/"), None);
    assert_eq!(host("javascript:alert(1)"), None);
    assert_eq!(host("https:///x"), None);
}

#[test]
fn directories_are_path_segments() {
    assert_eq!(
        path("keps/sig-x/4872-x) <img> [c](j:a(1)"),
        "keps/sig-x/4872-x%29%20%3Cimg%3E%20%5Bc%5D%28j:a%281%29"
    );
    assert_eq!(path("keps/sig-x/100%#?"), "keps/sig-x/100%25%23%3F");
    assert_eq!(
        path("keps/sig-node/1480-pod-restart-budget"),
        "keps/sig-node/1480-pod-restart-budget"
    );
}
