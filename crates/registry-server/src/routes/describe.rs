//! Routes written once: a handler's `#[utoipa::path(method, path = "/api/…")]` places it in the
//! router (at the path without the `/api` prefix, under which `app.rs` nests the router) and
//! describes it in the OpenAPI document. A resource module lists its handlers:
//!
//! ```text
//! pub fn routes() -> Routes {
//!     routes![list, show, upload::register]
//!         .route(route!(edit::edit).layer(DefaultBodyLimit::disable()))
//! }
//! ```
//!
//! Handlers on the same path (one `#[utoipa::path]` each, or one with several methods) share its
//! method router. Requests with a trailing slash reach the same route: the accept loop trims it
//! (`app.rs`).

use crate::state::AppState;
use axum::Router;
use axum::extract::Request;
use axum::handler::Handler;
use axum::response::IntoResponse;
use axum::routing::{MethodFilter, MethodRouter};
use std::convert::Infallible;
use tower::{Layer, Service};
use utoipa::openapi::OpenApi;
use utoipa::openapi::path::{Operation, PathItem};

/// Where `app.rs` nests the API router; every documented path starts with it.
pub const PREFIX: &str = "/api";

/// One handler, made by [`route!`]: where and for which methods it answers, and its part of the
/// OpenAPI document (its operation and the schemas that names).
pub struct Route {
    path: String,
    aliases: Vec<&'static str>,
    method_router: MethodRouter<AppState>,
    openapi: OpenApi,
}

impl Route {
    /// `openapi` describes `handler` alone (what [`route!`] derives from its `#[utoipa::path]`).
    pub fn new<H, T>(mut openapi: OpenApi, handler: H) -> Route
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let mut paths = openapi.paths.paths.iter_mut();
        let (Some((path, item)), None) = (paths.next(), paths.next()) else {
            panic!("a route is described by one #[utoipa::path]");
        };
        let path = routed(path).to_owned();
        let method_router = slots(item)
            .into_iter()
            .filter(|(_, operation)| operation.is_some())
            .fold(MethodRouter::new(), |router, (method, _)| {
                router.on(method, handler.clone())
            });
        Route {
            path,
            aliases: Vec::new(),
            method_router,
            openapi,
        }
    }

    /// Also answers at `path` (with the `/api` prefix), which the document does not list.
    pub fn also_at(mut self, path: &'static str) -> Route {
        self.aliases.push(routed(path));
        self
    }

    /// Also answers at `path` (with the `/api` prefix), listed in the document as a copy of the
    /// handler's own operation (the operation id gains the alias, as ids must be unique).
    pub fn documented_also_at(mut self, path: &'static str) -> Route {
        let (_, item) = self.openapi.paths.paths.iter().next().expect("one path");
        let mut copy = item.clone();
        for (_, operation) in slots(&mut copy) {
            if let Some(id) = operation.as_mut().and_then(|o| o.operation_id.as_mut()) {
                id.push_str("_at_");
                id.push_str(&routed(path)[1..].replace(['/', '{', '}'], "_"));
            }
        }
        self.openapi.paths.paths.insert(path.to_owned(), copy);
        self.also_at(path)
    }

    /// Wraps the handler in `layer` (a body limit of its own, say).
    pub fn layer<L>(mut self, layer: L) -> Route
    where
        L: Layer<axum::routing::Route> + Clone + Send + Sync + 'static,
        L::Service: Service<Request, Error = Infallible> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Response: IntoResponse + 'static,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        self.method_router = self.method_router.layer(layer);
        self
    }
}

/// `path` relative to the router nested at [`PREFIX`].
fn routed(path: &str) -> &str {
    path.strip_prefix(PREFIX)
        .filter(|rest| rest.starts_with('/'))
        .unwrap_or_else(|| panic!("the route {path} is not under {PREFIX}/"))
}

/// Each method a `#[utoipa::path]` can name, with its operation's place in a path item.
fn slots(item: &mut PathItem) -> [(MethodFilter, &mut Option<Operation>); 8] {
    [
        (MethodFilter::GET, &mut item.get),
        (MethodFilter::PUT, &mut item.put),
        (MethodFilter::POST, &mut item.post),
        (MethodFilter::DELETE, &mut item.delete),
        (MethodFilter::OPTIONS, &mut item.options),
        (MethodFilter::HEAD, &mut item.head),
        (MethodFilter::PATCH, &mut item.patch),
        (MethodFilter::TRACE, &mut item.trace),
    ]
}

/// Routes and their description, built together.
#[derive(Default)]
pub struct Routes {
    router: Router<AppState>,
    openapi: OpenApi,
}

impl Routes {
    pub fn new() -> Routes {
        Routes::default()
    }

    pub fn route(mut self, route: Route) -> Routes {
        for path in std::iter::once(route.path.as_str()).chain(route.aliases) {
            self.router = self.router.route(path, route.method_router.clone());
        }
        self.openapi.merge(route.openapi);
        self
    }

    pub fn merge(mut self, other: Routes) -> Routes {
        self.router = self.router.merge(other.router);
        self.openapi.merge(other.openapi);
        self
    }

    pub fn into_router(self) -> Router<AppState> {
        self.router
    }

    pub fn into_openapi(self) -> OpenApi {
        self.openapi
    }
}

/// The [`Route`] of a handler with a `#[utoipa::path]`: `route!(list)`, `route!(edit::edit)`.
macro_rules! route {
    ($($segment:ident)::+) => {{
        #[derive(utoipa::OpenApi)]
        #[openapi(paths($($segment)::+))]
        struct Described;
        $crate::routes::describe::Route::new(
            <Described as utoipa::OpenApi>::openapi(),
            $($segment)::+,
        )
    }};
}

/// [`Routes`] of handlers with a `#[utoipa::path]` each: `routes![list, show, edit::edit]`.
macro_rules! routes {
    ($($($segment:ident)::+),* $(,)?) => {
        $crate::routes::describe::Routes::new()
            $(.route($crate::routes::describe::route!($($segment)::+)))*
    };
}

pub(crate) use {route, routes};
