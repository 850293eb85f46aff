//! `registry_client`: a typed client of the facility registry API over the shared core types,
//! with the error envelope mapped to [`ClientError`], and the facility CSV format of the CLI.
//!
//! ```no_run
//! # async fn run() -> Result<(), registry_client::ClientError> {
//! let anonymous = registry_client::Client::new("http://127.0.0.1:8080")?;
//! let login = anonymous.login("admin@example.com", "secret-password").await?;
//! let client = anonymous.with_token(login.token);
//! let page = client.facilities(&registry_client::ListQuery::default()).await?;
//! println!("{} facilities", page.paging.total);
//! # Ok(()) }
//! ```

mod client;
mod error;
pub mod facility_csv;

pub use client::{
    CONNECT_TIMEOUT, Client, DEFAULT_TIMEOUT, FileDownload, ListQuery, MAX_PAGE_SIZE, Result,
    api_base, api_path,
};
pub use error::ClientError;
pub use registry_core;
