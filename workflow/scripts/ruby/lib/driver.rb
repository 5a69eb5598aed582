# frozen_string_literal: true

# jwtbench's ruby driver: ruby-jwt (or the library JWTBENCH_LIBRARY names, library.rb) on
# Ruby's openssl; OpenSSL through Ruby's openssl for suites hash, primitive and keygen.
#
# Commands (the contract every driver shares, workflow/scripts/README.md):
#   versions | sign --alg --key --payload | verify --alg --key --token [--signature-only]
#   | verify-batch --cases | sign-batch --cases | serve --spec | coldstart --hmac --rsa --payload
# Each command loads only what it uses: coldstart's process is the library's and Ruby's.

require "json"
require "optparse"
require_relative "errors"
require_relative "inputs"
require_relative "library"

EXIT_INVALID = 1
EXIT_USAGE = 2
EXIT_UNSUPPORTED = 3
EXIT_ERROR = 4
OUTCOMES = { 0 => "accept", EXIT_INVALID => "reject", EXIT_UNSUPPORTED => "unsupported", EXIT_ERROR => "error" }.freeze
# What a hostile token may make the library raise beyond StandardError, and still get a
# verdict: a stack overflow (SystemStackError) or memory (NoMemoryError).
ERRORS = [StandardError, SystemStackError, NoMemoryError].freeze

def read_file(path, what)
  File.binread(path)
rescue SystemCallError => e
  raise UsageError, "cannot read #{what} #{path}: #{e.message.sub(/ @ \w+ - .*/, '')}"
end

def ensure_supported(alg)
  reason = JWS.unsupported(alg)
  raise Unsupported, reason if reason
end

def signing_key(alg, path)
  JWS.signing_key(alg, read_file(path, "key"))
end

def verifying_key(alg, path)
  JWS.verifying_key(alg, read_file(path, "key"))
end

def parse_claims(data, where)
  Inputs.parse(data, "payload #{where}")
end

def versions
  require "openssl"
  require "benchmark/ips"
  gem "webrick", "= 1.8.1"
  require "webrick"
  env = ENV.fetch("JWTBENCH_RUBY_ENV", "")
  packages = File.readlines(File.join(env, "debian-packages.txt"), chomp: true).to_h(&:split) rescue {}
  {
    "language" => "ruby",
    "runtime" => RUBY_ENGINE,
    "runtime_version" => RUBY_VERSION,
    "runtime_description" => RUBY_DESCRIPTION,
    "runtime_package" => "Debian ruby3.1 #{packages.fetch('ruby3.1', 'unknown')}",
    "yjit" => defined?(RubyVM::YJIT) && RubyVM::YJIT.enabled? ? "enabled" : "off",
    "implementation" => JWS::NAME,
    "implementation_version" => JWS::VERSION,
    "crypto_backend" => JWS::CRYPTO_BACKEND,
    "hash_backend" => "ruby-openssl #{OpenSSL::VERSION} on #{OpenSSL::OPENSSL_LIBRARY_VERSION} (suites hash, primitive, keygen)",
    "libraries" => JWS::LIBRARIES.merge(
      "ruby-openssl" => OpenSSL::VERSION,
      "openssl" => OpenSSL::OPENSSL_LIBRARY_VERSION.split[1],
      "json" => JSON::VERSION,
      "benchmark-ips" => Benchmark::IPS::VERSION,
      "webrick" => WEBrick::VERSION
    ),
    "debian_packages" => packages,
  }
end

def command_sign(options)
  ensure_supported(options[:alg])
  claims = parse_claims(read_file(options[:payload], "payload"), options[:payload])
  puts JWS.sign(claims, signing_key(options[:alg], options[:key]), options[:alg])
  0
end

# [exit status, result or reason] of one verify call: 0 and what it returned; 1 when the
# library says the token is invalid (its documented errors, JWS::INVALID); 4 for anything else
# it raised, never a backtrace.
def judged
  [0, yield]
rescue *JWS::INVALID => e
  [EXIT_INVALID, one_line(e)]
rescue *ERRORS => e
  [EXIT_ERROR, one_line(e)]
end

def verifier(signature_only)
  signature_only ? JWS.method(:verify_signature) : JWS.method(:verify)
end

def command_verify(options)
  alg = options[:alg]
  ensure_supported(alg)
  token = read_file(options[:token], "token").strip
  key = verifying_key(alg, options[:key])
  status, verified = judged { verifier(options[:signature_only]).call(token, key, alg) }
  case status
  when EXIT_INVALID then warn "invalid token: #{verified}"
  when EXIT_ERROR then warn "error: #{verified}"
  else
    options[:signature_only] ? $stdout.write(verified) : puts(JSON.generate(verified))
  end
  status
end

def peak_rss_kb
  File.foreach("/proc/self/status") { |line| return line.split[1].to_i if line.start_with?("VmHWM:") }
  0
rescue SystemCallError
  0
end

def reset_peak_rss
  File.write("/proc/self/clear_refs", "5")
rescue SystemCallError
  nil
end

def case_line(case_, status, elapsed_ns, reason)
  { "id" => case_["id"], "exit" => status, "outcome" => OUTCOMES.fetch(status), "elapsed_ns" => elapsed_ns,
    "peak_rss_kb" => peak_rss_kb, "reason" => reason }
end

