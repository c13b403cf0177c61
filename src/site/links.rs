//! Link targets: a destination written in a README or kep.yaml ([`Links`]) →
//! the URL the site links to.
//!
//! Readers stay on the portal: a link to another KEP, written as a relative
//! path (`../1234-foo/README.md`), a repository path, a GitHub `tree`/`blob`
//! URL of the enhancements repository, a `git.k8s.io/enhancements` URL or a
//! `kep.k8s.io/<n>` short link, goes to that KEP's page. Other repository
//! files go to GitHub; copied assets stay beside the page.

use std::collections::{BTreeMap, BTreeSet};

/// Where links in a README should go.
#[derive(Debug, Clone)]
pub struct Links<'a> {
    /// KEP path (`keps/sig-x/123-foo`) → page URL.
    pub keps: &'a BTreeMap<String, String>,
    /// Assets copied beside this KEP's page, as paths relative to the KEP directory.
    pub local_assets: &'a BTreeSet<String>,
    /// `https://github.com/kubernetes/enhancements`.
    pub repo_url: &'a str,
    /// Branch for blob links.
    pub branch: &'a str,
}

/// Hosts and path prefixes under which a URL names a file of the
/// enhancements repository: what follows is `<branch>/<path>` for GitHub's
/// `tree`/`blob` views, the path itself for `git.k8s.io`.
const REPO_PREFIXES: [(&str, bool); 5] = [
    ("github.com/kubernetes/enhancements/tree/", true),
    ("github.com/kubernetes/enhancements/blob/", true),
    ("github.com/kubernetes/enhancements/raw/", true),
    ("git.k8s.io/enhancements/", false),
    ("raw.githubusercontent.com/kubernetes/enhancements/", true),
];

impl Links<'_> {
    /// Where `dest`, written in the file at repository path `from`, should point.
    pub fn resolve(&self, from: &str, dest: &str, image: bool) -> String {
        if dest.is_empty() || dest.starts_with('#') {
            return dest.to_string();
        }
        if has_scheme(dest) || dest.starts_with("//") {
            return match self.absolute_kep(dest) {
                Some(url) if !image => url,
                _ => dest.to_string(),
            };
        }
        let (path_part, frag) = split_suffix(dest);
        let dir = from.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        let joined = if let Some(abs) = path_part.strip_prefix('/') {
            abs.to_string()
        } else if dir.is_empty() {
            path_part.to_string()
        } else {
            format!("{dir}/{path_part}")
        };
        let Some(path) = normalize(&joined) else {
            return self.repo_url.to_string();
        };
        if let Some(url) = self.kep_url(&path) {
            let frag = if frag.starts_with('#') { frag } else { "" };
            return format!("{url}{frag}");
        }
        if let Some(rel) = path
            .strip_prefix(&format!("{dir}/"))
            .filter(|rel| self.local_assets.contains(*rel))
        {
            return format!("{rel}{frag}");
        }
        if image {
            return format!("{}/blob/{}/{path}?raw=true", self.repo_url, self.branch);
        }
        format!("{}/blob/{}/{path}{frag}", self.repo_url, self.branch)
    }

    /// The portal page (with the fragment) of an absolute URL that names a
    /// KEP: a GitHub or `git.k8s.io` URL of its directory, README or
    /// kep.yaml, or `kep.k8s.io/<n>`.
    pub fn absolute_kep(&self, url: &str) -> Option<String> {
        let rest = url
            .split_once("//")
            .map_or(url, |(_, r)| r)
            .trim_start_matches("www.");
        let (rest, frag) = split_suffix(rest);
        let frag = if frag.starts_with('#') { frag } else { "" };
        if let Some(n) = rest.strip_prefix("kep.k8s.io/") {
            let n: u32 = n.trim_end_matches('/').parse().ok()?;
            return self.number_url(n).map(|u| format!("{u}{frag}"));
        }
        let own = self
            .repo_url
            .split_once("//")
            .map_or(self.repo_url, |(_, r)| r)
            .trim_start_matches("www.");
        let path = REPO_PREFIXES
            .iter()
            .find_map(|(prefix, branch)| Some((rest.strip_prefix(prefix)?, *branch)))
            .or_else(|| {
                ["tree/", "blob/"].iter().find_map(|kind| {
                    let p = rest.strip_prefix(own)?.strip_prefix('/')?;
                    Some((p.strip_prefix(kind)?, true))
                })
            })
            .and_then(|(p, branch)| {
                if branch {
                    p.split_once('/').map(|(_, path)| path)
                } else {
                    Some(p)
                }
            })?;
        let path = normalize(path)?;
        self.kep_url(&path).map(|u| format!("{u}{frag}"))
    }

    /// The page of the KEP numbered `n`, when one has `/keps/<n>/`.
    fn number_url(&self, n: u32) -> Option<&str> {
        let tail = format!("keps/{n}/");
        self.keps
            .values()
            .find(|u| u.ends_with(&tail))
            .map(String::as_str)
    }

    /// The page of the KEP at `path` (its directory, README or kep.yaml).
    /// A KEP directory that was renamed (`keps/sig-x/4438-old-name`) still
    /// leads to the page of KEP 4438.
    pub fn kep_url(&self, path: &str) -> Option<&str> {
        let path = path.trim_end_matches('/');
        let dir = path
            .rsplit_once('/')
            .filter(|(_, name)| name.eq_ignore_ascii_case("readme.md") || *name == "kep.yaml")
            .map(|(d, _)| d);
        let exact = [Some(path), dir]
            .into_iter()
            .flatten()
            .find_map(|p| {
                self.keps
                    .get(p)
                    .or_else(|| self.keps.get(&format!("{p}.md")))
            })
            .map(|s| s.as_str());
        exact.or_else(|| {
            let dir = dir.unwrap_or(path);
            let name = dir.strip_prefix("keps/")?.rsplit('/').next()?;
            let (n, rest) = name.split_once('-')?;
            let n: u32 = n.parse().ok().filter(|_| !rest.is_empty())?;
            self.number_url(n)
        })
    }
}

