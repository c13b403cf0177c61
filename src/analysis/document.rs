//! document (in progress)
