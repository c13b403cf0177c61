//! findings (in progress)