# One conformance case (README, verify-batch): its line, from one timed call of the same
# verify as the `verify` command (`verify --signature-only` when the case says so).
def verify_case(case_)
  require_relative "timing"
  alg = case_["alg"]
  reason = JWS.unsupported(alg)
  return case_line(case_, EXIT_UNSUPPORTED, 0, reason) if reason

  begin
    key = JWS.verifying_key(alg, File.binread(case_["key"]))
    token = File.binread(case_["token"]).strip
  rescue *ERRORS => e
    return case_line(case_, EXIT_ERROR, 0, "cannot load the case's key or token: #{e.class}")
  end
  check = verifier(case_["signature_only"])
  reset_peak_rss
  start = Timing.clock
  status, result = judged { check.call(token, key, alg) }
  elapsed = Timing.clock - start
  line = case_line(case_, status, elapsed, status.zero? ? "" : result)
  if status.zero? && case_["signature_only"]
    line["payload_b64url"] = [result].pack("m0").tr("+/", "-_").delete("=")
  elsif status.zero? && case_["claims"]
    line["claims"] = result # what `verify` prints, for the gate's checks
  end
  line
end

# The cases of a batch command's FILE, each with every one of `fields`.
def read_cases(path, fields)
  cases = JSON.parse(read_file(path, "cases")).fetch("cases")
  incomplete = cases.index { |case_| !(case_.is_a?(Hash) && fields.all? { |field| case_.key?(field) }) }
  raise UsageError, "#{path}: case #{incomplete} lacks one of #{fields.join(', ')}" if incomplete

  cases
rescue JSON::ParserError, KeyError, TypeError, NoMethodError => e
  raise UsageError, "#{path}: not a cases file (#{one_line(e)})"
end

# One line per case of FILE, each flushed as it is answered.
def answer_cases(path, fields)
  read_cases(path, fields).each do |case_|
    $stdout.puts JSON.generate(yield(case_))
    $stdout.flush
  end
  0
end

# One case of sign-batch: what `sign` does, as a line with its exit status.
def sign_case(case_)
  alg = case_["alg"]
  reason = JWS.unsupported(alg)
  return { "id" => case_["id"], "exit" => EXIT_UNSUPPORTED, "token" => "", "reason" => reason } if reason

  begin
    claims = parse_claims(File.binread(case_["payload"]), case_["payload"])
    token = JWS.sign(claims, JWS.signing_key(alg, File.binread(case_["key"])), alg)
  rescue *ERRORS => e
    return { "id" => case_["id"], "exit" => EXIT_ERROR, "token" => "", "reason" => one_line(e) }
  end
  { "id" => case_["id"], "exit" => 0, "token" => token, "reason" => "" }
end

# A whole process's work for suite coldstart: one HS256 and one RS256 token.
def command_coldstart(options)
  claims = parse_claims(read_file(options[:payload], "payload"), options[:payload])
  { "HS256" => options[:hmac], "RS256" => options[:rsa] }.each do |alg, path|
    puts JWS.sign(claims, signing_key(alg, path), alg)
  end
  0
end

def command_serve(options)
  require_relative "worker"
  spec = Worker.load_spec(options[:spec])
  worker = Worker.new(spec)
  # The protocol owns the real stdout; anything else that prints goes to stderr.
  answers = $stdout.dup
  answers.sync = true
  $stdout.reopen($stderr)
  worker.serve($stdin, answers)
end

# command -> [its function, its flags (all required)]
COMMANDS = {
  "versions" => [->(_) { puts(JSON.generate(versions)) || 0 }, []],
  "sign" => [method(:command_sign), %i[alg key payload]],
  "verify" => [method(:command_verify), %i[alg key token]],
  "verify-batch" => [->(o) { answer_cases(o[:cases], %w[id alg key token]) { |case_| verify_case(case_) } }, %i[cases]],
  "sign-batch" => [->(o) { answer_cases(o[:cases], %w[id alg key payload]) { |case_| sign_case(case_) } }, %i[cases]],
  "serve" => [method(:command_serve), %i[spec]],
  "coldstart" => [method(:command_coldstart), %i[hmac rsa payload]],
}.freeze

def parse(argv)
  name = argv.first
  raise UsageError, "usage: run #{COMMANDS.keys.join('|')} ... (unknown command #{name.inspect})" unless COMMANDS.key?(name)

  function, flags = COMMANDS.fetch(name)
  options = {}
  parser = OptionParser.new do |opts|
    flags.each { |flag| opts.on("--#{flag.to_s.tr('_', '-')} VALUE") { |value| options[flag] = value } }
    opts.on("--signature-only") { options[:signature_only] = true } if name == "verify"
  end
  rest = parser.parse(argv.drop(1))
  raise UsageError, "#{name}: unexpected argument #{rest.first}" unless rest.empty?

  missing = flags.find { |flag| !options.key?(flag) }
  raise UsageError, "#{name}: flag --#{missing.to_s.tr('_', '-')} is required" if missing

  [function, options]
rescue OptionParser::ParseError => e
  raise UsageError, "#{name}: #{e.message}"
end

def main(argv)
  function, options = parse(argv)
  function.call(options)
rescue Unsupported => e
  warn "unsupported: #{e.message}"
  EXIT_UNSUPPORTED
rescue UsageError => e
  warn "error: #{e.message}"
  EXIT_USAGE
rescue *ERRORS => e
  warn "error: #{one_line(e)}"
  EXIT_ERROR
end

exit(main(ARGV)) if $PROGRAM_NAME == __FILE__
