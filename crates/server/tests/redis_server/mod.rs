//! The shared-store tests' Redis deployments: [`launcher`] starts one
//! real `redis-server` (its items are re-exported here), [`cluster`] and
//! [`sentinel`] build deployments of them, and [`stress`] holds the
//! concurrency tests' load and checks.
#![allow(dead_code)]

pub mod cluster;
pub mod launcher;
pub mod sentinel;
pub mod stress;
pub mod tls;

pub use launcher::*;
