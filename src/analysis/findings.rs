//! Validation rules (in progress).
