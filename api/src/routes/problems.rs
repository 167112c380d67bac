//! The refusals the routes' OpenAPI paths list: each a type named in
//! `#[utoipa::path(responses(...))]` whose one answer is a [`Problem`] as
//! `application/problem+json`, so a route states its status and description once. The
//! refusals of several resources are here; a resource declares its own with [`problems!`].

use std::collections::BTreeMap;

use utoipa::ToSchema;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::{ContentBuilder, Ref, RefOr};

use crate::error::Problem;

/// One answer: `status`, `description`, a [`Problem`] as `application/problem+json`.
pub fn problem_answer(status: u16, description: &str) -> BTreeMap<String, RefOr<Response>> {
    let body = ContentBuilder::new()
        .schema(Some(Ref::from_schema_name(Problem::name())))
        .build();
    let answer = ResponseBuilder::new()
        .description(description)
        .content("application/problem+json", body)
        .build();
    BTreeMap::from([(status.to_string(), RefOr::T(answer))])
}

/// Declares refusals, `Name: status, "description";`, each a type for `responses(...)`.
macro_rules! problems {
    ($($name:ident: $status:literal, $description:literal;)+) => {$(
        #[doc = concat!("`", $status, "`: ", $description, ".")]
        pub struct $name;

        impl utoipa::IntoResponses for $name {
            fn responses() -> std::collections::BTreeMap<
                String,
                utoipa::openapi::RefOr<utoipa::openapi::response::Response>,
            > {
                $crate::routes::problems::problem_answer($status, $description)
            }
        }
    )+};
}
pub(crate) use problems;

problems! {
    BadQuery: 400, "A bad query parameter";
    MalformedJson: 400, "Malformed JSON";
    IdNotUuid: 400, "The id is not a UUID";
    Unauthorized: 401, "Missing or wrong token";
    ReadOnlyToken: 403, "A token with scope read: it may read but not change anything";
    NoSuchGame: 404, "No such game in this club";
    BodyTooLarge: 413, "Body too large";
    NotJson: 415, "Not JSON";
}
