//! Suite transfer: per cell, a loopback HTTP server, started at prepare, for the worker's life.

use std::io::BufReader;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::failure::Failure;
use crate::http;
use crate::jws::{self, Signer};
use crate::spec::Spec;
use crate::suite_jwt;
use crate::timing::{Calls, Prepared};

fn start_server(signer: Arc<Signer>) -> Result<String, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot listen on 127.0.0.1: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?.to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            if let Err(e) = serve(stream, &signer) {
                eprintln!("transfer server: connection ended: {e}");
            }
        }
    });
    Ok(address)
}

fn serve(stream: TcpStream, signer: &Signer) -> std::io::Result<()> {
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    while let Some(request) = http::read_message(&mut reader)? {
        let token = String::from_utf8_lossy(&request.body);
        let start = Instant::now();
        let verified = signer.verify(token.trim());
        let verify_ns = start.elapsed().as_nanos() as u64;
        let receipt = verified.ok().and_then(|claims| {
            let records = claims.get("records").and_then(Value::as_array).map_or(0, Vec::len);
            let receipt = json!({"dataset": claims.get("dataset").cloned().unwrap_or(Value::Null),
                "records": records, "received_bytes": request.body.len(), "verify_ns": verify_ns});
            signer.sign(&receipt).ok()
        });
        match receipt {
            Some(receipt) => http::write_response(&mut writer, "200 OK", "application/jwt", receipt.as_bytes())?,
            None => http::write_response(&mut writer, "401 Unauthorized", "text/plain", b"invalid token\n")?,
        }
    }
    writer.shutdown(Shutdown::Both)
}

struct Client {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
    host: String,
}

impl Client {
    fn connect(address: &str, timeout: Duration) -> Result<Client, String> {
        let stream = TcpStream::connect(address).map_err(|e| format!("cannot connect to {address}: {e}"))?;
        stream.set_read_timeout(Some(timeout)).map_err(|e| e.to_string())?;
        stream.set_write_timeout(Some(timeout)).map_err(|e| e.to_string())?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        Ok(Client { stream, reader, host: address.to_string() })
    }

    fn post(&mut self, token: &str) -> Result<(u16, Vec<u8>), String> {
        http::write_request(&mut self.stream, &self.host, "/verify", token.as_bytes())
            .map_err(|e| format!("request: {e}"))?;
        let response = http::read_message(&mut self.reader)
            .map_err(|e| format!("response: {e}"))?
            .ok_or("the server closed the connection")?;
        let code = http::status_code(&response.start_line).ok_or("no status code")?;
        if code == 200 && response.content_type.as_deref() != Some("application/jwt") {
            return Err("a 200 response that is not application/jwt".into());
        }
        Ok((code, response.body))
    }
}

struct Trial {
    sign_ns: u64,
    verify_ns: u64,
    token_bytes: u64,
}

/// One trial: sign the body, post it, verify the receipt and check what it says.
fn trial(client: &mut Client, signer: &Signer, body: &Value, records: usize) -> Result<Trial, String> {
    let start = Instant::now();
    let token = signer.sign(body).map_err(|e| e.message().to_string())?;
    let sign_ns = start.elapsed().as_nanos() as u64;
    let (code, receipt) = client.post(&token)?;
    if code != 200 {
        return Err(format!("the server answered {code}"));
    }
    let receipt =
        signer.verify(String::from_utf8_lossy(&receipt).trim()).map_err(|e| format!("receipt: {}", e.message()))?;
    let count = receipt.get("records").and_then(Value::as_u64);
    let received = receipt.get("received_bytes").and_then(Value::as_u64);
    if count != Some(records as u64) || received != Some(token.len() as u64) {
        return Err(format!("receipt says records {count:?}, received_bytes {received:?}"));
    }
    let verify_ns = receipt.get("verify_ns").and_then(Value::as_u64).ok_or("no verify_ns in the receipt")?;
    Ok(Trial { sign_ns, verify_ns, token_bytes: token.len() as u64 })
}

struct Trials {
    client: Client,
    signer: Arc<Signer>,
    body: Value,
    records: usize,
    last: Option<Trial>,
}

impl Calls for Trials {
    fn run(&mut self, n: u64) -> Result<u64, String> {
        let mut fold = 0u64;
        for _ in 0..n {
            let trial = trial(&mut self.client, &self.signer, &self.body, self.records)?;
            fold = fold.wrapping_add(trial.token_bytes);
            self.last = Some(trial);
        }
        Ok(fold)
    }

    fn answer(&mut self, n: u64) -> Result<Map<String, Value>, String> {
        let Some(t) = self.last.take().filter(|_| n == 1) else {
            return Ok(Map::new());
        };
        let parts = json!({"sign": t.sign_ns, "verify": t.verify_ns});
        Ok(Map::from_iter([("output_bytes".into(), t.token_bytes.into()), ("parts".into(), parts)]))
    }
}

/// Every cell of the spec, its server checked (a flipped and an alg:none token get 401).
pub fn cells<'a>(spec: &Spec) -> Result<Vec<Prepared<'a>>, Failure> {
    let timeout = Duration::from_secs_f64(spec.setting("transfer", "request_timeout_seconds")?.max(0.001));
    let mut prepared = Vec::new();
    for cell in &spec.cells {
        let input_bytes = cell.text("input_file").and_then(|f| std::fs::metadata(f).ok()).map_or(0, |m| m.len());
        let who = suite_jwt::who(input_bytes);
        let case = match suite_jwt::prepare(cell, false)? {
            Ok(case) => case,
            Err((status, reason)) => {
                prepared.push(who.not_timed(status, reason));
                continue;
            }
        };
        let body = case.inputs.claims[0].clone();
        let records = body.get("records").and_then(Value::as_array).map_or(0, Vec::len);
        let token = case.tokens[0].clone();
        let signer = Arc::new(case.signer);
        let address = start_server(Arc::clone(&signer)).map_err(Failure::Input)?;
        let checked = (|| -> Result<Client, String> {
            let mut client = Client::connect(&address, timeout)?;
            for (what, forged) in
                [("flipped-signature", jws::flip_signature_bit(&token)), ("alg:none", jws::unsigned_twin(&token))]
            {
                let (code, _) = client.post(&forged.map_err(|e| e.message().to_string())?)?;
                if code != 401 {
                    return Err(format!("the server answered {code} to a {what} token, not 401"));
                }
            }
            Ok(client)
        })();
        prepared.push(match checked {
            Ok(client) => {
                let trials = Trials { client, signer, body, records, last: None };
                who.timed(token.len() as u64, 1, Box::new(trials))
            }
            Err(reason) => who.not_timed("failed", reason),
        });
    }
    Ok(prepared)
}
