//! The typed HTTP client of the registry API (reqwest + rustls), over the shared core types: the
//! requests and the error mapping in `http`, the endpoints one file per area of the API.

mod accounts;
mod documents;
mod equipment;
mod facilities;
mod http;
mod material;

pub use http::{Client, FileDownload, ListQuery, MAX_PAGE_SIZE, Result, api_base};
