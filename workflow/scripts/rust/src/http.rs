//! Just enough HTTP/1.1 over std::net for suite transfer (Content-Length, keep-alive).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

pub struct Message {
    pub start_line: String,
    pub content_type: Option<String>,
    pub body: Vec<u8>,
}

/// Reads one message; Ok(None) when the peer closed the connection before it.
pub fn read_message(reader: &mut BufReader<TcpStream>) -> std::io::Result<Option<Message>> {
    let mut start_line = String::new();
    if reader.read_line(&mut start_line)? == 0 {
        return Ok(None);
    }
    let mut length = 0usize;
    let mut content_type = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Err(std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "headers cut short"));
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => {
                    length = value
                        .trim()
                        .parse()
                        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidData, "bad Content-Length"))?
                }
                "content-type" => content_type = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Message { start_line: start_line.trim_end().to_string(), content_type, body }))
}

pub fn write_request(stream: &mut TcpStream, host: &str, path: &str, body: &[u8]) -> std::io::Result<()> {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/jwt\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

pub fn write_response(stream: &mut TcpStream, status: &str, content_type: &str, body: &[u8]) -> std::io::Result<()> {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: keep-alive\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body)?;
    stream.flush()
}

pub fn status_code(status_line: &str) -> Option<u16> {
    status_line.split_whitespace().nth(1)?.parse().ok()
}
