use super::*;

fn local() -> BTreeSet<String> {
    ["a.png", "big.png", "bad.png", "my pic.png", "d.svg"]
        .into_iter()
        .map(String::from)
        .collect()
}

fn probe(rel: &str) -> ImageProbe {
    match rel {
        "a.png" | "my pic.png" => ImageProbe::Size {
            width: 640,
            height: 480,
        },
        "d.svg" => ImageProbe::Size {
            width: 30,
            height: 20,
        },
        "big.png" => ImageProbe::TooLarge(6 * 1048576),
        _ => ImageProbe::Broken("no".into()),
    }
}

fn run(html: &str) -> String {
    sized(html, &local(), &probe)
}

#[test]
fn local_images_get_their_size_and_wait_for_the_reader() {
    // as pulldown-cmark writes it, and as the sanitizer does
    assert_eq!(
        run(r#"<p><img src="./a.png" alt="A" /></p>"#),
        r#"<p><img src="./a.png" alt="A" width="640" height="480" loading="lazy" decoding="async"></p>"#
    );
    assert_eq!(
        run(r#"<img alt="" src="my%20pic.png?raw=true">"#),
        r#"<img alt="" src="my%20pic.png?raw=true" width="640" height="480" loading="lazy" decoding="async">"#
    );
    // the author's width keeps the file's proportions
    assert_eq!(
        run(r#"<img alt="" src="d.svg" width="300">"#),
        r#"<img alt="" src="d.svg" width="300" height="200" loading="lazy" decoding="async">"#
    );
    // a remote image: lazy, no size to give
    assert_eq!(
        run(r#"<img src="https://example.org/a.png" alt="" />"#),
        r#"<img src="https://example.org/a.png" alt="" loading="lazy" decoding="async">"#
    );
    assert_eq!(run("<p>no images &lt;img</p>"), "<p>no images &lt;img</p>");
}

#[test]
fn images_that_cannot_be_shown_are_links() {
    assert_eq!(
        run(r#"<p><img src="big.png" alt="the &quot;plan&quot;" /></p>"#),
        r#"<p><a class="image-link" href="big.png">the &quot;plan&quot; (image, 6.0 MB, not shown)</a></p>"#
    );
    assert_eq!(
        run(r#"<p><img alt="" src="bad.png"></p>"#),
        r#"<p><a class="image-link" href="bad.png">bad.png (image that cannot be shown)</a></p>"#
    );
    // inside a link: text, never a link in a link
    assert_eq!(
        run(r#"<a href="x"><img alt="" src="bad.png"></a> <img alt="" src="bad.png">"#),
        r#"<a href="x"><span class="image-link">bad.png (image that cannot be shown)</span></a> <a class="image-link" href="bad.png">bad.png (image that cannot be shown)</a>"#
    );
}