/// `dest` split before its query or fragment.
fn split_suffix(dest: &str) -> (&str, &str) {
    match dest.find(['#', '?']) {
        Some(i) => (&dest[..i], &dest[i..]),
        None => (dest, ""),
    }
}

fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(i) => s[..i]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'),
        None => false,
    }
}

/// Normalize `a/b/../c` to `a/c`; `None` when it leaves the repository.
pub fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<T>(f: impl FnOnce(&Links) -> T) -> T {
        let keps = BTreeMap::from([
            (
                "keps/sig-node/753-sidecar-containers".to_string(),
                "/b/keps/753/".to_string(),
            ),
            (
                "keps/sig-apps/20190101-old.md".to_string(),
                "/b/keps/sig-apps/20190101-old/".to_string(),
            ),
        ]);
        let assets = BTreeSet::new();
        f(&Links {
            keps: &keps,
            local_assets: &assets,
            repo_url: "https://github.com/kubernetes/enhancements",
            branch: "master",
        })
    }

    #[test]
    fn every_way_of_naming_a_kep_leads_to_its_page() {
        let from = "keps/sig-apps/1-x/README.md";
        with(|l| {
            for (dest, want) in [
                (
                    "../../sig-node/753-sidecar-containers/README.md",
                    "/b/keps/753/",
                ),
                ("/keps/sig-node/753-sidecar-containers", "/b/keps/753/"),
                (
                    "https://github.com/kubernetes/enhancements/tree/master/keps/sig-node/753-sidecar-containers",
                    "/b/keps/753/",
                ),
                (
                    "https://github.com/kubernetes/enhancements/blob/main/keps/sig-node/753-sidecar-containers/README.md#design",
                    "/b/keps/753/#design",
                ),
                (
                    "https://github.com/kubernetes/enhancements/blob/master/keps/sig-node/753-sidecar-containers/kep.yaml",
                    "/b/keps/753/",
                ),
                (
                    "https://git.k8s.io/enhancements/keps/sig-node/753-sidecar-containers/README.md",
                    "/b/keps/753/",
                ),
                ("https://kep.k8s.io/753", "/b/keps/753/"),
                // a renamed directory still finds its KEP by number
                ("/keps/sig-node/753-old-name", "/b/keps/753/"),
                ("http://www.kep.k8s.io/753/", "/b/keps/753/"),
                (
                    "https://github.com/kubernetes/enhancements/blob/master/keps/sig-apps/20190101-old.md",
                    "/b/keps/sig-apps/20190101-old/",
                ),
                // not a KEP: left alone or sent to GitHub
                ("https://kep.k8s.io/9999", "https://kep.k8s.io/9999"),
                (
                    "https://github.com/kubernetes/enhancements/pull/12",
                    "https://github.com/kubernetes/enhancements/pull/12",
                ),
                (
                    "https://github.com/kubernetes/enhancements/blob/master/keps/sig-node/753-sidecar-containers/diagram.png",
                    "https://github.com/kubernetes/enhancements/blob/master/keps/sig-node/753-sidecar-containers/diagram.png",
                ),
                (
                    "https://github.com/other/enhancements/tree/master/keps/sig-node/753-sidecar-containers",
                    "https://github.com/other/enhancements/tree/master/keps/sig-node/753-sidecar-containers",
                ),
                (
                    "../../OWNERS",
                    "https://github.com/kubernetes/enhancements/blob/master/keps/OWNERS",
                ),
            ] {
                assert_eq!(l.resolve(from, dest, false), want, "{dest}");
            }
            // an image URL is never turned into a page
            let img = "https://kep.k8s.io/753";
            assert_eq!(l.resolve(from, img, true), img);
        });
    }

    #[test]
    fn paths_normalize_inside_the_repo() {
        assert_eq!(
            normalize("keps/sig-a/1/../../sig-b/2/README.md").as_deref(),
            Some("keps/sig-b/2/README.md")
        );
        assert_eq!(normalize("keps/../../etc/passwd"), None);
    }
}
