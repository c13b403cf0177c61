use super::*;

/// The first bytes of a PNG of `w` × `h` pixels: its signature and header chunk.
fn png(w: u32, h: u32) -> Vec<u8> {
    let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
    b.extend(w.to_be_bytes());
    b.extend(h.to_be_bytes());
    b.extend([8, 6, 0, 0, 0, 0, 0, 0, 0]);
    b
}

#[test]
fn raster_headers_give_their_size() {
    assert_eq!(
        probe_bytes(&png(640, 480), 40, false),
        ImageProbe::Size {
            width: 640,
            height: 480
        }
    );
    let gif = b"GIF89a\x20\x03\x58\x02\0\0\0";
    assert_eq!(
        probe_bytes(gif, 13, false),
        ImageProbe::Size {
            width: 800,
            height: 600
        }
    );
}

#[test]
fn unreadable_and_huge_images_are_told_apart() {
    assert!(matches!(
        probe_bytes(b"not an image at all", 19, false),
        ImageProbe::Broken(_)
    ));
    assert!(matches!(
        probe_bytes(&png(0, 10), 40, false),
        ImageProbe::Broken(_)
    ));
    // a truncated header
    assert!(matches!(
        probe_bytes(&png(10, 10)[..12], 12, false),
        ImageProbe::Broken(_)
    ));
    assert_eq!(
        probe_bytes(&png(10, 10), MAX_IMAGE_BYTES + 1, false),
        ImageProbe::TooLarge(MAX_IMAGE_BYTES + 1)
    );
}

#[test]
fn svg_size_from_width_and_height_or_view_box() {
    let size = |s: &str| probe_bytes(s.as_bytes(), s.len() as u64, true);
    let at = |width, height| ImageProbe::Size { width, height };
    assert_eq!(
        size(
            r#"<?xml version="1.0"?><!-- x --><!DOCTYPE svg><svg xmlns="http://www.w3.org/2000/svg" width="120px" height='80'>"#
        ),
        at(120, 80)
    );
    assert_eq!(
        size(r#"<svg viewBox="0 0 300.4 150" width="100%">"#),
        at(300, 150)
    );
    assert_eq!(size("<svg\nviewBox='0,0,30,20'\n>"), at(30, 20));
    // `stroke-width` is not `width`
    assert_eq!(
        size(r#"<svg stroke-width="3" viewBox="0 0 10 5">"#),
        at(10, 5)
    );
    assert_eq!(size("<svg width='50%'>"), at(300, 150));
    for bad in [
        "<html><svg width=1 height=1>",
        "<svgx width='1' height='1'>",
        "",
    ] {
        assert!(matches!(size(bad), ImageProbe::Broken(_)), "{bad}");
    }
}

#[test]
fn a_working_tree_image_is_probed_under_the_repository_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let kep = root.join("keps/sig-x/1-a");
    std::fs::create_dir_all(&kep).unwrap();
    std::fs::write(kep.join("a.png"), png(3, 2)).unwrap();
    std::fs::write(root.join("outside.png"), png(3, 2)).unwrap();
    let source = Source {
        root: root.to_path_buf(),
        commit: None,
        time: None,
    };
    assert_eq!(
        probe(&source, "keps/sig-x/1-a/a.png"),
        ImageProbe::Size {
            width: 3,
            height: 2
        }
    );
    assert_eq!(
        probe(&source, "keps/sig-x/1-a/none.png"),
        ImageProbe::Missing
    );
    assert_eq!(probe(&source, "outside.png"), ImageProbe::Missing);
    assert_eq!(
        probe(&source, "keps/sig-x/1-a/../../../outside.png"),
        ImageProbe::Missing
    );
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(root.join("outside.png"), kep.join("link.png")).unwrap();
        assert_eq!(
            probe(&source, "keps/sig-x/1-a/link.png"),
            ImageProbe::Missing
        );
    }
    let big = std::fs::File::create(kep.join("big.png")).unwrap();
    big.set_len(MAX_IMAGE_BYTES + 1).unwrap();
    assert_eq!(
        probe(&source, "keps/sig-x/1-a/big.png"),
        ImageProbe::TooLarge(MAX_IMAGE_BYTES + 1)
    );
}
