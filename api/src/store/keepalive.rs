//! TCP keepalive on every PostgreSQL connection, set by the server itself.
//!
//! A connection to a host that fell off the network (no FIN, no RST reaches us) waits for TCP
//! to give up, some 15 minutes, unless keepalive probes notice the silence first. sqlx 0.9
//! turns keepalive on for no socket and has no option for it (upstream: launchbadge/sqlx#3540).
//! So each new connection is found among this process's sockets by its two ports — PostgreSQL
//! says which port it sees us on — and given keepalive probes and a user timeout: a host that
//! stops answering is given up on in about [`GIVEN_UP_AFTER`], whatever the machine's sysctl
//! says. A host that hangs but whose machine still answers TCP (a frozen process) is not a
//! keepalive's business: every request's answer deadline bounds that (503 in 8 s).
//!
//! Linux only. Elsewhere, and through a proxy that changes ports, nothing is set (logged at
//! debug).

use std::time::Duration;

use sqlx::{PgConnection, Row};

/// Silence before the first probe, between probes, and probes unanswered before the
/// connection is given up on; the user timeout gives up on data sent and not acknowledged.
const IDLE: Duration = Duration::from_secs(10);
const INTERVAL: Duration = Duration::from_secs(3);
const PROBES: u32 = 3;
/// `IDLE` + `PROBES` × `INTERVAL`, and the user timeout.
pub const GIVEN_UP_AFTER: Duration = Duration::from_secs(19);

/// Turns keepalive on for `conn`'s socket. Never fails the connection: a socket not found is
/// logged and left as it is.
pub async fn turn_on(conn: &mut PgConnection) {
    let ports = sqlx::query("SELECT inet_client_port() AS ours, inet_server_port() AS theirs")
        .fetch_one(&mut *conn)
        .await
        .and_then(|row| {
            Ok((
                row.try_get::<Option<i32>, _>("ours")?,
                row.try_get::<Option<i32>, _>("theirs")?,
            ))
        });
    let (ours, theirs) = match ports {
        Ok((Some(ours), Some(theirs))) => (ours, theirs),
        // A Unix socket: no TCP to keep alive.
        Ok(_) => return,
        Err(e) => {
            tracing::debug!(error = %e, "keepalive: the connection's ports could not be read");
            return;
        }
    };
    let (Ok(ours), Ok(theirs)) = (u16::try_from(ours), u16::try_from(theirs)) else {
        return;
    };
    match on_socket(ours, theirs) {
        Ok(true) => {}
        Ok(false) => tracing::debug!(
            ours,
            theirs,
            "keepalive: no socket of this process has the connection's ports (a proxy between?)"
        ),
        Err(e) => tracing::debug!(error = %e, "keepalive: not set"),
    }
}

/// Sets keepalive on the socket from local port `ours` to remote port `theirs`; whether one
/// was found.
#[cfg(target_os = "linux")]
fn on_socket(ours: u16, theirs: u16) -> std::io::Result<bool> {
    use std::os::fd::{BorrowedFd, RawFd};
    for entry in std::fs::read_dir("/proc/self/fd")? {
        let Ok(entry) = entry else { continue };
        let is_socket = std::fs::read_link(entry.path())
            .is_ok_and(|target| target.to_string_lossy().starts_with("socket:"));
        let Some(fd) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<RawFd>().ok())
        else {
            continue;
        };
        if !is_socket {
            continue;
        }
        // SAFETY: the descriptor is only borrowed for the calls below. Closed meanwhile, they
        // fail; reused by another socket, its ports tell it apart.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        let socket = socket2::SockRef::from(&fd);
        let port = |address: std::io::Result<socket2::SockAddr>| {
            address.ok().and_then(|a| a.as_socket()).map(|a| a.port())
        };
        if port(socket.local_addr()) == Some(ours) && port(socket.peer_addr()) == Some(theirs) {
            socket.set_tcp_keepalive(
                &socket2::TcpKeepalive::new()
                    .with_time(IDLE)
                    .with_interval(INTERVAL)
                    .with_retries(PROBES),
            )?;
            socket.set_tcp_user_timeout(Some(GIVEN_UP_AFTER))?;
            return Ok(true);
        }
    }
    Ok(false)
}

#[cfg(not(target_os = "linux"))]
fn on_socket(_ours: u16, _theirs: u16) -> std::io::Result<bool> {
    Ok(false)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use sqlx::Connection;

    /// The socket of `conn`, found as `turn_on` finds it.
    async fn socket_of(conn: &mut PgConnection) -> socket2::Socket {
        let row = sqlx::query("SELECT inet_client_port() AS ours")
            .fetch_one(&mut *conn)
            .await
            .unwrap();
        let ours = u16::try_from(row.get::<i32, _>("ours")).unwrap();
        let found = std::fs::read_dir("/proc/self/fd")
            .unwrap()
            .find_map(|entry| {
                let fd: i32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
                // SAFETY: duplicated at once; the test holds the connection open meanwhile.
                let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
                let socket = socket2::SockRef::from(&fd);
                let port = socket.local_addr().ok()?.as_socket()?.port();
                (port == ours).then(|| socket.try_clone().ok()).flatten()
            });
        found.expect("the connection's socket")
    }

    #[tokio::test]
    async fn a_postgresql_connection_gets_keepalive_probes_and_a_user_timeout() {
        let Some(url) = crate::store::test_postgres_url() else {
            return;
        };
        let mut conn = PgConnection::connect(&url).await.unwrap();
        assert!(
            !socket_of(&mut conn).await.keepalive().unwrap(),
            "off before"
        );

        turn_on(&mut conn).await;

        let socket = socket_of(&mut conn).await;
        assert!(socket.keepalive().unwrap());
        assert_eq!(socket.tcp_keepalive_time().unwrap(), IDLE);
        assert_eq!(socket.tcp_keepalive_interval().unwrap(), INTERVAL);
        assert_eq!(socket.tcp_keepalive_retries().unwrap(), PROBES);
        assert_eq!(socket.tcp_user_timeout().unwrap(), Some(GIVEN_UP_AFTER));
    }
}
