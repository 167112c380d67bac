//! Where a statistics or history answer was read: the `Read-From` and `Read-Position`
//! headers of the answers a standby may serve ([`ReadAt`]), and their description in the
//! OpenAPI document.

use actix_web::HttpResponse;
use serde::Serialize;

use crate::error::ApiError;
use crate::store::{ReadFrom, Reads};

/// Where a statistics or history answer is read: its database (`Read-From`) and the club's
/// newest lobby change that database held when the answer's reads began (`Read-Position`).
/// Taken before those reads: a database only moves on, so the answer counts that change and
/// every change the database held with it, perhaps more that came in while it was read. A phone
/// that waits for its finish to be counted asks again while the position is below its finish's
/// (see docs/deploy.md, "Reads from the standby").
pub(super) struct ReadAt {
    from: ReadFrom,
    position: i64,
}

impl ReadAt {
    /// For a history answer (a list of games, a player's games, ratings).
    pub(super) async fn history(reads: &Reads<'_>, club: &str) -> Result<Self, ApiError> {
        Ok(Self {
            from: reads.from,
            position: reads.store.seen_position(club).await?,
        })
    }

    /// For the statistics: the newest lobby change whose games they count, which a standby
    /// gives only once it has replayed the adding of the finishes up to it (they are added in
    /// batches after the finish, `store::stats::settle`).
    pub(super) async fn statistics(reads: &Reads<'_>, club: &str) -> Result<Self, ApiError> {
        Ok(Self {
            from: reads.from,
            position: reads.store.counted_position(club).await?,
        })
    }

    /// The answer, with its two headers.
    pub(super) fn answer(&self, body: &impl Serialize) -> HttpResponse {
        HttpResponse::Ok()
            .insert_header((READ_FROM, self.from.as_str()))
            .insert_header((READ_POSITION, self.position))
            .json(body)
    }
}

const READ_FROM: &str = "Read-From";
const READ_POSITION: &str = "Read-Position";

/// The reads answered with [`ReadAt`]: they may come from a standby.
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
                     or resumed; the lobby stream's `id`) that the database held when this \
                     answer began to be read: the answer counts it and every change the database \
                     held with it (for the statistics: the newest change whose games they count). \
                     A phone waiting for its finish to be counted asks again while this is below \
                     its finish's position. A standby may be behind the primary; a game's own \
                     reads (`/v1/games/{id}`, its score, its events) always come from the primary \
                     and never go backwards.",
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
