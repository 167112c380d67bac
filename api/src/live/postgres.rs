//! On PostgreSQL, other servers' commits reach this server's streams: a `LISTEN` connection
//! of its own hears each commit (and each revoked token) and catches the local streams up.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::Live;
use crate::store::Store;
use crate::wakeups::Heard;

/// On PostgreSQL: `LISTEN`s for commits of every server and catches the local streams up;
/// after losing the connection it listens again and re-reads every followed game, so nothing
/// committed meanwhile is missed. Ends when the server closes.
pub async fn follow_postgres(live: Arc<Live>, store: Arc<dyn Store>, pool: sqlx::PgPool) {
    use sqlx::postgres::{PgListener, PgPoolOptions};
    let channel = crate::store::NOTIFY_CHANNEL;
    let mut closing = live.closing();
    // This server's own wake-ups for the others, on the store's pool (which follows the
    // primary).
    let sender = live.clone();
    let sender_pool = pool.clone();
    let sender_closing = live.closing();
    tokio::spawn(async move {
        sender
            .wakeups
            .send(sender_pool, channel, sender_closing)
            .await;
    });
    let mut retry = Duration::from_millis(100);
    loop {
        if *closing.borrow() {
            return;
        }
        // Its own connection, named so an operator (and the tests) can find it; made with the
        // store's options of now, which follow the primary after a failover.
        let options = (*pool.connect_options())
            .clone()
            .application_name(crate::wakeups::LISTENER);
        // A host that does not answer (the primary just lost) is given up on in seconds, not
        // sqlx's 30: the next try takes the options of whatever the store follows by then.
        let listen_pool = PgPoolOptions::new()
            .max_connections(1)
            .acquire_timeout(Duration::from_secs(3))
            .after_connect(|conn, _| {
                Box::pin(async move {
                    crate::store::keepalive::turn_on(conn).await;
                    Ok(())
                })
            })
            .connect_lazy_with(options);
        let listener = async {
            let mut listener = PgListener::connect_with(&listen_pool).await?;
            listener
                .listen_all([channel, crate::store::REVOCATIONS_CHANNEL])
                .await?;
            Ok::<_, sqlx::Error>(listener)
        }
        .await;
        let mut listener = match listener {
            Ok(listener) => listener,
            Err(e) => {
                tracing::warn!(error = %e, "live: cannot LISTEN; retrying");
                tokio::select! {
                    _ = closing.changed() => return,
                    _ = tokio::time::sleep(retry) => {}
                }
                // At most a second: a failover is over in seconds.
                retry = (retry * 2).min(Duration::from_secs(1));
                continue;
            }
        };
        retry = Duration::from_millis(100);
        let mut lobby_heads = HashMap::new();
        // Listening again: whatever was committed while we were not is in the log, and a
        // token may have been revoked or a first token replaced meanwhile.
        live.catch_up_all(store.as_ref()).await;
        store.forget_clubs(None);
        live.recheck_tokens();
        // A host that hangs (not a crash) keeps a LISTEN connection open and silent: once the
        // store follows another host (a failover), listen there, without waiting for TCP.
        let listening_to = host_of(listen_pool.connect_options().as_ref());
        let mut check = tokio::time::interval(Duration::from_secs(1));
        loop {
            let received = {
                let receiving = listener.try_recv();
                tokio::pin!(receiving);
                loop {
                    tokio::select! {
                        _ = closing.changed() => return,
                        received = &mut receiving => break Some(received),
                        _ = check.tick() => {
                            if host_of(pool.connect_options().as_ref()) != listening_to {
                                break None;
                            }
                        }
                    }
                }
            };
            let Some(received) = received else {
                tracing::warn!("live: the store follows another host now; listening there");
                break;
            };
            match received {
                Ok(Some(notification))
                    if notification.channel() == crate::store::REVOCATIONS_CHANNEL =>
                {
                    let revoked = notification.payload();
                    // A first token replaced: its club's row is read again before anyone
                    // checks a token against it.
                    if let Some(club) = crate::store::revoked_first_token(revoked) {
                        store.forget_clubs(Some(club));
                    }
                    live.revoked(revoked);
                }
                Ok(Some(notification)) => match live.wakeups.heard(notification.payload()) {
                    Heard::Committed { .. } => {
                        live.woken(store.as_ref(), &mut lobby_heads).await;
                    }
                    Heard::Game { game, version } => {
                        live.notified(store.as_ref(), game, version).await;
                    }
                    Heard::Own | Heard::Unknown => {}
                },
                Ok(None) => {
                    tracing::warn!("live: the LISTEN connection was lost; listening again");
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, "live: the LISTEN connection failed; listening again");
                    break;
                }
            }
        }
    }
}

/// The host and port a connection's options name.
fn host_of(options: &sqlx::postgres::PgConnectOptions) -> (String, u16) {
    (options.get_host().to_owned(), options.get_port())
}
