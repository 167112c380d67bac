//! The tabletally HTTP server: thin handlers over an event store and the pure domain.
//!
//! - [`startup`] builds the actix app, the routes and the OpenAPI document.
//! - [`routes`] has one module per resource; handlers parse, call, and answer.
//! - [`append`] decides what an append request means (retry, conflict, rule error, write).
//! - [`store`] is the event store trait with its SQLite and PostgreSQL implementations.
//! - [`extract`] reads bodies, queries and paths, refusing them in players' words.
//! - [`pad`] serves the score pad, the web page for the table, at `/`.
//! - [`error`] turns every failure into `application/problem+json`.
//! - [`live`] fans commits out to the server-sent-event streams (in process, and across servers
//!   on PostgreSQL through `LISTEN/NOTIFY`).

pub mod admission;
pub mod append;
pub mod auth;
pub mod bare_answers;
pub mod client;
pub mod config;
pub mod error;
pub mod examples;
pub mod extract;
pub mod http;
pub mod language;
pub mod limits;
pub mod live;
pub mod metrics;
pub mod openapi;
pub mod pad;
pub mod portability;
pub mod ratings;
pub mod records;
pub mod routes;
pub mod speaking;
pub mod startup;
pub mod state;
pub mod statistics;
pub mod store;
pub mod streams;
pub mod telemetry;
pub mod views;
pub mod wakeups;
