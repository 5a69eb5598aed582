# frozen_string_literal: true

# The driver's own errors: each decides an exit status or a cell's status.
class UsageError < StandardError; end # exit 2: a flag, a file or a spec the driver cannot use
class Unsupported < StandardError; end # exit 3 / status unsupported: the library lacks the algorithm
class CheckFailed < StandardError; end # status failed: a check before timing did not hold

# An error as the contract's one line: its class and message, at most 300 characters.
def one_line(error)
  "#{error.class}: #{error.message}".scrub.split.join(" ")[0, 300]
end
