//! kepsite turns a kubernetes/enhancements repository into a static KEP portal,
//! validation findings, queries and release-team reports.
//!
//! The pipeline, each stage a pure function of the previous one:
//!
//! ```text
//! repo::load_with ──▶ model::from_snapshot ──▶ analysis::analyze ──▶ query / export / site / report
//! (RepoSnapshot)       (Model: Vec<Kep>, PRR     (Analysis: findings,    (text, JSON, pages)
//!                       files, aliases)           PRR, stages, history)
//! ```
//!
//! Nothing is mutated after loading, so the parallel stages need no locks, and
//! everything is ordered by KEP number and path so two builds are identical.

pub mod analysis;
pub mod atomic_write;
mod cache_file;
pub mod check;
pub mod cli;
pub mod diagnostics;
pub mod errors;
pub mod escape;
pub mod finding;
pub mod hash;
pub mod input_file;
pub mod kep;
pub mod model;
pub mod project;
pub mod query;
pub mod repo;
pub mod report;
pub mod serve;
pub mod site;
pub mod team;
pub mod theme;
pub mod timing;
pub mod urls;
pub mod view;
