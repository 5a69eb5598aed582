//! jwtbench's Rust driver (workflow/scripts/README.md; src/libraries/ for the JWS libraries).

mod args;
mod batches;
mod criterion_harness;
mod failure;
mod harness;
mod hashing;
mod http;
mod jws;
mod keygen;
mod libraries;
mod primitive;
mod serve;
mod spec;
mod suite_jwt;
mod timing;
mod transfer;
mod versions;

use std::io::Write;
use std::process::ExitCode;

use failure::Failure;

const USAGE: &str = "usage: run versions | sign --alg ALG --key FILE --payload FILE | sign-batch --cases FILE | \
verify --alg ALG --key FILE --token FILE [--signature-only] | verify-batch --cases FILE | \
serve --spec FILE | coldstart --hmac FILE --rsa FILE --payload FILE";

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            // verify's verdict on a token reads "invalid token: Kind: message".
            let prefix = match (&failure, argv.first().map(String::as_str)) {
                (Failure::Invalid(_), Some("verify")) => "invalid token",
                _ => "error",
            };
            eprintln!("{prefix}: {}", failure.message());
            ExitCode::from(failure.exit_code())
        }
    }
}

fn dispatch(argv: &[String]) -> Result<(), Failure> {
    let Some((command, rest)) = argv.split_first() else {
        return Err(Failure::Input(USAGE.into()));
    };
    libraries::select()?; // JWTBENCH_LIBRARY: the JWS library this process times
    match command.as_str() {
        "versions" => {
            args::Flags::parse(rest, &[])?;
            println!("{}", versions::report());
            Ok(())
        }
        "sign" => {
            let flags = args::Flags::parse(rest, &["--alg", "--key", "--payload"])?;
            let token = jws::sign_command(flags.get("--alg")?, flags.get("--key")?, flags.get("--payload")?)?;
            println!("{token}");
            Ok(())
        }
        "sign-batch" => {
            let flags = args::Flags::parse(rest, &["--cases"])?;
            failure::silence_panics();
            batches::sign(flags.get("--cases")?)
        }
        "verify" => {
            let signature_only = rest.iter().any(|a| a == "--signature-only");
            let rest: Vec<String> = rest.iter().filter(|a| *a != "--signature-only").cloned().collect();
            let flags = args::Flags::parse(&rest, &["--alg", "--key", "--token"])?;
            let (alg, key, token) = (flags.get("--alg")?, flags.get("--key")?, flags.get("--token")?);
            failure::silence_panics();
            if signature_only {
                let payload = failure::catch_panic(|| jws::verify_signature_only(alg, key, token))?;
                let written = std::io::stdout().write_all(&payload);
                return written.map_err(|e| Failure::Input(format!("cannot write the payload: {e}")));
            }
            println!("{}", failure::catch_panic(|| jws::verify_command(alg, key, token))?);
            Ok(())
        }
        "verify-batch" => {
            let flags = args::Flags::parse(rest, &["--cases"])?;
            failure::silence_panics();
            batches::verify(flags.get("--cases")?)
        }
        "coldstart" => {
            let flags = args::Flags::parse(rest, &["--hmac", "--rsa", "--payload"])?;
            for line in jws::coldstart_command(flags.get("--hmac")?, flags.get("--rsa")?, flags.get("--payload")?)? {
                println!("{line}");
            }
            Ok(())
        }
        "serve" => {
            let flags = args::Flags::parse(rest, &["--spec"])?;
            serve::command(flags.get("--spec")?)
        }
        other => Err(Failure::Input(format!("unknown command {other:?}; {USAGE}"))),
    }
}
