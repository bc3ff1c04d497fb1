//! Shared pieces of the echo suite's two programs.

pub mod hdr;
pub mod options;
pub mod settle;
