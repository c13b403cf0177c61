//! Analysis: pure functions from the loaded [`crate::model::Model`] to
//! findings, PRR and template completeness, stage tracking and history.

pub mod board;
pub mod calendar;
pub mod code;
pub mod completeness;
pub mod deadline;
pub mod findings;
pub mod freeze;
pub mod outcome;
pub mod readiness;
pub mod template;
pub mod tracking;

pub use tracking::{Analysis, analyze, analyze_for};
