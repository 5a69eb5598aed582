# frozen_string_literal: true

require_relative "checks"
require_relative "errors"
require_relative "inputs"
require_relative "library"
require_relative "timing"

# One algorithm with its keys parsed once into the library's objects, its inputs, and a pool
# of tokens signed untimed (tokens[i] is inputs.claims[i] signed; the checks use the first).
JwtCase = Struct.new(:alg, :inputs, :signing_key, :verifying_key, :tokens) do
  def self.prepare(alg, private_key_file, public_key_file, inputs, pool_size = nil)
    reason = JWS.unsupported(alg)
    raise Unsupported, reason if reason

    signing_key = JWS.signing_key(alg, File.binread(private_key_file))
    verifying_key = JWS.verifying_key(alg, File.binread(public_key_file))
    pool = pool_size ? inputs.claims.first(pool_size) : inputs.claims
    new(alg, inputs, signing_key, verifying_key, pool.map { |claims| JWS.sign(claims, signing_key, alg) })
  end

  def claims
    inputs.claims.first
  end

  def output_bytes
    Inputs.rounded_mean(tokens.map(&:bytesize))
  end

  # One zero-argument call per input doing `operation`, in input order.
  def calls(operation)
    case operation
    when "sign" then inputs.claims.map { |claims| -> { JWS.sign(claims, signing_key, alg) } }
    when "verify" then tokens.map { |token| -> { JWS.verify(token, verifying_key, alg) } }
    when "decode" then tokens.map { |token| -> { JWS.decode(token) } }
    else raise UsageError, "unknown jwt operation #{operation.inspect}"
    end
  end
end

# Suites jwt, percall, tokensize and transfer: every input file read and parsed first (a bad
# one is a usage error), then per cell its case (keys parsed, pool signed and checked once per
# algorithm, key pair and input).
class JwtCases
  def initialize(spec, pool_size: nil)
    @pool_size = pool_size
    @inputs = {}
    @cases = {}
    spec["cells"].each { |cell| inputs_of(cell) }
  end

  def inputs_of(cell)
    @inputs[[cell["input_file"], cell["input_kind"]]] ||= Inputs.load(cell["input_file"], cell["input_kind"])
  end

  def case_of(cell)
    inputs = inputs_of(cell)
    key = [cell["algorithm"], cell["private_key"], cell["public_key"], inputs.object_id]
    @cases[key] ||= JwtCase.prepare(*key[0, 3], inputs, @pool_size).tap do |prepared|
      Checks.check(prepared, cell["public_key"])
    end
  end

  def input_bytes(cell)
    inputs_of(cell).mean_bytes
  end
end

module JwtCells
  module_function

  def entry_of(cases, cell, jws_case, batch, **fields)
    Prepared.ok(JWS::NAME, JWS::VERSION, cases.input_bytes(cell), batch, jws_case.output_bytes, **fields)
  end

  # Suites jwt and percall (and a cross-check spec): a batch takes the cell's calls in turn.
  def jwt(spec)
    cases = JwtCases.new(spec)
    preparer = lambda do |cell|
      jws_case = cases.case_of(cell)
      calls = Calls.new(jws_case.calls(cell["operation"]))
      entry_of(cases, cell, jws_case, calls.method(:batch), pass_length: calls.list.size, calls: calls)
    end
    [preparer, cases.method(:input_bytes)]
  end

  # Suite tokensize: a call signs the cell's next record (file order, wrapping around); a batch
  # of one answers that record's size and its token's. Checked on the first record.
  def tokensize(spec)
    cases = JwtCases.new(spec, pool_size: 1)
    preparer = lambda do |cell|
      jws_case = cases.case_of(cell)
      calls = Calls.new(jws_case.calls("sign"))
      sizes, position = jws_case.inputs.sizes, 0
      answer = lambda do |n, sink|
        record = position
        position = (position + n) % sizes.size
        n == 1 ? { "input_bytes" => sizes[record], "output_bytes" => sink } : {}
      end
      entry_of(cases, cell, jws_case, calls.method(:batch), pass_length: sizes.size, answer: answer)
    end
    [preparer, cases.method(:input_bytes)]
  end
end
