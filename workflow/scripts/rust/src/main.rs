//! jwtbench's Rust driver: the `jsonwebtoken` crate on its RustCrypto backend, behind the
//! driver contract of workflow/scripts/README.md (versions, sign, sign-batch, verify,
//! verify-batch, bench, serve, crosscheck, coldstart, stopping); with
//! JWTBENCH_LIBRARY=jwt-simple or josekit, the same harness times that library instead
//! (src/libraries/).

mod args;
mod batch;
mod criterion_harness;
mod crosscheck;
mod crosscheck_rows;
mod failure;
mod harness;
mod hashing;
mod http;
mod jws;
mod keygen;
mod libraries;
mod percall;
mod primitive;
mod raw_samples;
mod serve;
mod sign_batch;
mod spec;
mod stopping;
mod suite_jwt;
mod timing;
mod tokensize;
mod transfer;
mod verify_batch;
mod versions;

use std::io::Write;
use std::process::ExitCode;

use failure::Failure;

const USAGE: &str = "usage: run versions | sign --alg ALG --key FILE --payload FILE | sign-batch --cases FILE | \
verify --alg ALG --key FILE --token FILE [--signature-only] | verify-batch --cases FILE | \
bench --spec FILE --out FILE | serve --spec FILE | crosscheck --spec FILE --out FILE | \
coldstart --hmac FILE --rsa FILE --payload FILE | stopping --series FILE";

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
            sign_batch::command(flags.get("--cases")?)
        }
        "verify" if rest.iter().any(|a| a == "--signature-only") => {
            let rest: Vec<String> = rest.iter().filter(|a| *a != "--signature-only").cloned().collect();
            let flags = args::Flags::parse(&rest, &["--alg", "--key", "--token"])?;
            failure::silence_panics();
            let payload = failure::catch_panic(|| {
                jws::verify_signature_only(flags.get("--alg")?, flags.get("--key")?, flags.get("--token")?)
            })?;
            std::io::stdout()
                .write_all(&payload)
                .map_err(|e| Failure::Input(format!("cannot write the payload: {e}")))
        }
        "verify" => {
            let flags = args::Flags::parse(rest, &["--alg", "--key", "--token"])?;
            failure::silence_panics();
            let claims = failure::catch_panic(|| {
                jws::verify_command(flags.get("--alg")?, flags.get("--key")?, flags.get("--token")?)
            })?;
            println!("{claims}");
            Ok(())
        }
        "verify-batch" => {
            let flags = args::Flags::parse(rest, &["--cases"])?;
            failure::silence_panics();
            verify_batch::command(flags.get("--cases")?)
        }
        "coldstart" => {
            let flags = args::Flags::parse(rest, &["--hmac", "--rsa", "--payload"])?;
            for line in jws::coldstart_command(flags.get("--hmac")?, flags.get("--rsa")?, flags.get("--payload")?)? {
                println!("{line}");
            }
            Ok(())
        }
        "bench" => {
            let flags = args::Flags::parse(rest, &["--spec", "--out"])?;
            bench(flags.get("--spec")?, flags.get("--out")?)
        }
        "serve" => {
            let flags = args::Flags::parse(rest, &["--spec"])?;
            serve::command(flags.get("--spec")?)
        }
        "crosscheck" => {
            let flags = args::Flags::parse(rest, &["--spec", "--out"])?;
            crosscheck::command(flags.get("--spec")?, flags.get("--out")?)
        }
        "stopping" => {
            let flags = args::Flags::parse(rest, &["--series"])?;
            stopping::command(flags.get("--series")?)
        }
        // Not part of the contract: the child process suite keygen kills when a key
        // generation outlives its budget (keygen.rs).
        keygen::WORKER_COMMAND => keygen::worker(rest),
        other => Err(Failure::Input(format!("unknown command {other:?}; {USAGE}"))),
    }
}

fn bench(spec_path: &str, out_path: &str) -> Result<(), Failure> {
    let spec = spec::Spec::load(spec_path)?;
    let mut out = raw_samples::RawSamples::create(out_path)?;
    match spec.suite.as_str() {
        "jwt" => suite_jwt::run(&spec, &mut out),
        "tokensize" => tokensize::run(&spec, &mut out),
        "percall" => percall::run(&spec, &mut out),
        "transfer" => transfer::run(&spec, &mut out),
        "hash" => hashing::run(&spec, &mut out),
        "primitive" => primitive::run(&spec, &mut out),
        "keygen" => keygen::run(&spec, &mut out),
        "harness" => harness::run(&spec, &mut out),
        other => Err(Failure::Input(format!("{spec_path}: unknown suite {other:?}"))),
    }
}
