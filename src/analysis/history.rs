//! history (in progress)
