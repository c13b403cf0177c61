//! kepsite's integration tests, one module per feature. The real-corpus
//! modules clone `../shared/corpus/enhancements.bundle` once and fail loudly
//! when it is missing.

mod analysis;
mod anchors;
mod architecture;
mod bad_input;
mod browser;
mod check;
mod check_changes;
mod check_formats;
mod corpus;
mod dashboards;
mod fuzz;
mod history;
mod load;
mod query;
mod release;
mod report;
mod rules;
mod sanitize;
mod security;
mod serve;
mod site;
mod site_corpus;
mod support;
mod synth;
