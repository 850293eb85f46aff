//! Several instances of the service on one PostgreSQL database, as a scaled-out deploy runs
//! them: the address of an app's database, and a second instance on it (through a relay or not).

use crate::helpers::{Backend, TestApp};

impl TestApp {
    /// The `host:port` of this app's PostgreSQL server.
    pub fn postgres_address(&self) -> String {
        let url = self.database_url();
        format!(
            "{}:{}",
            url.host_str().unwrap_or("127.0.0.1"),
            url.port().unwrap_or(5432)
        )
    }

    fn database_url(&self) -> reqwest::Url {
        let url = self
            .state
            .config
            .database_url
            .as_deref()
            .expect("a database URL");
        reqwest::Url::parse(url).expect("a URL")
    }

    /// Another instance on this app's PostgreSQL database, with the same token secret; it
    /// reaches the database through a relay on 127.0.0.1:`relay` when one is given.
    pub async fn second_instance(&self, relay: Option<u16>) -> TestApp {
        let mut url = self.database_url();
        if let Some(port) = relay {
            url.set_host(Some("127.0.0.1")).unwrap();
            url.set_port(Some(port)).unwrap();
        }
        let secret = self.state.config.jwt_secret.clone();
        TestApp::spawn_with(Backend::Postgres, |c| {
            c.database_url = Some(url.to_string());
            c.jwt_secret = secret;
        })
        .await
        .expect("second instance")
    }
}
