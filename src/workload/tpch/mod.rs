//! `tpch`: TPC-H 3.0.1's 22 queries.

pub mod queries;
