//! kepsite command-line entry point.

fn main() {}
