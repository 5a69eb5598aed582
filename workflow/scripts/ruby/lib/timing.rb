# frozen_string_literal: true

# The worker's clock (read around each batch only), a cell's batch of calls, and a cell as
# the worker prepared it.
module Timing
  module_function

  # Ruby's monotonic clock in integer nanoseconds.
  def clock
    Process.clock_gettime(Process::CLOCK_MONOTONIC, :nanosecond)
  end

  # The calling thread's CPU time (the batch answer's cpu_ns).
  def thread_cpu
    Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID, :nanosecond)
  end
end

# A cell's calls (zero-argument lambdas) taken in turn, the position carried over from batch
# to batch: batch(n) makes the next n calls and returns the sum of their results' sizes.
class Calls
  attr_reader :list

  def initialize(list)
    @list = list
    @at = 0
  end

  def batch(n)
    list, at, sink, i = @list, @at, 0, 0
    size = list.size
    while i < n
      sink += list[at].call.size
      at += 1
      at = 0 if at == size
      i += 1
    end
    @at = at
    sink
  end

  # The next call, in the batch's order (the native harness takes them so).
  def next_call
    call = @list[@at]
    @at = (@at + 1) % @list.size
    call
  end
end

# The batch of a sign or verify cell of suites primitive and keygen (OpenSSL's PKey#sign and
# #verify, the digest named by `digest`): sign makes a new signature of the message per call;
# verify checks `signature`, and a false answer fails the cell. Either consumes the
# signature's length.
def signature_batch(operation, private, public, digest, message, signature)
  length = signature.bytesize
  if operation == "sign"
    lambda do |n|
      sink = 0
      i = 0
      while i < n
        sink += private.sign(digest, message).bytesize
        i += 1
      end
      sink
    end
  else
    lambda do |n|
      sink = 0
      i = 0
      while i < n
        raise CheckFailed, "a valid signature did not verify" unless public.verify(digest, signature, message)

        sink += length
        i += 1
      end
      sink
    end
  end
end

# One spec cell, prepared and checked (untimed): its batch when it can be timed, else its
# status (unsupported, failed) and why.
Prepared = Struct.new(
  :implementation, :implementation_version, :input_bytes,
  :batch,         # n -> the folded sizes of n calls
  :output_bytes,
  :pass_length,   # calls per pass through its inputs
  :answer,        # (n, sink) -> the batch answer's further fields, or nil
  :calls,         # a Calls whose calls the native harness times (jwt cells, the reference)
  :status, :reason,
  keyword_init: true
) do
  def self.ok(implementation, version, input_bytes, batch, output_bytes, pass_length: 1, answer: nil, calls: nil)
    new(implementation: implementation, implementation_version: version, input_bytes: input_bytes, batch: batch,
        output_bytes: output_bytes, pass_length: pass_length, answer: answer, calls: calls, status: "ok")
  end

  # The cell's entry in the hello (workflow/scripts/README.md, "serve").
  def entry
    fields = { "status" => status, "implementation" => implementation,
               "implementation_version" => implementation_version, "input_bytes" => input_bytes }
    return fields.merge("reason" => reason) unless status == "ok"

    fields.merge("output_bytes" => output_bytes, "pass_length" => pass_length)
  end
end
