//! Suite transfer (seed 000's data transfer): per cell, a loopback HTTP server on
//! 127.0.0.1 verifies each posted token (algorithm pinned) and answers with a signed
//! receipt; the client times sign + post + receipt check per trial.

use std::io::BufReader;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::failure::Failure;
use crate::http;
use crate::jws::{self, Signer};
use crate::raw_samples::{RawSamples, RowIdentity, Sample, Status};
use crate::spec::{Cell, Spec};
use crate::suite_jwt::{self, NotTimed};

const OPERATIONS: [&str; 3] = ["request-response", "sign", "verify"];

/// The cell's server: verifies with the cell's key, signs receipts with it.
struct Server {
    address: String,
    stopping: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    fn start(signer: Arc<Signer>) -> Result<Server, String> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("cannot listen on 127.0.0.1: {e}"))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?.to_string();
        let stopping = Arc::new(AtomicBool::new(false));
        let stop = Arc::clone(&stopping);
        let thread = std::thread::spawn(move || {
            for connection in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(stream) = connection {
                    if let Err(e) = serve(stream, &signer) {
                        eprintln!("transfer server: connection ended: {e}");
                    }
                }
            }
        });
        Ok(Server {
            address,
            stopping,
            thread: Some(thread),
        })
    }

    fn stop(mut self) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(&self.address); // wakes the accept loop
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Requests on one keep-alive connection until the client closes it.
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
        Ok(Client {
            stream,
            reader,
            host: address.to_string(),
        })
    }

    /// Posts a token; (status code, body).
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
    whole_ns: u64,
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
    let receipt = signer
        .verify(String::from_utf8_lossy(&receipt).trim())
        .map_err(|e| format!("receipt: {}", e.message()))?;
    let whole_ns = start.elapsed().as_nanos() as u64;
    let count = receipt.get("records").and_then(Value::as_u64);
    let received = receipt.get("received_bytes").and_then(Value::as_u64);
    if count != Some(records as u64) || received != Some(token.len() as u64) {
        return Err(format!("receipt says records {count:?}, received_bytes {received:?}"));
    }
    let verify_ns = receipt
        .get("verify_ns")
        .and_then(Value::as_u64)
        .ok_or("no verify_ns in the receipt")?;
    Ok(Trial {
        whole_ns,
        sign_ns,
        verify_ns,
        token_bytes: token.len() as u64,
    })
}

struct Settings {
    trials: u64,
    warmup_trials: u64,
    timeout: Duration,
    budget: Duration,
}

/// What a cell ends with: its timed trials, and whether the budget cut it short.
enum Outcome {
    Timed {
        trials: Vec<Trial>,
        timed_out: bool,
        spent_ns: u64,
    },
    NotTimed(NotTimed),
}

fn run_cell(cell: &Cell, settings: &Settings) -> Result<Outcome, Failure> {
    let case = match suite_jwt::prepare(cell, false)? {
        Ok(case) => case,
        Err(not_timed) => return Ok(Outcome::NotTimed(not_timed)),
    };
    let body = case.inputs.claims[0].clone();
    let records = body.get("records").and_then(Value::as_array).map_or(0, Vec::len);
    let token = case.tokens[0].clone();
    let signer = Arc::new(case.signer);
    let server = Server::start(Arc::clone(&signer)).map_err(Failure::Input)?;
    let outcome = (|| -> Result<Outcome, String> {
        let mut client = Client::connect(&server.address, settings.timeout)?;
        for (what, forged) in [
            ("flipped-signature", jws::flip_signature_bit(&token)),
            ("alg:none", jws::unsigned_twin(&token)),
        ] {
            let forged = forged.map_err(|e| e.message().to_string())?;
            let (code, _) = client.post(&forged)?;
            if code != 401 {
                return Err(format!("the server answered {code} to a {what} token, not 401"));
            }
        }
        let started = Instant::now();
        let mut trials = Vec::new();
        let mut timed_out = false;
        for number in 0..settings.warmup_trials + settings.trials {
            if started.elapsed() > settings.budget {
                timed_out = true;
                break;
            }
            let result = trial(&mut client, &signer, &body, records)?;
            if number >= settings.warmup_trials {
                eprintln!(
                    "{}: trial {} {:.3} ms",
                    cell.label(),
                    trials.len() + 1,
                    result.whole_ns as f64 / 1e6
                );
                trials.push(result);
            }
        }
        Ok(Outcome::Timed {
            trials,
            timed_out,
            spent_ns: started.elapsed().as_nanos() as u64,
        })
    })();
    server.stop();
    Ok(outcome.unwrap_or_else(|reason| Outcome::NotTimed((Status::Failed, reason))))
}

pub fn run(spec: &Spec, out: &mut RawSamples) -> Result<(), Failure> {
    let settings = Settings {
        trials: spec.setting("transfer", "trials")? as u64,
        warmup_trials: spec.setting("transfer", "warmup_trials")? as u64,
        timeout: Duration::from_secs_f64(spec.setting("transfer", "request_timeout_seconds")?.max(0.001)),
        budget: Duration::from_secs_f64(spec.timing.max_cell_seconds),
    };
    for cell in &spec.cells {
        let input_bytes = cell
            .input_file
            .as_deref()
            .and_then(|f| std::fs::metadata(f).ok())
            .map_or(0, |m| m.len());
        let who = suite_jwt::identity(spec, cell, input_bytes);
        let rows: Vec<RowIdentity> = OPERATIONS.iter().map(|op| who.with_operation(op)).collect();
        match run_cell(cell, &settings)? {
            Outcome::NotTimed((status, reason)) => {
                for row in &rows {
                    out.untimed(row, status, &reason)?;
                }
            }
            Outcome::Timed {
                trials,
                timed_out,
                spent_ns,
            } => {
                let status = if timed_out { Status::Timeout } else { Status::Ok };
                if trials.is_empty() {
                    for row in &rows {
                        out.write(row, &Sample::no_sample(Status::Timeout, spent_ns))?;
                    }
                }
                for (k, t) in trials.iter().enumerate() {
                    for (row, ns) in rows.iter().zip([t.whole_ns, t.sign_ns, t.verify_ns]) {
                        out.write(
                            row,
                            &Sample {
                                sample: k as u64 + 1,
                                iterations: 1,
                                elapsed_ns: ns,
                                output_bytes: t.token_bytes,
                                status,
                            },
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}
