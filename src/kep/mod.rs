//! KEP model.

pub mod document;
