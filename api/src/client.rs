//! Who a request comes from: the peer's address, or — when the peer is a proxy this server was
//! told to trust (`TABLETALLY_TRUSTED_PROXIES`) — the address that proxy says it forwarded.
//! The one answer serves the rate limits, the stream limits and the request log alike, so a
//! client can neither hide behind a made-up `X-Forwarded-For` nor be blamed for another's.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::dev::ServiceRequest;

/// The proxies whose `X-Forwarded-For` is believed: addresses or CIDR ranges.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<(IpAddr, u8)>);

impl TrustedProxies {
    /// `10.0.0.1, 192.168.0.0/16, ::1` (spaces ignored); `Err` names the entry that is not one.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut ranges = Vec::new();
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let (address, bits) = entry.split_once('/').unwrap_or((entry, ""));
            let address: IpAddr = address.parse().map_err(|_| entry.to_owned())?;
            let most = if address.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                "" => most,
                bits => bits
                    .parse::<u8>()
                    .ok()
                    .filter(|b| *b <= most)
                    .ok_or_else(|| entry.to_owned())?,
            };
            ranges.push((address, bits));
        }
        Ok(Self(ranges))
    }

    fn trusts(&self, address: IpAddr) -> bool {
        self.0
            .iter()
            .any(|(range, bits)| within(address, *range, *bits))
    }

    /// The client's address: the peer's, unless the peer is trusted; then, walking
    /// `X-Forwarded-For` from its end (what the nearest proxy added), the first address no
    /// trusted proxy has.
    pub fn client(&self, peer: Option<IpAddr>, forwarded_for: &[&str]) -> Option<IpAddr> {
        let mut client = peer?;
        if !self.trusts(client) {
            return Some(client);
        }
        let hops = forwarded_for
            .iter()
            .flat_map(|header| header.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        for hop in hops.into_iter().rev() {
            let Ok(address) = hop.parse::<IpAddr>() else {
                // A hop that is no address: nothing before it can be believed.
                return Some(client);
            };
            client = address;
            if !self.trusts(address) {
                break;
            }
        }
        Some(client)
    }
}

fn within(address: IpAddr, range: IpAddr, bits: u8) -> bool {
    match (address, range) {
        (IpAddr::V4(a), IpAddr::V4(r)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(a) & mask == u32::from(r) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(r)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(a) & mask == u128::from(r) & mask
        }
        _ => false,
    }
}

/// The client's address of a request, by the server's trusted proxies.
pub fn address(req: &HttpRequest) -> Option<IpAddr> {
    let trusted = req
        .app_data::<actix_web::web::Data<TrustedProxies>>()
        .map(|proxies| proxies.get_ref());
    of(req.peer_addr().map(|a| a.ip()), req.headers(), trusted)
}

/// [`address`] of a request not yet routed (the request log's middleware).
pub fn address_of_service(req: &ServiceRequest) -> Option<IpAddr> {
    address(req.request())
}

fn of(
    peer: Option<IpAddr>,
    headers: &actix_web::http::header::HeaderMap,
    trusted: Option<&TrustedProxies>,
) -> Option<IpAddr> {
    let Some(trusted) = trusted else {
        return peer;
    };
    let forwarded: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .filter_map(|v| v.to_str().ok())
        .collect();
    trusted.client(peer, &forwarded)
}

/// Says who the client is once, before the request log and everything after it read it: a
/// request's `X-Forwarded-For` becomes the client's address alone ([`address`]), and the other
/// forwarding headers go (actix's `realip_remote_addr`, which the log takes, would believe them).
pub async fn name_the_client(
    mut req: ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    use actix_web::http::header::{self, HeaderValue};
    let client = address_of_service(&req);
    let headers = req.headers_mut();
    headers.remove(header::FORWARDED);
    headers.remove("x-real-ip");
    match client.and_then(|ip| HeaderValue::from_str(&ip.to_string()).ok()) {
        Some(value) => {
            headers.insert(header::X_FORWARDED_FOR, value);
        }
        None => {
            headers.remove(header::X_FORWARDED_FOR);
        }
    }
    next.call(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn a_forwarded_address_counts_only_from_a_trusted_proxy() {
        let trusted = TrustedProxies::parse("10.0.0.0/8, ::1").unwrap();

        // Anyone may write the header: from an untrusted peer it is ignored.
        assert_eq!(
            trusted.client(Some(ip("203.0.113.9")), &["1.2.3.4"]),
            Some(ip("203.0.113.9"))
        );
        // From the trusted proxy, the address it added (the last one), not one the client wrote.
        assert_eq!(
            trusted.client(Some(ip("10.1.2.3")), &["6.6.6.6, 198.51.100.7"]),
            Some(ip("198.51.100.7"))
        );
        // Through two trusted proxies, the first untrusted hop from the end.
        assert_eq!(
            trusted.client(Some(ip("::1")), &["6.6.6.6, 198.51.100.7", "10.9.9.9"]),
            Some(ip("198.51.100.7"))
        );
        // A trusted peer without the header, or with rubbish in it, is itself the client.
        assert_eq!(
            trusted.client(Some(ip("10.1.2.3")), &[]),
            Some(ip("10.1.2.3"))
        );
        assert_eq!(
            trusted.client(Some(ip("10.1.2.3")), &["unknown"]),
            Some(ip("10.1.2.3"))
        );
        // Nothing trusted: the peer, always.
        assert_eq!(
            TrustedProxies::default().client(Some(ip("10.1.2.3")), &["1.2.3.4"]),
            Some(ip("10.1.2.3"))
        );
    }

    #[test]
    fn trusted_proxies_are_addresses_or_ranges_and_anything_else_is_named() {
        assert!(TrustedProxies::parse("").unwrap().0.is_empty());
        assert_eq!(
            TrustedProxies::parse("192.168.0.0/16,fd00::/8").unwrap().0,
            vec![(ip("192.168.0.0"), 16), (ip("fd00::"), 8)]
        );
        assert_eq!(
            TrustedProxies::parse("10.0.0.0/33"),
            Err("10.0.0.0/33".into())
        );
        assert_eq!(
            TrustedProxies::parse("proxy.local"),
            Err("proxy.local".into())
        );
    }
}
