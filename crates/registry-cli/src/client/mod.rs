//! The typed HTTP client of the registry API (reqwest + rustls), over the shared core types: the
//! requests and the error mapping in `http`, the endpoints one file per area of the API.

/// Methods of [`Client`] that are one request each, written as a table of endpoints:
/// `fn name(args) -> Output = request(path, body or query);` is
/// `pub async fn name(&self, args) -> Result<Output>` awaiting `self.request(path, …)`.
macro_rules! endpoints {
    ($(
        $(#[$attr:meta])*
        fn $name:ident($($arg:ident: $ty:ty),*) -> $out:ty = $request:ident($($e:expr),+ $(,)?);
    )*) => {
        $(
            $(#[$attr])*
            pub async fn $name(&self, $($arg: $ty),*) -> Result<$out> {
                self.$request($($e),+).await
            }
        )*
    };
}

mod accounts;
mod documents;
mod equipment;
mod facilities;
mod http;
mod material;
mod pages;

pub use http::{
    CONNECT_TIMEOUT, Client, DEFAULT_TIMEOUT, FileDownload, ListQuery, MAX_PAGE_SIZE, Result,
    api_base, api_path,
};
