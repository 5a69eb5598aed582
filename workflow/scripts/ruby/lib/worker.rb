# frozen_string_literal: true

require "json"
require "openssl"
require_relative "errors"
require_relative "hashing"
require_relative "library"
require_relative "timing"

# `serve --spec FILE`: the conductor's worker (workflow/scripts/README.md, "serve"; protocol
# jwtbench-worker/1). It prepares and checks every cell of the spec, says so in its hello, then
# runs the calls it is asked for, one answer line per batch, the clock read around the batch
# only. It times nothing of its own accord.
class Worker
  PROTOCOL = "jwtbench-worker/1"
  # suite -> how its cells are prepared: (spec) -> [cell -> Prepared (raising when it cannot
  # be timed), cell -> its input bytes]
  SUITES = {
    "jwt" => ->(spec) { JwtCells.jwt(spec) },
    "percall" => ->(spec) { JwtCells.jwt(spec) },
    "tokensize" => ->(spec) { JwtCells.tokensize(spec) },
    "transfer" => ->(spec) { Worker.transfer_cells(spec) },
    "hash" => ->(_) { [Hashing.method(:prepare), Hashing.method(:expected_bytes)] },
    "primitive" => ->(_) { [Primitive.method(:prepare), Primitive.method(:expected_bytes)] },
    "harness" => ->(_) { [Harness.method(:prepare), Harness.method(:expected_bytes)] },
    "keygen" => ->(_) { [Keygen.method(:prepare), Keygen.method(:expected_bytes)] },
  }.freeze
  # what each suite needs loaded
  REQUIRES = {
    "jwt" => "jwt_cells", "percall" => "jwt_cells", "tokensize" => "jwt_cells", "transfer" => "transfer",
    "hash" => "hashing", "primitive" => "primitive", "harness" => "harness", "keygen" => "keygen",
  }.freeze
  REFERENCED = %w[jwt hash primitive harness keygen].freeze # the suites with a drift reference
  # The drift reference: SHA-256 of the 64 bytes 00..3f, one-shot, as suite hash's digest.
  REFERENCE_MESSAGE = Hashing.sweep_message(64)

  def self.transfer_cells(spec)
    require_relative "jwt_cells"
    settings = spec["transfer"] or raise UsageError, "spec: key 'transfer' missing"
    timeout = Float(settings.fetch("request_timeout_seconds"))
    cases = JwtCases.new(spec)
    spec["cells"].each { |cell| Transfer.check_body(cases.inputs_of(cell).claims.first, cell["input_file"]) }
    preparer = lambda do |cell|
      jws_case = cases.case_of(cell)
      trials = Transfer.new(jws_case, timeout)
      CLOSE << trials
      JwtCells.entry_of(cases, cell, jws_case, trials.method(:batch), answer: trials.method(:answer))
    end
    [preparer, cases.method(:input_bytes)]
  end

  CLOSE = [] # what stops at the end (transfer's servers)

  # The spec at `path`, every cell's implementation filled in and checked; UsageError if the
  # driver cannot serve it.
  def self.load_spec(path)
    spec = JSON.parse(File.read(path))
    suite = spec.fetch("suite")
    raise UsageError, "spec #{path}: suite #{suite.inspect} is not one this driver runs (#{SUITES.keys.join(', ')})" unless SUITES.key?(suite)

    allowed = %w[hash primitive keygen].include?(suite) ? Hashing::IMPLEMENTATION : JWS::NAME
    spec.fetch("cells").each do |cell|
      implementation = (cell["implementation"] ||= allowed)
      raise UsageError, "spec #{path}: cell implementation #{implementation.inspect} is not #{allowed}" unless implementation == allowed

      cell["input_kind"] ||= "claims" if cell.key?("input_file")
    end
    spec
  rescue SystemCallError => e
    raise UsageError, "cannot read spec #{path}: #{e.message}"
  rescue JSON::ParserError, KeyError, TypeError, NoMethodError => e
    raise UsageError, "spec #{path}: not a spec this driver serves (#{one_line(e)})"
  end

  def initialize(spec)
    @spec = spec
    require_relative REQUIRES.fetch(spec["suite"])
    @prepare, @input_bytes = SUITES.fetch(spec["suite"]).call(spec)
  end

  # prepare(cell), or the cell unsupported or failed, with why (on stderr too).
  def checked(cell)
    @prepare.call(cell)
  rescue SystemCallError => e
    raise UsageError, "cell #{cell['operation']} #{cell['algorithm']}: cannot read a file: #{e.message}"
  rescue StandardError => e # a library error before timing fails the cell, it is no crash
    raise if e.is_a?(UsageError)

    status = e.is_a?(Unsupported) ? "unsupported" : "failed"
    reason = e.is_a?(Unsupported) || e.is_a?(CheckFailed) ? e.message : one_line(e)
    warn "#{cell['operation']} #{cell['algorithm']} #{cell['input']}: #{status}: #{reason}"
    version = cell["implementation"] == JWS::NAME ? JWS::VERSION : Hashing::VERSION
    Prepared.new(implementation: cell["implementation"], implementation_version: version,
                 input_bytes: @input_bytes.call(cell), status: status, reason: reason)
  end

  def reference
    call = -> { OpenSSL::Digest::SHA256.digest(REFERENCE_MESSAGE) }
    calls = Calls.new([call])
    Prepared.ok(Hashing::IMPLEMENTATION, Hashing::VERSION, REFERENCE_MESSAGE.bytesize, calls.method(:batch),
                call.call.bytesize, calls: calls)
  end

  # The protocol: the hello once every cell is prepared and checked, then each request.
  def serve(input, answers)
    cells = @spec["cells"].each_with_index.to_h { |cell, index| [index, checked(cell)] }
    cells["reference"] = reference
    hello = { "protocol" => PROTOCOL, "cells" => cells.values_at(*0...@spec["cells"].size).map(&:entry),
              "reference" => REFERENCED.include?(@spec["suite"]) ? cells["reference"].entry : nil }
    if @spec.key?("crosscheck")
      require_relative "native"
      hello["harness"] = { "name" => Native::NAME, "version" => Native::VERSION }
    end
    answers.puts(JSON.generate(hello))
    requests(cells, input, answers)
  ensure
    CLOSE.each(&:close)
  end

  def requests(cells, input, answers)
    sink = 0
    input.each_line do |line|
      request = JSON.parse(line)
      if request["end"]
        answers.puts(JSON.generate({ "sink" => sink }))
        return 0
      end
      if request.key?("native")
        key, seconds = request["native"]
        answers.puts(JSON.generate(native(cells.fetch(key), seconds)))
        next
      end
      request.fetch("batches").each do |key, n|
        cell = cells.fetch(key)
        begin
          cpu = Timing.thread_cpu
          start = Timing.clock
          folded = cell.batch.call(n)
          elapsed = Timing.clock - start
          cpu = Timing.thread_cpu - cpu
          answer = { "elapsed_ns" => [elapsed, 1].max, "cpu_ns" => cpu }
          answer.merge!(cell.answer.call(n, folded)) if cell.answer
        rescue StandardError => e
          answers.puts(JSON.generate({ "error" => one_line(e) }))
          break
        end
        sink ^= folded
        answers.puts(JSON.generate(answer))
      end
    end
    warn "serve: the conductor closed the pipe without an end request"
    4
  end

  def native(cell, seconds)
    raise CheckFailed, "this cell has no call the native harness can time" unless cell.calls

    Native.measure(cell.calls, Float(seconds))
  rescue StandardError => e
    { "error" => one_line(e) }
  end
end
