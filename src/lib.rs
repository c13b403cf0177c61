//! kepsite turns a kubernetes/enhancements repository into a static KEP portal,
//! validation findings, queries and release-team reports.
//!
//! One public way to load: [`project::Project::load`] reads what an
//! [`project::Input`] names into a `Project` (and `serve` takes an edit with
//! `Project::reload`). Inside it, the pipeline, each stage a pure function
//! of the previous one, each crate-private:
//!
//! ```text
//! repo::load_with ──▶ model::from_snapshot ──▶ analysis::analyze ──▶ Project ──▶ query / export / site / report
//! (RepoSnapshot)       (Model: Vec<Kep>, PRR     (Analysis: findings,    (+ history,   (text, JSON, pages)
//!                       files, aliases)           PRR, stages)            code, team)
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
