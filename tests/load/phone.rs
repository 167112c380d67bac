//! One table's phone for the appending-only loop: a single HTTP/1 connection kept open, each
//! request written over hyper's client connection. reqwest's pooled client (its pool, URL
//! parsing and header maps a request) took about 40 µs of the two CPUs an append here, CPU the
//! server being measured then did not have (BENCHMARKS.md, "The phones' share of the CPUs").

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::header::{AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper_util::rt::TokioIo;

pub struct Phone {
    sender: SendRequest<Full<Bytes>>,
    host: HeaderValue,
    authorization: HeaderValue,
}

impl Phone {
    /// Opens the connection to `base` (`http://host:port`), sending `token` with every request.
    pub async fn connect(base: &str, token: &str) -> Result<Self, String> {
        let address = base
            .strip_prefix("http://")
            .ok_or_else(|| format!("{base} is not an http:// address"))?;
        let stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| format!("connecting to {address}: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| e.to_string())?;
        tokio::spawn(connection);
        let header = |value: String| HeaderValue::from_str(&value).map_err(|e| e.to_string());
        Ok(Self {
            sender,
            host: header(address.to_owned())?,
            authorization: header(format!("Bearer {token}"))?,
        })
    }

    /// POSTs the JSON `body` to `path`: the answer's status and body.
    pub async fn post(&mut self, path: &str, body: Vec<u8>) -> Result<(u16, Bytes), String> {
        let request = hyper::Request::post(path)
            .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
            .body(Full::new(Bytes::from(body)));
        self.send(request).await
    }

    /// GETs `path`: the answer's status and body.
    pub async fn get(&mut self, path: &str) -> Result<(u16, Bytes), String> {
        self.send(hyper::Request::get(path).body(Full::new(Bytes::new())))
            .await
    }

    async fn send(
        &mut self,
        request: hyper::http::Result<hyper::Request<Full<Bytes>>>,
    ) -> Result<(u16, Bytes), String> {
        self.sender.ready().await.map_err(|e| e.to_string())?;
        let mut request = request.map_err(|e| e.to_string())?;
        let headers = request.headers_mut();
        headers.insert(HOST, self.host.clone());
        headers.insert(AUTHORIZATION, self.authorization.clone());
        let response = self
            .sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status().as_u16();
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| e.to_string())?
            .to_bytes();
        Ok((status, body))
    }
}
