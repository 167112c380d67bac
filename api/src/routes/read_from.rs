//! Where a statistics or history answer was read: the `Read-From` and `Read-Position`
//! headers of the answers a standby may serve, and their description in the OpenAPI document.

use actix_web::HttpResponse;
use serde::Serialize;

use crate::error::ApiError;
use crate::store::Reads;

/// A statistics or history answer, saying where it was read (`Read-From`) and the newest lobby
/// change of the club that database held once it was read (`Read-Position`): the answer
/// counts nothing after that position (see docs/deploy.md, "Reads from the standby").
pub(super) async fn read_answer(
    reads: &Reads<'_>,
    club: &str,
    body: &impl Serialize,
) -> Result<HttpResponse, ApiError> {
    let seen = reads.store.seen_position(club).await?;
    Ok(answered(reads, seen, body))
}

/// [`read_answer`] for the statistics: `Read-Position` is the newest lobby change whose games
/// they count, which a standby gives only once it has replayed the adding of the finishes up to
/// it (they are added in batches after the finish, `store::stats::settle`).
pub(super) async fn statistics_answer(
    reads: &Reads<'_>,
    club: &str,
    body: &impl Serialize,
) -> Result<HttpResponse, ApiError> {
    let counted = reads.store.counted_position(club).await?;
    Ok(answered(reads, counted, body))
}

fn answered(reads: &Reads<'_>, position: i64, body: &impl Serialize) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((READ_FROM, reads.from.as_str()))
        .insert_header((READ_POSITION, position))
        .json(body)
}

const READ_FROM: &str = "Read-From";
const READ_POSITION: &str = "Read-Position";

/// The reads [`read_answer`] serves: they may come from a standby.
const READ_FROM_STANDBY: [&str; 10] = [
    "/v1/games",
    "/v1/games/{id}/ratings",
    "/v1/players",
    "/v1/players/{id}/stats",
    "/v1/players/{id}/games",
    "/v1/players/{id}/ratings",
    "/v1/stats/leaderboard",
    "/v1/stats/head-to-head",
    "/v1/stats/games/{game}",
    "/v1/stats/ratings",
];

/// Says in the OpenAPI document which answers carry `Read-From` and `Read-Position`.
pub fn describe_read_headers(api: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::header::HeaderBuilder;
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    use utoipa::openapi::{Ref, RefOr};

    let components = api.components.get_or_insert_with(Default::default);
    components.headers.insert(
        "ReadFrom".into(),
        RefOr::T(
            HeaderBuilder::new()
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .enum_values(Some(["primary", "standby"])),
                ))
                .description(Some(
                    "The database this answer was read from: `standby` when the server reads \
                     statistics and history lists from a standby (`TABLETALLY_READ_DATABASE_URL`) \
                     and one answered, else `primary`.",
                ))
                .build(),
        ),
    );
    components.headers.insert(
        "ReadPosition".into(),
        RefOr::T(
            HeaderBuilder::new()
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::Integer)
                        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                            utoipa::openapi::KnownFormat::Int64,
                        )))
                        .minimum(Some(0)),
                ))
                .description(Some(
                    "The newest change of the club's lobby (a game created, finished, abandoned \
                     or resumed; the lobby stream's `id`) that the database held once this \
                     answer was read: the answer counts no change after it. A standby may be \
                     behind the primary; a game's own reads (`/v1/games/{id}`, its score, its \
                     events) always come from the primary and never go backwards.",
                ))
                .build(),
        ),
    );
    for path in READ_FROM_STANDBY {
        let Some(RefOr::T(ok)) = api
            .paths
            .paths
            .get_mut(path)
            .and_then(|item| item.get.as_mut())
            .and_then(|get| get.responses.responses.get_mut("200"))
        else {
            panic!("the document has no 200 answer of GET {path}");
        };
        for (name, component) in [(READ_FROM, "ReadFrom"), (READ_POSITION, "ReadPosition")] {
            ok.headers.insert(
                name.into(),
                RefOr::Ref(Ref::new(format!("#/components/headers/{component}"))),
            );
        }
    }
}
