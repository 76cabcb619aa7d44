//! coolify-fixture: a loopback fake of the Coolify REST API for tests.
//!
//! Start one with [`Fixture::start`] or [`Fixture::builder`]; point a client at
//! [`Fixture::url`] with [`FIXTURE_TOKEN`]; inspect [`Fixture::requests`] afterwards. The data
//! ([`data`]) includes the planted webhook secret and the canaries ([`PLANTED_SECRETS`]).
//! Variants: [`NotFoundMode::Real404`] (real 404s for unknown ids),
//! [`FixtureBuilder::new_deployment_statuses`] (a deployment that finishes or fails, and that
//! `POST /deployments/dep-new-1/cancel` cancels as Coolify does),
//! [`Behaviour::Hanging`] (accepts, never answers), [`FixtureBuilder::route`] (override one
//! route, e.g. a failing list or a hanging endpoint), [`Fixture::set_token`] (rotation).
//! The `coolify-fixture` binary serves the same thing for out-of-process runs.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod data;
pub mod data_more;
mod fixture;
mod routes;
mod routes_more;

pub use data::{
    FIXTURE_TOKEN, FIXTURE_VERSION, FIXTURE_WEBHOOK_SECRET, NEW_DEPLOYMENT_UUID, PLANTED_SECRETS,
};
pub use fixture::{AuthSeen, Behaviour, Fixture, FixtureBuilder, RecordedRequest, RouteOverride};
pub use routes::{NotFoundMode, Reply};
