//! The tests that need what is not in this repository: the real
//! kubernetes/enhancements history (`corpus/enhancements.bundle`, cloned once
//! per run), `corpus/sigs.yaml` and the seed KEPs (`seeds/`) of the project's
//! shared folder, and the browser tests (Chromium, chromedriver, axe-core).
//!
//! The shared folder is `../shared` beside this checkout, or
//! `$KEPSITE_SHARED`. This target is not run by a plain `cargo test`
//! (`test = false` in Cargo.toml): run it with `cargo test --test corpus`, and
//! the browser tests with `-- --ignored --test-threads=1`. Every test here
//! fails, naming the missing file, when the shared folder is absent.

mod analysis;
mod announcement;
mod board;
mod browser;
mod check_changes;
mod code;
mod code_decides;
mod comments;
mod corpus;
mod freeze;
mod gate_clone;
mod gates;
mod history;
mod known_items;
mod posts;
mod prr_reading;
mod release;
mod report;
mod rules;
mod scoped;
mod seeds;
mod shared;
mod site_corpus;
// Shared with the `it` target, which uses all of each.
#[allow(dead_code)]
#[path = "../it/dom.rs"]
mod dom;
// Shared with the `it` target, which uses all of each.
#[allow(dead_code)]
#[path = "../it/serve_process.rs"]
mod serve_process;
// Shared with the `it` target, which uses all of each.
#[allow(dead_code)]
#[path = "../it/git_fixture.rs"]
mod git_fixture;
// Shared with the `it` target, which uses all of each.
#[allow(dead_code)]
#[path = "../it/support.rs"]
mod support;
// Shared with the `it` target, which uses all of each.
#[allow(dead_code)]
#[path = "../it/hostile.rs"]
mod hostile;
