//! kepsite's integration tests, one module per feature. They need nothing
//! outside this repository: the sample `content/`, fixtures under
//! `tests/fixtures/` and repositories the tests make. The tests that read the
//! real corpus, the seed KEPs or drive a browser are the `corpus` target
//! (`cargo test --test corpus`).

mod analysis;
mod anchors;
mod announcement;
mod architecture;
mod bad_input;
mod check;
mod check_changes;
mod check_formats;
mod code_inputs;
mod comments;
mod dashboards;
mod docs;
mod dom;
mod fuzz;
mod git_fixture;
mod history;
mod hostile;
mod input_files;
mod load;
mod output_injection;
mod paths;
mod project;
mod query;
mod report;
mod rules;
mod sanitize;
mod security;
mod serve;
mod serve_process;
mod serve_state;
mod site;
mod support;
mod synth;
mod team_prs;
