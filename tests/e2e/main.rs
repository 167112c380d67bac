//! End-to-end tests: the real HTTP server, on SQLite and (when configured) PostgreSQL, each
//! test with a fresh database. One binary, so linking happens once.

mod browser;
mod helpers;

mod events;
mod games;
mod isolation;
mod mind_up;
mod mint_condition;
mod mint_julep;
mod operations;
mod pad;
mod portability;
mod problems;
mod statistics;
mod tenancy;
mod vintage;
