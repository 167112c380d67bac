//! End-to-end tests: the real HTTP server, on SQLite and (when configured) PostgreSQL, each
//! test with a fresh database. One binary, so linking happens once.

mod browser;
mod helpers;

mod access;
mod catalogues;
mod contract;
mod events;
mod examples;
mod failover;
mod games;
mod history;
mod isolation;
mod languages;
mod live;
mod mind_up;
mod mint_condition;
mod mint_julep;
mod operations;
mod other_apps;
mod pad;
mod pad_deadspot;
mod pad_forms;
mod pad_languages;
mod pad_phones;
mod pad_ratings;
mod pad_table;
mod players;
mod portability;
mod presets;
mod problems;
mod ratings;
mod refusals;
mod scoreboards;
mod statistics;
mod tenancy;
mod vintage;
