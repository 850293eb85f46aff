//! The types of the storage interface, apart from the functions that dispatch to a backend, so
//! that the backends' queries depend on them and not on the interface that calls the backends.

pub mod audit;
pub mod catalogue;
pub mod claims;
pub mod documents;
pub mod equipment;
pub mod facilities;
pub mod material;
pub mod qc_tests;
pub mod users;
