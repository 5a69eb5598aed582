# frozen_string_literal: true

require "benchmark/ips"

# The native harness of a cross-check spec's `native` requests: benchmark-ips (Debian's
# ruby-benchmark-ips), the harness Ruby's community reaches for, on the very call a cell's
# batch makes (its Calls, in the batch's order).
#
# It shares no timing code with the worker's batches (timing.rb): a Benchmark.ips job per
# request, with its own loop (Job::Entry#call_times, a while loop around the block), its clock
# (Benchmark::Timing.now, CLOCK_MONOTONIC in float microseconds), its calibration (the warm-up
# phase sets the cycles of a ~100 ms sample) and its statistic (the mean of its samples'
# iterations per second, Report::Entry#ips). A request of S seconds gives the job a warm-up
# of a fifth of S and a measurement of the rest; its samples are ~100 ms each whatever S is,
# so a block is never shorter than one sample.
module Native
  NAME = "benchmark-ips"
  VERSION = Benchmark::IPS::VERSION
  WARMUP_SHARE = 0.2

  module_function

  # {"ns_per_op", "samples"}: benchmark-ips's figure for about `seconds` of `call`'s calls.
  def measure(calls, seconds)
    block = calls.list.size == 1 ? calls.list.first : -> { calls.next_call.call }
    report = Benchmark.ips(quiet: true) do |job|
      job.config(warmup: seconds * WARMUP_SHARE, time: seconds * (1 - WARMUP_SHARE))
      job.report("cell", &block)
    end
    entry = report.entries.first
    { "ns_per_op" => 1e9 / entry.ips, "samples" => [entry.iterations / entry.measurement_cycle, 1].max }
  end
end
